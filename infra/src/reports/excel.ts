/**
 * The Excel report (exceljs streaming WorkbookWriter): a Summary sheet, then one sheet per row
 * type the report holds (Transactions, Receipts, Matches), each with typed cells (dates as
 * dates, money as numbers in a dollar format), a frozen header, an auto-filter, column widths
 * and a totals row of formulas. Every text cell that could read as a formula is neutralised.
 * Receipts are links, not images. Rows are committed as they arrive.
 */
import ExcelJS from 'exceljs';
import { neutralise, type ReportMeta, type ReportRow, type ReportSummary } from '@paperlink/domain';
import { dollars, money } from './format';
import type { RenderInput } from './format';

const MONEY = '"$"#,##0.00;[Red]-"$"#,##0.00';
const DATE = 'yyyy-mm-dd';
const BOLD = { bold: true };
/** The header row stays in view (the streaming writer takes views when the sheet is added). */
const FROZEN_HEADER: Partial<ExcelJS.AddWorksheetOptions> = { views: [{ state: 'frozen', ySplit: 1 }] };

type Sheet = ExcelJS.Worksheet;
type Value = ExcelJS.CellValue;

/** A date cell value (UTC midnight) from YYYY-MM-DD, or null. */
const day = (d: string | null): Date | null => {
  if (!d) return null;
  const t = Date.parse(`${d.slice(0, 10)}T00:00:00Z`);
  return Number.isFinite(t) ? new Date(t) : null;
};
const text = (s: string | null | undefined): string | null => (s === null || s === undefined ? null : neutralise(s));
const cents = (c: number | null): number | null => (c === null ? null : dollars(c));

interface SheetSpec<R> {
  name: string;
  columns: Array<{ header: string; key: string; width: number; numFmt?: string; total?: boolean }>;
  values: (row: R) => Value[];
}

const TRANSACTIONS: SheetSpec<Extract<ReportRow, { type: 'transaction' }>> = {
  name: 'Transactions',
  columns: [
    { header: 'Date', key: 'date', width: 12, numFmt: DATE },
    { header: 'Description', key: 'description', width: 42 },
    { header: 'Amount', key: 'amount', width: 14, numFmt: MONEY, total: true },
    { header: 'Sales tax', key: 'tax', width: 12, numFmt: MONEY, total: true },
    { header: 'Category', key: 'category', width: 22 },
    { header: 'Cost code', key: 'costCode', width: 14 },
    { header: 'Job number', key: 'jobNumber', width: 14 },
    { header: 'Status', key: 'status', width: 11 },
    { header: 'Receipts', key: 'receipts', width: 30 },
    { header: 'Created by', key: 'owner', width: 20 },
    { header: 'Id', key: 'id', width: 38 },
    { header: 'Split', key: 'split', width: 60 },
  ],
  values: (r) => [day(r.date), text(r.description), cents(r.amountCents), cents(r.salesTaxCents), text(r.category), text(r.costCode), text(r.jobNumber), r.receipts.length > 0 ? 'Matched' : 'Unmatched', text(r.receipts.join(', ')), text(r.owner), r.id, text(splitText(r))],
};

/**
 * A split transaction's parts in one cell (the row keeps its own amount, so totals and filters
 * stay right): "category / job number / cost code: amount" per part, separated by "; ". A stale
 * split (the amount changed after it was saved; counted nowhere, ADR 0014) says so first.
 */
export function splitText(r: Extract<ReportRow, { type: 'transaction' }>): string | null {
  if (!r.split || r.split.parts.length === 0) return null;
  const parts = r.split.parts.map((p) => `${p.category} / ${p.jobNumber} / ${p.costCode}: ${money(p.amountCents)}${p.note ? ` (${p.note})` : ''}`).join('; ');
  return r.split.totalCents === r.amountCents ? parts : `Stale, saved for ${money(r.split.totalCents)}: ${parts}`;
}

