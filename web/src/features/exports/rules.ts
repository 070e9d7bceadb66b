import axios from 'axios';

/** Spec section 9: pages per receipt in a PDF, and the groupings a report offers. */
export const PAGES_PER_RECEIPT = ['all', 1, 2, 3, 5] as const;
export type PagesPerReceipt = (typeof PAGES_PER_RECEIPT)[number];
export const GROUP_BY = ['date', 'merchant', 'amount', 'status'] as const;
export type GroupBy = (typeof GROUP_BY)[number];
export const FORMATS = ['pdf', 'excel'] as const;
export type ExportFormat = (typeof FORMATS)[number];
/** Spec section 9: the preview shows at most 10 records. */
export const PREVIEW_LIMIT = 10;

/** Spec section 3, export settings: the body of the preview, pdf and excel calls. */
export interface ExportSettings {
  startDate: string;
  endDate: string;
  includeMatched: boolean;
  includeUnmatched: boolean;
  includeOCRData: boolean;
  maxPagesPerReceipt: PagesPerReceipt;
  title: string;
  groupBy: GroupBy;
  includeAnalytics: boolean;
  includeCharts: boolean;
  includeSummary: boolean;
  includeDetails: boolean;
}

/** Spec section 9: transactions, pdf, grouped by date, summary and details included. */
export const DEFAULT_REPORT_TYPE = 'transactions';
export const DEFAULT_FORMAT: ExportFormat = 'pdf';
export const DEFAULT_SETTINGS: ExportSettings = {
  startDate: '',
  endDate: '',
  includeMatched: true,
  includeUnmatched: true,
  includeOCRData: false,
  maxPagesPerReceipt: 'all',
  title: '',
  groupBy: 'date',
  includeAnalytics: false,
  includeCharts: false,
  includeSummary: true,
  includeDetails: true,
};

/** Report types whose rows are matched or unmatched (spec section 5). */
export const usesMatchedFilter = (reportType: string) => reportType === 'transactions' || reportType === 'receipts';
/** Report types with receipt images and OCR text, and rows to group. */
export const usesReceipts = (reportType: string) => reportType === 'transactions' || reportType === 'receipts' || reportType === 'matches';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
function validDate(s: string): boolean {
  if (!ISO_DATE.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

export type ExportIntent = 'generate' | 'preview';

/**
 * Spec section 5, exports: report type and format required ('Please select report type and
 * format'; a preview needs only the type: 'Please select a report type'); transactions and
 * receipts need matched or unmatched. Dates (the spec names no wording): real calendar days,
 * the start not after the end. Null when the settings can be sent.
 */
export function validateExport(intent: ExportIntent, reportType: string | null | undefined, format: string | null | undefined, s: ExportSettings): string | null {
  if (intent === 'generate' && (!reportType || !format)) return 'Please select report type and format';
  if (!reportType) return 'Please select a report type';
  if (usesMatchedFilter(reportType) && !s.includeMatched && !s.includeUnmatched) return 'Please select at least one option: Matched or Unmatched';
  if (s.startDate && !validDate(s.startDate)) return 'Please enter a valid start date';
  if (s.endDate && !validDate(s.endDate)) return 'Please enter a valid end date';
  if (s.startDate && s.endDate && s.startDate > s.endDate) return 'The start date must be on or before the end date';
  return null;
}

/** The body the server receives: every setting; empty dates and an empty title left out. */
export function exportBody(s: ExportSettings): Record<string, unknown> {
  const body: Record<string, unknown> = { ...s };
  if (!s.startDate) delete body.startDate;
  if (!s.endDate) delete body.endDate;
  const title = s.title.trim();
  if (title) body.title = title;
  else delete body.title;
  return body;
}

export const EXPORT_MESSAGES = {
  401: 'Authentication required. Please log in again.',
  403: 'You do not have permission to export reports.',
  timeout: 'Export timeout. Please try with a smaller date range.',
  other: 'Failed to generate report. Please try again.',
} as const;

/** Spec section 8, exports: the message for a failed report from its status or time-out. */
export function exportErrorMessage(error: unknown): string {
  if (axios.isAxiosError(error)) {
    const status = error.response?.status;
    if (status === 401) return EXPORT_MESSAGES[401];
    if (status === 403) return EXPORT_MESSAGES[403];
    if (error.code === 'ECONNABORTED' || error.code === 'ETIMEDOUT' || status === 408 || status === 504) return EXPORT_MESSAGES.timeout;
  }
  return EXPORT_MESSAGES.other;
}

/**
 * The file name a Content-Disposition header gives (RFC 6266: `filename*` with its charset
 * first, then `filename`, quoted or not), else the fallback; never a path.
 */
export function filenameFromDisposition(header: string | null | undefined, fallback: string): string {
  if (!header) return fallback;
  let name: string | null = null;
  const extended = /filename\*\s*=\s*([^;]+)/i.exec(header);
  if (extended) {
    const value = extended[1]!.trim().replace(/^"(.*)"$/, '$1');
    const parts = /^([^']*)'[^']*'(.*)$/.exec(value);
    try {
      name = decodeURIComponent(parts ? parts[2]! : value);
    } catch {
      name = null;
    }
  }
  if (!name) {
    const plain = /(?:^|;)\s*filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/i.exec(header);
    if (plain) name = plain[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : plain[1]!.trim();
  }
  const base = name?.split(/[\\/]/).pop()?.trim();
  return base && base !== '.' && base !== '..' ? base : fallback;
}

/** Spec section 7: report.pdf or report.xlsx when the server names no file. */
export const defaultFilename = (format: ExportFormat) => (format === 'pdf' ? 'report.pdf' : 'report.xlsx');

const UNITS = ['Bytes', 'KB', 'MB', 'GB'] as const;
/** Spec section 9: sizes in Bytes, KB, MB, GB. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n <= 0) return '0 Bytes';
  const i = Math.min(UNITS.length - 1, Math.floor(Math.log(n) / Math.log(1024)));
  const v = n / 1024 ** i;
  return `${i === 0 ? v : Math.round(v * 100) / 100} ${UNITS[i]}`;
}

/** A date range as the server sends it (an object with start and end, or text), in words. */
export function describeDateRange(range: unknown): string | null {
  if (typeof range === 'string') return range || null;
  if (!range || typeof range !== 'object') return null;
  const r = range as Record<string, unknown>;
  if (typeof r.label === 'string' && r.label) return r.label;
  const pick = (...keys: string[]) => keys.map((k) => r[k]).find((v): v is string => typeof v === 'string' && v !== '');
  const start = pick('startDate', 'start', 'from', 'min', 'earliest');
  const end = pick('endDate', 'end', 'to', 'max', 'latest');
  if (start && end) return `${start} to ${end}`;
  if (start) return `from ${start}`;
  if (end) return `until ${end}`;
  return null;
}
