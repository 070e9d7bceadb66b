/**
 * Reports (spec sections 3 and 9): the settings a report takes and the rows it is made of.
 * Rows are plain, structured-cloneable values: the request thread reads them from the read
 * store a page at a time and hands them to the worker that renders the file.
 */
export const REPORT_TYPES = ['transactions', 'receipts', 'matches', 'analytics'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];
export const REPORT_FORMATS = ['pdf', 'excel'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
export const GROUP_BY = ['date', 'merchant', 'amount', 'status'] as const;
export type GroupBy = (typeof GROUP_BY)[number];
/** PDF pages per receipt choices; 'all' is every page. */
export const PAGES_PER_RECEIPT = ['all', 1, 2, 3, 5] as const;
export type PagesPerReceipt = (typeof PAGES_PER_RECEIPT)[number];
/** Records a preview shows at most. */
export const PREVIEW_LIMIT = 10;

export interface ReportSettings {
  startDate?: string;
  endDate?: string;
  includeMatched: boolean;
  includeUnmatched: boolean;
  includeOCRData: boolean;
  maxPagesPerReceipt: PagesPerReceipt;
  title?: string;
  groupBy: GroupBy;
  includeAnalytics: boolean;
  includeCharts: boolean;
  includeSummary: boolean;
  includeDetails: boolean;
}

/** A receipt file attached to a row of a PDF report (bytes travel with the row). */
export interface ReportAttachment {
  receiptId: string;
  filename: string;
  kind: 'jpeg' | 'png' | 'pdf';
  /** The original file: absent when the print copy serves (or the file is missing). */
  bytes?: Uint8Array;
  /** Key of the file in the blob store (a print copy made by the report is kept under it). */
  sha256?: string;
  /** The receipt's stored print copy (print-copy.ts), when it has one. */
  print?: Uint8Array;
}

export interface ReportTransaction {
  id: string;
  date: string;
  description: string;
  amountCents: number;
  salesTaxCents: number | null;
  category: string | null;
  jobNumber: string | null;
  costCode: string | null;
  owner: string;
  /** Names of the receipts matched to it (the ones the viewer may see). */
  receipts: string[];
  attachments: ReportAttachment[];
  /** Its saved split across categories, job numbers and cost codes (ai/splitting), when it has one. */
  split?: ReportSplit | null;
}

/** A saved split: parts in cents signed like the amount, adding up to `totalCents` (the amount it was saved for; another amount now means it is stale). */
export interface ReportSplit {
  totalCents: number;
  parts: Array<{ amountCents: number; category: string; jobNumber: string; costCode: string; note?: string }>;
}

export interface ReportReceipt {
  id: string;
  filename: string;
  uploadDate: string;
  /** The receipt's date: extracted, else the upload day. */
  date: string;
  merchant: string | null;
  description: string | null;
  amountCents: number | null;
  taxCents: number | null;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  matched: boolean;
  owner: string;
  ocrSource: string | null;
  ocrConfidence: number | null;
  /** A link to the file in the product (Excel shows links, never images). */
  link: string;
  attachments: ReportAttachment[];
}

export interface ReportMatch {
  id: string;
  status: 'pending' | 'confirmed';
  confidence: number;
  receiptFilename: string;
  merchant: string | null;
  receiptDate: string | null;
  receiptAmountCents: number | null;
  description: string;
  transactionDate: string;
  transactionAmountCents: number;
  owner: string;
}

export type ReportRow =
  | ({ type: 'transaction' } & ReportTransaction)
  | ({ type: 'receipt' } & ReportReceipt)
  | ({ type: 'match' } & ReportMatch);

/** What a report is about: the page heading and the cover. */
export interface ReportMeta {
  type: ReportType;
  format: ReportFormat;
  title: string;
  company: string;
  generatedBy: string;
  generatedAt: string;
  /** Human period, e.g. '2026-01-01 to 2026-03-31' or 'All dates'. */
  period: string;
  settings: ReportSettings;
  /** Base of receipt links in Excel, e.g. 'https://host/receipts/'. */
  receiptLinkBase: string;
}

/** Which pass of a report rows are read for: the summary (first), then the detail tables. */
export type ReportPass = 'summary' | 'detail';

/** Where the rows of a report come from: one page per call; the detail pass in group order. */
export interface ReportSource {
  next(pass: ReportPass): Promise<{ rows: ReportRow[]; done: boolean }>;
  /**
   * Set where ordering rows would cost the request thread (the embedded store sorts in memory):
   * the renderer then orders the transactions and receipts itself from the ids and keys it saw in
   * the first pass, and asks for their detail rows by id, in that order. `next('detail')` then
   * gives only the matches.
   */
  byIds?(type: 'transaction' | 'receipt', ids: string[]): Promise<ReportRow[]>;
  /** Keeps a print copy the renderer had to make (a receipt without one, or with too few pages) for later reports. */
  keepPrintCopy?(sha256: string, copy: Uint8Array): void;
}