const receiptSpec = (meta: ReportMeta): SheetSpec<Extract<ReportRow, { type: 'receipt' }>> => ({
  name: 'Receipts',
  columns: [
    { header: 'Date', key: 'date', width: 12, numFmt: DATE },
    { header: 'File', key: 'file', width: 34 },
    { header: 'Merchant', key: 'merchant', width: 28 },
    { header: 'Description', key: 'description', width: 30 },
    { header: 'Amount', key: 'amount', width: 14, numFmt: MONEY, total: true },
    { header: 'Tax', key: 'tax', width: 12, numFmt: MONEY, total: true },
    { header: 'Processing', key: 'processing', width: 12 },
    { header: 'Status', key: 'status', width: 11 },
    { header: 'Uploaded', key: 'uploaded', width: 12, numFmt: DATE },
    { header: 'Uploaded by', key: 'owner', width: 20 },
    ...(meta.settings.includeOCRData ? [{ header: 'OCR source', key: 'ocrSource', width: 11 }, { header: 'OCR confidence', key: 'ocrConfidence', width: 14, numFmt: '0.0' }] : []),
  ],
  values: (r) => [
    day(r.date),
    { text: neutralise(r.filename), hyperlink: r.link },
    text(r.merchant),
    text(r.description),
    cents(r.amountCents),
    cents(r.taxCents),
    r.status,
    r.matched ? 'Matched' : 'Unmatched',
    day(r.uploadDate),
    text(r.owner),
    ...(meta.settings.includeOCRData ? [r.ocrSource, r.ocrConfidence] : []),
  ],
});

const MATCHES: SheetSpec<Extract<ReportRow, { type: 'match' }>> = {
  name: 'Matches',
  columns: [
    { header: 'Transaction date', key: 'txDate', width: 14, numFmt: DATE },
    { header: 'Transaction', key: 'description', width: 40 },
    { header: 'Transaction amount', key: 'txAmount', width: 16, numFmt: MONEY, total: true },
    { header: 'Receipt', key: 'receipt', width: 30 },
    { header: 'Merchant', key: 'merchant', width: 26 },
    { header: 'Receipt date', key: 'rDate', width: 13, numFmt: DATE },
    { header: 'Receipt total', key: 'rAmount', width: 14, numFmt: MONEY, total: true },
    { header: 'Confidence', key: 'confidence', width: 11, numFmt: '0' },
    { header: 'Status', key: 'status', width: 11 },
    { header: 'Owner', key: 'owner', width: 20 },
  ],
  values: (r) => [day(r.transactionDate), text(r.description), cents(r.transactionAmountCents), text(r.receiptFilename), text(r.merchant), day(r.receiptDate), cents(r.receiptAmountCents), r.confidence, r.status === 'confirmed' ? 'Confirmed' : 'Pending', text(r.owner)],
};

const colName = (n: number): string => {
  let s = '';
  for (let i = n; i > 0; i = Math.floor((i - 1) / 26)) s = String.fromCharCode(65 + ((i - 1) % 26)) + s;
  return s;
};

/** Uncompressed sheet XML the writer may run ahead of the zip's deflate. */
const PENDING_XML = 1024 * 1024;

/**
 * Bytes of a streamed sheet's XML not yet taken by the zip: the sheet stream's own buffers (an
 * exceljs StreamBuf) and the pass-through archiver reads it from (its `pipes`). 0 when exceljs's
 * internals are not what this expects (back-pressure is then lost, not correctness).
 */
function pendingXml(ws: Sheet): number {
  type State = { length?: number } | undefined;
  const stream = (ws as unknown as { stream?: { buffers?: unknown[]; pipes?: Array<{ _writableState?: State; _readableState?: State }> } }).stream;
  if (!stream) return 0;
  let n = Array.isArray(stream.buffers) ? Math.max(0, stream.buffers.length - 1) * 65536 : 0;
  // archiver's readable-stream PassThrough (no writableLength getter in its version): its two buffers.
  for (const p of stream.pipes ?? []) n += (p._writableState?.length ?? 0) + (p._readableState?.length ?? 0);
  return n;
}

