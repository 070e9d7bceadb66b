/**
 * The CPU-heavy steps a pool worker runs. Each takes and returns structured-cloneable values;
 * the pool's `run` is typed from this table.
 */
import { autoMatch, extractReceiptFields, linesToReread, parseBankStatement, parseMasterDataCsv } from '@paperlink/domain';
import type { ExtractOptions, OcrBox, OcrWord, ReceiptFields, RereadLine, AutoMatchOptions, MatchProposal, ReceiptInput, TransactionInput, MasterDataKind, MasterDataParseResult, StatementParseOptions, StatementParseResult } from '@paperlink/domain';
import { pdfText, renderPdfPages } from '../ocr/pdf';
import type { RenderOptions } from '../ocr/pdf';
import type { LineReading } from '../ocr/line-reread';
import { checkPdfHasContent } from '../receipts/pdf-check';
import { checkPdfWeight } from '../receipts/pdf-budget';
import { printCopy, thumbnail } from '../receipts/thumbnail';
import { AI_LEARNING_TASKS } from '../ai/learning-tasks';
import { parseICalendar } from '../calendar/ical';
import { calendarInsights, rankCandidates } from '@paperlink/domain';
import type { CalendarEventRef, CalendarInsights, ParsedCalendar, RankedCandidate, RankTarget, SpendLine } from '@paperlink/domain';
import type { RenderInput } from '../reports/task';
import type { AnalyticsSheetRow } from '@paperlink/query-api';
import type { ChainReport } from '../eventstore/chain';
import type { BundleManifest, ExportInput } from '../audit/bundle';

/** A Buffer moved into a worker arrives as a plain Uint8Array; the PDF and image code wants Buffers. */
const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
/** A result buffer of its own (not a slice of a pooled one), so it can be moved, not copied. */
const own = (bytes: Uint8Array): Uint8Array => (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes));

export const TASKS = {
  statement: ({ bytes, options }: { bytes: Uint8Array; options: StatementParseOptions }): StatementParseResult => parseBankStatement(bytes, options),
  masterData: ({ bytes, kind }: { bytes: Uint8Array; kind: MasterDataKind }): MasterDataParseResult => parseMasterDataCsv(bytes, kind),
  checkPdf: async ({ bytes }: { bytes: Uint8Array }): Promise<null> => {
    await checkPdfHasContent(bytes);
    return null;
  },
  /** OCR's steps weigh the file first, as the upload does: files stored before that check are read too. */
  pdfText: ({ bytes }: { bytes: Uint8Array }): Promise<string[]> => {
    checkPdfWeight(bytes);
    return pdfText(bytes);
  },
  renderPdf: async ({ bytes, options }: { bytes: Uint8Array; options: RenderOptions }): Promise<Uint8Array[]> => {
    checkPdfWeight(bytes);
    return (await renderPdfPages(bytes, options)).map(own);
  },
  thumbnail: async ({ bytes, kind }: { bytes: Uint8Array; kind: 'jpeg' | 'png' | 'pdf' }): Promise<Uint8Array> => own(await thumbnail(asBuffer(bytes), kind)),
  /** A receipt's print copy for PDF reports (ADR 0018), made once when the receipt is read. */
  printCopy: async ({ bytes }: { bytes: Uint8Array }): Promise<Uint8Array> => own(await printCopy(asBuffer(bytes))),
  autoMatch: ({ receipts, transactions, options }: { receipts: ReceiptInput[]; transactions: TransactionInput[]; options: AutoMatchOptions }): MatchProposal[] =>
    autoMatch(receipts, transactions, options),
  receiptFields: ({ text, words, options }: { text: string; words?: OcrWord[]; options?: ExtractOptions }): ReceiptFields => extractReceiptFields(text, words, options),
  /** The doubtful fields' candidate lines to OCR again one by one (ocr/read-receipt.ts). */
  receiptRereadLines: ({ text, words, fields, options }: { text: string; words: OcrWord[]; fields: ReceiptFields; options?: ExtractOptions }): RereadLine[] => linesToReread(text, words, fields, options),
  /**
   * The total's and date's candidate lines read by PaddleOCR's recogniser (ocr/paddle-line-host.ts),
   * the second line reader of ocr/read-receipt.ts; the model is loaded once per worker, on first use.
   */
  paddleLines: async ({ page, size, boxes, spacing }: { page: Uint8Array; size: { width: number; height: number }; boxes: OcrBox[]; spacing?: OcrBox[][] }): Promise<LineReading[]> =>
    (await import('../ocr/paddle-line-host')).readPaddleLines(page, size, boxes, spacing),
  /** An iCalendar upload (up to 5 MB, recurring rules expanded): the AI calendar. */
  calendar: ({ bytes, now }: { bytes: Uint8Array; now: string }): ParsedCalendar => parseICalendar(bytes, { now }),
  calendarInsights: ({ events, lines }: { events: CalendarEventRef[]; lines: SpendLine[] }): CalendarInsights => calendarInsights(events, lines),
  rankCandidates: ({ target, others, limit }: { target: RankTarget; others: Array<ReceiptInput | TransactionInput>; limit: number }): RankedCandidate[] => rankCandidates(target, others, limit),
  /** Audit (ADR 0010): the hash chain's walk and a company's signed bundle, on a read connection of their own. */
  auditVerify: async ({ file }: { file: string }): Promise<ChainReport> => (await import('../audit/tasks')).verifyChainParallel(file),
  auditExport: async (input: ExportInput): Promise<BundleManifest> => (await import('../audit/bundle')).writeBundle(input),
  /** A PDF or Excel report, rows in and bytes out over its own port (infra/src/reports/run.ts). */
  report: async (input: RenderInput): Promise<null> => (await import('../reports/task')).renderReportTask(input),
  /** GET /analytics/export?format=xlsx: the figures' workbook. */
  analyticsXlsx: async ({ rows }: { rows: AnalyticsSheetRow[] }): Promise<Uint8Array> => own(await (await import('../reports/analytics-xlsx')).analyticsWorkbook(rows)),
  ...AI_LEARNING_TASKS,
  /** For the pool's own tests: burns CPU for `ms`, or fails. */
  spin: ({ ms, fail }: { ms: number; fail?: { status: number; code: string; message: string } }): { spun: number; items: number[] } => {
    const until = performance.now() + ms;
    while (performance.now() < until) { /* busy */ }
    if (fail) throw Object.assign(new Error(fail.message), { status: fail.status, code: fail.code, name: 'AppError' });
    return { spun: ms, items: Array.from({ length: 10_000 }, (_, i) => i) };
  },
  /**
   * For the pool's own tests: whether this worker was started with pdfjs loaded (entry.mjs), and
   * whether the pdfjs that pdf.ts imports is that same module (a cache hit, not a second load).
   */
  pdfjsProbe: async (): Promise<{ preloaded: boolean; same: boolean }> => {
    const preloaded = (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker !== undefined;
    if (!preloaded) return { preloaded, same: false };
    const workerModule: string = 'pdfjs-dist/legacy/build/pdf.worker.mjs'; // untyped: compared, not used
    const [page, worker] = await Promise.all([import('pdfjs-dist/legacy/build/pdf.mjs'), import(workerModule) as Promise<unknown>]);
    return { preloaded, same: worker === (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker && typeof page.getDocument === 'function' };
  },
};

export type TaskName = keyof typeof TASKS;
export type TaskInput<K extends TaskName> = Parameters<(typeof TASKS)[K]>[0];
export type TaskOutput<K extends TaskName> = Awaited<ReturnType<(typeof TASKS)[K]>>;
