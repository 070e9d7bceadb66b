/**
 * The ports the routers and the OCR reader are given, run in the worker pool: CSV parsing,
 * the upload check of a PDF, thumbnails, and a PDF's text layer and page rendering.
 */
import type { CsvParsers, MatchDeps } from '@paperlink/command-api';
import type { RenderOptions } from '../ocr/pdf';
import type { ReadReceiptOptions } from '../ocr/read-receipt';
import type { WorkerPool } from './pool';
import type { AnalyticsSheetRow } from '@paperlink/query-api';
import type { CalendarEventRef, CalendarInsights, ParsedCalendar, RankedCandidate, RankTarget, ReceiptInput, SpendLine, TransactionInput } from '@paperlink/domain';

/** PDF steps of reading a receipt (see ocr/read-receipt.ts). */
export interface PdfSteps {
  text(bytes: Uint8Array): Promise<string[]>;
  render(bytes: Uint8Array, options: RenderOptions): Promise<Buffer[]>;
}

export interface OffThread {
  parsers: CsvParsers;
  checkPdf(bytes: Uint8Array): Promise<void>;
  thumbnail(bytes: Uint8Array, kind: 'jpeg' | 'png' | 'pdf'): Promise<Buffer>;
  /** A receipt's print copy for PDF reports (infra/src/receipts/thumbnail.ts printCopy). */
  printCopy(bytes: Uint8Array): Promise<Uint8Array>;
  pdf: PdfSteps;
  receiptFields: NonNullable<ReadReceiptOptions['fields']>;
  receiptRereadLines: NonNullable<ReadReceiptOptions['rereadLines']>;
  /** The second line reader of a receipt's total and date lines (PaddleOCR's recogniser). */
  secondLines: NonNullable<ReadReceiptOptions['secondLines']>;
  autoMatch: NonNullable<MatchDeps['autoMatch']>;
  /** The AI tools: iCalendar parsing, trip insights, advanced matching's ranking. */
  calendar(bytes: Uint8Array, now: string): Promise<ParsedCalendar>;
  calendarInsights(events: CalendarEventRef[], lines: SpendLine[]): Promise<CalendarInsights>;
  rankCandidates(target: RankTarget, others: Array<ReceiptInput | TransactionInput>, limit: number): Promise<RankedCandidate[]>;
  /** The analytics export's workbook (query-api AnalyticsDeps). */
  analyticsXlsx(rows: AnalyticsSheetRow[]): Promise<Uint8Array>;
}

/** A copy of the bytes in a buffer of their own, moved (not copied again) into the worker. */
function moved(bytes: Uint8Array): { bytes: Uint8Array; transfer: ArrayBuffer[] } {
  const copy = new Uint8Array(bytes);
  return { bytes: copy, transfer: [copy.buffer] };
}

const toBuffer = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/** PDF work is bounded by pixel budgets; the time limit is the last guard against a pathological file. */
const PDF_TIMEOUT_MS = 30_000;

export function offThread(pool: WorkerPool): OffThread {
  return {
    parsers: {
      statement: (bytes, options) => {
        const m = moved(bytes);
        return pool.run('statement', { bytes: m.bytes, options }, { transfer: m.transfer });
      },
      masterData: (bytes, kind) => {
        const m = moved(bytes);
        return pool.run('masterData', { bytes: m.bytes, kind }, { transfer: m.transfer });
      },
    },
    checkPdf: async (bytes) => {
      const m = moved(bytes);
      await pool.run('checkPdf', { bytes: m.bytes }, { transfer: m.transfer, timeoutMs: PDF_TIMEOUT_MS });
    },
    thumbnail: async (bytes, kind) => {
      const m = moved(bytes);
      return toBuffer(await pool.run('thumbnail', { bytes: m.bytes, kind }, { transfer: m.transfer, timeoutMs: PDF_TIMEOUT_MS }));
    },
    printCopy: (bytes) => {
      const m = moved(bytes);
      return pool.run('printCopy', { bytes: m.bytes }, { transfer: m.transfer, timeoutMs: PDF_TIMEOUT_MS });
    },
    receiptFields: (text, words, options) => pool.run('receiptFields', { text, ...(words ? { words: [...words] } : {}), ...(options ? { options } : {}) }),
    receiptRereadLines: (text, words, fields, options) => pool.run('receiptRereadLines', { text, words: [...words], fields, ...(options ? { options } : {}) }),
    secondLines: {
      readLines: (page, size, boxes, spacing) => {
        const m = moved(page);
        return pool.run('paddleLines', { page: m.bytes, size, boxes: [...boxes], ...(spacing ? { spacing: spacing.map((s) => [...s]) } : {}) }, { transfer: m.transfer, timeoutMs: PDF_TIMEOUT_MS });
      },
    },
    autoMatch: (receipts, transactions, options) => pool.run('autoMatch', { receipts, transactions, options }),
    calendar: (bytes, now) => {
      const m = moved(bytes);
      return pool.run('calendar', { bytes: m.bytes, now }, { transfer: m.transfer, timeoutMs: PDF_TIMEOUT_MS });
    },
    calendarInsights: (events, lines) => pool.run('calendarInsights', { events, lines }),
    rankCandidates: (target, others, limit) => pool.run('rankCandidates', { target, others, limit }),
    analyticsXlsx: (rows) => pool.run('analyticsXlsx', { rows }, { timeoutMs: PDF_TIMEOUT_MS }),
    pdf: {
      text: (bytes) => {
        const m = moved(bytes);
        return pool.run('pdfText', { bytes: m.bytes }, { transfer: m.transfer, timeoutMs: PDF_TIMEOUT_MS });
      },
      render: async (bytes, options) => {
        const m = moved(bytes);
        return (await pool.run('renderPdf', { bytes: m.bytes, options }, { transfer: m.transfer, timeoutMs: PDF_TIMEOUT_MS })).map(toBuffer);
      },
    },
  };
}