/** An open data sheet: rows are added and committed one by one; `close` writes the totals row. */
class DataSheet<R> {
  private count = 0;
  private readonly totals: number[];
  /**
   * One style object per column, given to every cell of it: exceljs caches a style's id by the
   * object, so a shared object is looked up once instead of serialised for every cell.
   */
  private readonly styles: Array<Partial<ExcelJS.Style>>;
  constructor(private readonly ws: Sheet, private readonly spec: SheetSpec<R>) {
    ws.columns = spec.columns.map((c) => ({ header: c.header, key: c.key, width: c.width }));
    this.styles = spec.columns.map((c) => (c.numFmt ? { numFmt: c.numFmt } : {}));
    const header = ws.getRow(1);
    header.font = BOLD;
    header.commit();
    this.totals = spec.columns.map(() => 0);
  }
  add(row: R): void {
    const values = this.spec.values(row) as Array<Value | undefined>;
    // An empty value makes no cell at all (exceljs skips undefined): a null or '' cell cost as
    // much to build, style and render as a full one, and most rows leave several empty.
    for (let i = 0; i < values.length; i++) if (values[i] === null || values[i] === '') values[i] = undefined;
    const r = this.ws.addRow(values);
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v === undefined) continue;
      r.getCell(i + 1).style = this.styles[i]!;
      if (typeof v === 'number' && this.spec.columns[i]!.total) this.totals[i]! += Math.round(v * 100);
    }
    r.commit();
    this.count++;
  }
  /**
   * Waits while the zip has not yet compressed this sheet's XML. exceljs hands each committed
   * row's XML to the archive's input stream without back-pressure, so a writer faster than
   * deflate piles up uncompressed XML (about 45 MB for 100,000 rows when the machine is busy).
   */
  async settle(): Promise<void> {
    let last = Infinity;
    let since = performance.now();
    for (let pending = pendingXml(this.ws); pending > PENDING_XML; pending = pendingXml(this.ws)) {
      if (pending < last) {
        last = pending;
        since = performance.now();
      } else if (performance.now() - since > 30_000) {
        throw new Error('the workbook stopped compressing');
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
  close(): void {
    const last = this.count + 1;
    const n = this.spec.columns.length;
    this.ws.autoFilter = { from: { row: 1, column: 1 }, to: { row: last, column: n } };
    const values: Value[] = this.spec.columns.map((c, i) => {
      if (i === 0) return 'Total';
      if (!c.total) return null;
      const col = colName(i + 1);
      // SUBTOTAL(109, …) sums the rows the filter shows; the cached result is the full sum.
      return { formula: `SUBTOTAL(109,${col}2:${col}${last})`, result: dollars(this.totals[i]!) };
    });
    const r = this.ws.addRow(values);
    values.forEach((_v, i) => (r.getCell(i + 1).style = { ...this.styles[i], font: BOLD }));
    r.commit();
    this.ws.commit();
  }
}

export type ExcelInput = RenderInput;

function writeSummarySheet(wb: ExcelJS.stream.xlsx.WorkbookWriter, meta: ReportMeta, s: ReportSummary | null, admin: boolean): void {
  const ws = wb.addWorksheet('Summary');
  ws.columns = [{ width: 34 }, { width: 18 }, { width: 18 }, { width: 12 }];
  const add = (values: Value[], bold = false, fmt?: Array<string | undefined>) => {
    const r = ws.addRow(values);
    if (bold) r.font = BOLD;
    fmt?.forEach((f, i) => {
      if (f) r.getCell(i + 1).numFmt = f;
    });
    r.commit();
  };
  add([text(meta.title)], true);
  add(['Company', text(meta.company)]);
  add(['Period', meta.period]);
  add(['Generated by', text(meta.generatedBy)]);
  add(['Generated at', new Date(meta.generatedAt)], false, [undefined, 'yyyy-mm-dd hh:mm']);
  add(['Report', meta.type]);
  add([]);
  if (!s) {
    ws.commit();
    return;
  }
  const t = s.transactions;
  if (meta.type === 'transactions' || meta.type === 'analytics') {
    add(['Transactions', 'Count', 'Amount'], true);
    add(['All', t.count, dollars(t.netCents)], false, [undefined, undefined, MONEY]);
    add(['Expenses', null, dollars(t.expenseCents)], false, [undefined, undefined, MONEY]);
    add(['Credits', null, dollars(t.creditCents)], false, [undefined, undefined, MONEY]);
    add(['Sales tax', null, dollars(t.salesTaxCents)], false, [undefined, undefined, MONEY]);
    add(['Matched', t.matched.count, dollars(t.matched.netCents)], false, [undefined, undefined, MONEY]);
    add(['Unmatched', t.unmatched.count, dollars(t.unmatched.netCents)], false, [undefined, undefined, MONEY]);
    add(['Match rate by expenses (%)', s.dashboard.financial.matchRate]);
    add(['Incomplete transactions', t.incomplete]);
    for (const [title, list] of [['By category', t.byCategory], ['By cost code', t.byCostCode], ['By job number', t.byJobNumber]] as const) {
      add([]);
      add([title, 'Count', 'Amount'], true);
      for (const b of list) add([text(b.key), b.count, dollars(b.totalCents)], false, [undefined, undefined, MONEY]);
    }
    add([]);
  }
  if (meta.type === 'receipts' || meta.type === 'analytics') {
    add(['Receipts', 'Count', 'Amount'], true);
    add(['All', s.receipts.count, dollars(s.receipts.totalCents)], false, [undefined, undefined, MONEY]);
    add(['Processed', s.receipts.processed]);
    add(['Matched', s.receipts.matched]);
    add(['Unmatched', s.receipts.count - s.receipts.matched]);
    add([]);
  }
  if (meta.type === 'matches' || meta.type === 'analytics') {
    add(['Matches', 'Count'], true);
    add(['All', s.matches.count]);
    add(['Confirmed', s.matches.confirmed]);
    add(['Pending', s.matches.pending]);
    add(['Average confidence (%)', s.matches.averageConfidence]);
    add([]);
  }
  if (meta.type === 'analytics' || (admin && meta.settings.includeAnalytics && meta.type === 'transactions')) {
    const d = s.dashboard;
    add(['Dashboard figures', 'Value'], true);
    for (const [k, v, f] of [
      ['Total expenses', d.financial.totalExpenses, MONEY], ['Matched expenses', d.financial.matchedExpenses, MONEY], ['Unmatched expenses', d.financial.unmatchedExpenses, MONEY],
      ['Match rate (%)', d.financial.matchRate], ['Processing rate (%)', d.processing.processingRate], ['Receipt match rate (%)', d.processing.matchRate],
      ['Average receipt', d.processing.avgAmount, MONEY], ['Total receipts', d.processing.totalReceipts], ['Processed receipts', d.processing.processedReceipts],
      ['Matched receipts', d.processing.matchedReceipts], ['Confirmed matches', d.processing.confirmedMatches], ['Receipts this week', d.processing.receiptsThisWeek],
      ['Incomplete transactions', d.missingFields.incompleteTransactions], ['Completion rate (%)', d.missingFields.completionRate],
    ] as Array<[string, number, string?]>) {
      // A transactions report holds no receipts or matches: only the figures of its transactions.
      if (meta.type === 'analytics' || ['Total expenses', 'Matched expenses', 'Unmatched expenses', 'Match rate (%)', 'Incomplete transactions', 'Completion rate (%)'].includes(k)) add([k, v], false, [undefined, f]);
    }
  }
  ws.commit();
}

export async function writeExcel({ meta, admin, summary, rows, out, drained }: ExcelInput): Promise<void> {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  wb.creator = 'Paperlink';
  wb.created = new Date(meta.generatedAt);
  if (meta.settings.includeSummary || meta.type === 'analytics' || !meta.settings.includeDetails) writeSummarySheet(wb, meta, summary, admin);
  if (meta.settings.includeDetails) {
    type Open = { type: ReportRow['type']; sheet: DataSheet<never> };
    let open = null as Open | null;
    const specOf = (type: ReportRow['type']) => (type === 'transaction' ? TRANSACTIONS : type === 'receipt' ? receiptSpec(meta) : MATCHES) as SheetSpec<never>;
    const opened = new Set<string>();
    for await (const page of rows) {
      for (const row of page) {
        if (open?.type !== row.type) {
          open?.sheet.close();
          const spec = specOf(row.type);
          opened.add(row.type);
          open = { type: row.type, sheet: new DataSheet(wb.addWorksheet(spec.name, FROZEN_HEADER), spec) };
        }
        open.sheet.add(row as never);
      }
      await open?.sheet.settle();
      await drained();
    }
    open?.sheet.close();
    // A report's own sheet is there even when no row fell in the period.
    for (const type of expectedTypes(meta)) if (!opened.has(type)) new DataSheet(wb.addWorksheet(specOf(type).name, FROZEN_HEADER), specOf(type)).close();
  }
  await wb.commit();
}

/** The row types (sheets) a report holds: its own; the analytics report all three. */
export function expectedTypes(meta: ReportMeta): Array<ReportRow['type']> {
  return meta.type === 'transactions' ? ['transaction'] : meta.type === 'receipts' ? ['receipt'] : meta.type === 'matches' ? ['match'] : ['transaction', 'receipt', 'match'];
}
