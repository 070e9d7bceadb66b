/**
 * Reports on the server (ADR 0018): export options, preview, and PDF and Excel reports read back as a person's
 * tools would (pdfjs text, exceljs cells): totals, grouping, scope, neutralised formulas, cell
 * types. The first pages of two sample PDFs are rendered to .artifacts/reports/ to look at.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import PDFDocument from 'pdfkit';
import sharp from 'sharp';
import { decodePrintCopy, encodePrintCopy, PRINT_COPY } from '@paperlink/domain';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pdfText, renderPdfPages } from '../../infra/src/ocr/pdf';
import { SqliteReadStore } from '../../infra/src/readstore/sqlite';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';
import { imageOf, labelledReader, labels } from '../support/labelled-reader';
import { REPO_ROOT } from '../support/process';

const ARTIFACTS = join(REPO_ROOT, '.artifacts', 'reports');
const HYPERLINK = '=HYPERLINK("http://evil.example","click")';
const UNICODE = 'Café Zürich – Łódź Αθήνα Москва';
const CSV = [
  'Transaction Date,Description,Amount,Category,Job Number,Cost Code,First Name,Last Name',
  '2026-01-05,Shell Fuel,-60.00,Fuel,J-100,01-200,Ada,Admin',
  `2026-01-20,${UNICODE},-12.50,Meals,J-100,01-300,Ada,Admin`,
  '2026-02-03,Office Depot,-200.00,Office,J-200,01-400,Ada,Admin',
  '2026-02-10,Office refund,25.00,Office,J-200,01-400,Ada,Admin',
  `2026-01-07,"${HYPERLINK.replace(/"/g, '""')}",-30.00,Meals,J-300,01-300,Bo,User`,
  '2026-02-14,+SUM(A1:A2),-45.25,Fuel,J-300,01-200,Bo,User',
  '2026-03-01,Bo Hardware,-99.99,,,,Bo,User',
].join('\n');
const ADA_ONLY = ['Shell Fuel', 'Office Depot', 'Office refund'];

let api: Api;
let ada: Account;
let bo: Account;
const tx = new Map<string, string>();
/** The uploaded files, by name (their blob keys are their SHA-256). */
const uploaded = new Map<string, Buffer>();

/** Collects a binary body. */
const binary = (response: unknown, done: (err: Error | null, body: Buffer) => void) => {
  const res = response as NodeJS.ReadableStream;
  const parts: Buffer[] = [];
  res.on('data', (c: Buffer) => parts.push(c));
  res.on('end', () => done(null, Buffer.concat(parts)));
};

async function download(who: Account, format: 'pdf' | 'excel', type: string, body: Record<string, unknown> = {}) {
  const res = await api.http.post(`/api/exports/${format}/${type}`).set(who.headers()).send(body).buffer(true).parse(binary);
  return res as typeof res & { body: Buffer };
}

/** A PDF of `pages` pages of text (a multi-page receipt). */
function pdfOf(pages: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const doc = new PDFDocument({ size: 'A5' });
    const parts: Buffer[] = [];
    doc.on('data', (c: Buffer) => parts.push(c));
    doc.on('end', () => resolve(Buffer.concat(parts)));
    for (let i = 1; i <= pages; i++) {
      if (i > 1) doc.addPage();
      doc.fontSize(20).text(`HARDWARE STORE invoice page ${i}`);
    }
    doc.end();
  });
}

async function upload(who: Account, bytes: Buffer, name: string): Promise<string> {
  uploaded.set(name, bytes);
  const res = await api.http.post('/api/receipts/upload').set(who.headers()).attach('receipt', bytes, name);
  if (res.status !== 201 && res.status !== 200) throw new Error(`upload ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.receipt.id as string;
}

async function link(who: Account, receiptId: string, description: string) {
  const res = await api.http.post('/api/matches').set(who.headers()).send({ receiptId, transactionId: tx.get(description) });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  api = await startApi({}, undefined, { reader: labelledReader() });
  ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin', companyName: 'Acme Ltd' });
  bo = await registerAccount(api, { firstName: 'Bo', lastName: 'User' });
  await invite(api, ada, bo, 'user');
  // Bo works in Ada's company (his own, made at registration, stays empty).
  const own = bo;
  bo = { ...own, headers: (companyId?: string) => own.headers(companyId ?? ada.companyId) };
  const imp = await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', Buffer.from(CSV), 'cards.csv');
  expect(imp.status, JSON.stringify(imp.body)).toBe(200);
  const list = await api.http.get('/api/transactions').query({ limit: 100 }).set(ada.headers());
  for (const t of list.body.transactions as Array<{ id: string; description: string }>) tx.set(t.description, t.id);
  expect(tx.size).toBe(7);
  await link(bo, await upload(bo, imageOf(labels[0]!.id), 'bo-receipt.jpg'), HYPERLINK);
  await link(bo, await upload(bo, await pdfOf(3), 'bo-invoice.pdf'), '+SUM(A1:A2)');
  await link(ada, await upload(ada, imageOf(labels[1]!.id), 'ada-receipt.jpg'), 'Shell Fuel');
});
afterAll(() => api?.close());

describe('export options and preview', () => {
  it('lists the report types with a date range option; analytics only for admins', async () => {
    const asAdmin = await api.http.get('/api/exports/options').set(ada.headers()).expect(200);
    expect(asAdmin.body.reportTypes.map((t: { id: string }) => t.id)).toEqual(['transactions', 'receipts', 'matches', 'analytics']);
    for (const t of asAdmin.body.reportTypes) expect(t).toMatchObject({ name: expect.any(String), description: expect.any(String), options: { dateRange: true } });
    const asUser = await api.http.get('/api/exports/options').set(bo.headers()).expect(200);
    expect(asUser.body.reportTypes.map((t: { id: string }) => t.id)).toEqual(['transactions', 'receipts', 'matches']);
  });

  it("previews a member's own records only, at most 10, with the period and a size", async () => {
    const res = await api.http.post('/api/exports/preview/transactions').set(bo.headers()).send({ limit: 10, preview: true, startDate: '2026-01-01', endDate: '2026-12-31' }).expect(200);
    expect(res.body.totalRecords).toBe(3);
    expect(res.body.dateRange).toMatchObject({ startDate: '2026-01-01', endDate: '2026-12-31' });
    expect(res.body.estimatedSize).toMatch(/^\d+(\.\d+)? (Bytes|KB|MB)$/);
    expect(res.body.records.map((r: { description: string }) => r.description).sort()).toEqual(['+SUM(A1:A2)', 'Bo Hardware', HYPERLINK].sort());
    const matchedOnly = await api.http.post('/api/exports/preview/transactions').set(bo.headers()).send({ includeUnmatched: false }).expect(200);
    expect(matchedOnly.body.totalRecords).toBe(2);
    expect(matchedOnly.body.records.map((r: { description: string }) => r.description).sort()).toEqual(['+SUM(A1:A2)', HYPERLINK].sort());
    const admin = await api.http.post('/api/exports/preview/transactions').set(ada.headers()).send({ limit: 2, includeMatched: false }).expect(200);
    expect(admin.body.totalRecords).toBe(4);
    expect(admin.body.records).toHaveLength(2);
  });

  it('answers bad settings with 400 and a message, and analytics for a member with the spec 403', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['transactions', { includeMatched: false, includeUnmatched: false }, /Please select at least one option: Matched or Unmatched/],
      ['transactions', { groupBy: 'colour' }, /groupBy is one of date, merchant, amount, status/],
      ['transactions', { maxPagesPerReceipt: 4 }, /maxPagesPerReceipt is all, 1, 2, 3 or 5/],
      ['transactions', { startDate: '2026-02-30' }, /not a date on the calendar/],
      ['transactions', { startDate: '2026-03-01', endDate: '2026-01-01' }, /startDate must be on or before endDate/],
      ['ledgers', {}, /Report type is one of/],
    ];
    for (const [type, body, message] of cases) {
      const res = await api.http.post(`/api/exports/pdf/${type}`).set(ada.headers()).send(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    expect((await api.http.post('/api/exports/preview/transactions').set(ada.headers()).send({ limit: 11 })).status).toBe(400);
    for (const path of ['/api/exports/pdf/analytics', '/api/exports/excel/analytics', '/api/exports/preview/analytics']) {
      const res = await api.http.post(path).set(bo.headers()).send({});
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('You do not have permission to export reports.');
    }
    expect((await api.http.post('/api/exports/pdf/transactions').send({})).status).toBe(401);
  });
});

describe('PDF reports', () => {
  it("admin: cover, summary totals, groups by month with subtotals, charts, receipts, page numbers, every name's letters", async () => {
    const res = await download(ada, 'pdf', 'transactions', { startDate: '2026-01-01', endDate: '2026-03-31', groupBy: 'date', includeCharts: true, includeAnalytics: true, title: 'Q1 expenses' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toContain('filename="Acme-Ltd_transactions_2026-01-01_to_2026-03-31.pdf"');
    const pages = await pdfText(res.body);
    const all = pages.join('\n');
    expect(pages[0]).toContain('Q1 expenses');
    expect(pages[0]).toContain('Acme Ltd');
    expect(pages[0]).toContain('Period: 2026-01-01 to 2026-03-31');
    expect(pages[0]).toContain('Generated by Ada Admin');
    // Expenses 60 + 12.50 + 200 + 30 + 45.25 + 99.99; a credit of 25.
    expect(all).toContain('$447.74');
    expect(all).toContain('$25.00');
    expect(all).toMatch(/Matched\s+3 \(\$135\.25 of expenses\)/);
    expect(all).toContain('By cost code');
    // includeAnalytics (an admin's option): the dashboard's figures of these transactions.
    expect(all).toMatch(/Unmatched expenses\s*\$312\.49/);
    expect(all).toMatch(/Missing job number\s*1 \(14\.3%\)/);
    expect(all).toContain('01-400');
    expect(all).toContain('Expenses by month');
    for (const month of ['January 2026', 'February 2026', 'March 2026']) expect(all).toContain(month);
    expect(all.indexOf('January 2026')).toBeLessThan(all.indexOf('February 2026'));
    // January: 60 + 12.50 + 30 = -102.50 in 3 records; February: -200 + 25 - 45.25.
    expect(all).toMatch(/Subtotal January 2026: 3 records\s*-\$102\.50/);
    expect(all).toMatch(/Subtotal February 2026: 3 records\s*-\$220\.25/);
    expect(all).toContain(UNICODE);
    expect(all).toContain('Receipt ada-receipt.jpg');
    expect(pages.at(-1)).toContain(`Page ${pages.length}`);
    const [png] = await renderPdfPages(res.body, { dpi: 72, maxPages: 1 });
    writeFileSync(join(ARTIFACTS, 'transactions-admin-page1.png'), png!);
    writeFileSync(join(ARTIFACTS, 'transactions-admin.pdf'), res.body);
  });

  it("a member's report holds only their rows; a PDF receipt shows the chosen number of pages", async () => {
    const res = await download(bo, 'pdf', 'transactions', { groupBy: 'merchant', maxPagesPerReceipt: 2, includeAnalytics: true });
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/_transactions_all-dates\.pdf"/);
    const all = (await pdfText(res.body)).join('\n');
    for (const d of ADA_ONLY) expect(all).not.toContain(d);
    expect(all).not.toContain('ada-receipt.jpg');
    expect(all).not.toContain('Unmatched expenses');
    expect(all).toContain('Bo Hardware');
    expect(all).toContain('$175.24');
    expect(all).toContain('Receipt bo-receipt.jpg');
    expect(all).toContain('Receipt bo-invoice.pdf, page 2 of 2');
    expect(all).not.toContain('page 3');
  });

  it('receipts report grouped by status with the OCR data', async () => {
    const res = await download(ada, 'pdf', 'receipts', { groupBy: 'status', includeOCRData: true, maxPagesPerReceipt: 1 });
    expect(res.status).toBe(200);
    const all = (await pdfText(res.body)).join('\n');
    expect(all).toContain('Subtotal Matched: 3 records');
    expect(all).toContain('OCR');
    const [png] = await renderPdfPages(res.body, { dpi: 72, maxPages: 4 }).then((p) => p.slice(-1));
    writeFileSync(join(ARTIFACTS, 'receipts-admin-last-page.png'), png!);
  });
});

describe('Excel reports', () => {
  async function book(buffer: Buffer) {
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(buffer as unknown as ArrayBuffer);
    return wb;
  }

  it('with the SQLite read store the rows are read by the report\'s worker, never on the request thread', async () => {
    // The request thread's store: every read an export makes is noted (the worker's own connection is another module instance).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 100;
    const read: string[] = [];
    const spies = (['page', 'mapPage', 'getMany', 'count', 'peek'] as const).map((method) => {
      const original = SqliteReadStore.prototype[method] as (this: SqliteReadStore, ...args: unknown[]) => unknown;
      return vi.spyOn(SqliteReadStore.prototype, method).mockImplementation(function (this: SqliteReadStore, ...args: unknown[]) {
        // Only what an export reads (the receipts' OCR and matching jobs run meanwhile, and read too).
        if (/query-api\/src\/exports\//.test(new Error().stack ?? '')) read.push(String(args[0]));
        return original.apply(this, args);
      } as never);
    });
    try {
      const xlsx = await download(ada, 'excel', 'analytics', {});
      expect(xlsx.status).toBe(200);
      const wb = await book(xlsx.body);
      const descriptions = wb.getWorksheet('Transactions')!.getSheetValues().map((r) => (Array.isArray(r) ? r[2] : undefined));
      for (const d of [...ADA_ONLY, 'Bo Hardware']) expect(descriptions).toContain(d);
      expect(wb.getWorksheet('Matches')!.rowCount).toBeGreaterThan(1);
      const pdf = await download(bo, 'pdf', 'transactions', { includeOCRData: true });
      expect(pdf.status).toBe(200);
      const text = (await pdfText(pdf.body)).join('\n');
      expect(text).toContain('Bo Hardware');
      for (const d of ADA_ONLY) expect(text).not.toContain(d);
    } finally {
      for (const s of spies) s.mockRestore();
      Error.stackTraceLimit = limit;
    }
    // The spies saw the export's own reads on the request thread (the company's name, who generated it).
    expect(read).toContain('users');
    expect(read.filter((name) => /^(transactions|receipts|matches)(__g\d+)?$/.test(name))).toEqual([]);
  });

  it("a member's workbook: typed cells, frozen header, filter, totals formula, neutralised text, own rows only", async () => {
    const res = await download(bo, 'excel', 'transactions', { startDate: '2026-01-01', endDate: '2026-03-31' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(res.headers['content-disposition']).toMatch(/_transactions_2026-01-01_to_2026-03-31\.xlsx"/);
    const wb = await book(res.body);
    expect(wb.worksheets.map((w) => w.name)).toEqual(['Summary', 'Transactions']);
    const ws = wb.getWorksheet('Transactions')!;
    expect(ws.getRow(1).values).toContain('Description');
    expect(ws.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(ws.autoFilter).toBeTruthy();
    expect(ws.getColumn(2).width).toBeGreaterThan(20);
    const rows = [2, 3, 4].map((n) => ws.getRow(n));
    const descriptions = rows.map((r) => r.getCell(2).value);
    for (const d of ADA_ONLY) expect(descriptions).not.toContain(d);
    // Neutralised: stored as text with a leading quote, never as a formula.
    const evil = rows.find((r) => String(r.getCell(2).value).includes('HYPERLINK'))!;
    expect(evil.getCell(2).type).toBe(ExcelJS.ValueType.String);
    expect(evil.getCell(2).value).toBe(`'${HYPERLINK}`);
    const plus = rows.find((r) => String(r.getCell(2).value).includes('SUM'))!;
    expect(plus.getCell(2).value).toBe("'+SUM(A1:A2)");
    for (const r of rows) {
      expect(r.getCell(1).type).toBe(ExcelJS.ValueType.Date);
      expect(r.getCell(3).type).toBe(ExcelJS.ValueType.Number);
      expect(r.getCell(3).numFmt).toContain('$');
    }
    expect(rows[0]!.getCell(1).value).toEqual(new Date('2026-01-07T00:00:00Z'));
    const total = ws.getRow(5);
    expect(total.getCell(1).value).toBe('Total');
    expect(total.getCell(3).type).toBe(ExcelJS.ValueType.Formula);
    expect(total.getCell(3).value).toMatchObject({ formula: 'SUBTOTAL(109,C2:C4)', result: -175.24 });
    const formulas = ws.getSheetValues().flat().filter((v) => v && typeof v === 'object' && 'formula' in (v as object));
    expect(formulas).toHaveLength(2);
  });

  it('the analytics workbook (admin) has all four sheets, receipt links, and the dashboard figures', async () => {
    const res = await download(ada, 'excel', 'analytics', {});
    expect(res.status).toBe(200);
    const wb = await book(res.body);
    expect(wb.worksheets.map((w) => w.name)).toEqual(['Summary', 'Transactions', 'Receipts', 'Matches']);
    const receipts = wb.getWorksheet('Receipts')!;
    const link = receipts.getRow(2).getCell(2);
    expect(link.type).toBe(ExcelJS.ValueType.Hyperlink);
    expect((link.value as { hyperlink: string }).hyperlink).toMatch(/\/receipts\?receipt=/);
    const summary = wb.getWorksheet('Summary')!;
    const figure = (name: string) => {
      let found: unknown;
      summary.eachRow((row) => {
        if (row.getCell(1).value === name) found = row.getCell(2).value;
      });
      return found;
    };
    const dash = await api.http.get('/api/analytics/dashboard').set(ada.headers()).expect(200);
    expect(figure('Total expenses')).toBe(dash.body.financial.totalExpenses);
    expect(figure('Matched expenses')).toBe(dash.body.financial.matchedExpenses);
    expect(figure('Match rate (%)')).toBe(dash.body.financial.matchRate);
    expect(figure('Total receipts')).toBe(dash.body.processing.totalReceipts);
    expect(figure('Confirmed matches')).toBe(dash.body.processing.confirmedMatches);
    expect(figure('Incomplete transactions')).toBe(dash.body.missingFields.incompleteTransactions);
    expect(figure('Total expenses')).toBe(447.74);
  });

  it("a member's matches workbook lists only matches of their own records", async () => {
    const res = await download(bo, 'excel', 'matches', {});
    const ws = (await book(res.body)).getWorksheet('Matches')!;
    const names: unknown[] = [];
    ws.eachRow((row, n) => {
      if (n > 1 && row.getCell(1).value !== 'Total') names.push(row.getCell(4).value);
    });
    expect(names.sort()).toEqual(['bo-invoice.pdf', 'bo-receipt.jpg']);
  });
});

describe('split transactions', () => {
  async function book(buffer: Buffer) {
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(buffer as unknown as ArrayBuffer);
    return wb;
  }
  /** The Summary sheet's breakdown under `title`: key → [count, amount]. */
  function breakdown(wb: ExcelJS.Workbook, title: string): Map<string, [unknown, unknown]> {
    const out = new Map<string, [unknown, unknown]>();
    let inside = false;
    wb.getWorksheet('Summary')!.eachRow((row) => {
      const first = row.getCell(1).value;
      if (first === title) inside = true;
      else if (inside && (first === null || first === undefined || first === '')) inside = false;
      else if (inside) out.set(String(first), [row.getCell(2).value, row.getCell(3).value]);
    });
    return out;
  }

  it('summaries by category, cost code and job number use the parts; details show them; a stale split counts nowhere', async () => {
    const ids = new Map<string, string>();
    for (const c of ['Fuel', 'Meals', 'Office']) ids.set(c, (await api.http.post('/api/masterdata/categories').set(ada.headers()).send({ name: c }).expect(201)).body.id);
    for (const j of ['J-100', 'J-200', 'J-300']) await api.http.post('/api/masterdata/job_numbers').set(ada.headers()).send({ name: j }).expect(201);
    for (const [cc, c] of [['01-200', 'Fuel'], ['01-300', 'Meals'], ['01-400', 'Office']] as const) await api.http.post('/api/masterdata/cost_codes').set(ada.headers()).send({ name: cc, category_id: ids.get(c) }).expect(201);
    // Office Depot (-200.00, Office / J-200 / 01-400): 150.00 stays in Office, 50.00 is fuel for job J-100.
    const parts = [
      { amount: -150, category: 'Office', job_number: 'J-200', cost_code: '01-400' },
      { amount: -50, category: 'Fuel', job_number: 'J-100', cost_code: '01-200', note: 'Generator fuel' },
    ];
    await api.http.post(`/api/ai/splitting/${tx.get('Office Depot')}`).set(ada.headers()).send({ parts }).expect(200);

    const pdf = await download(ada, 'pdf', 'transactions', { startDate: '2026-01-01', endDate: '2026-03-31', groupBy: 'date' });
    expect(pdf.status).toBe(200);
    const all = (await pdfText(pdf.body)).join('\n');
    // Summary: Fuel 60 + 45.25 + 50 (3 entries), Office -150 + 25; cost code 01-200 as Fuel; job J-100: 60 + 12.50 + 50, J-200: -150 + 25.
    expect(all).toMatch(/Fuel\s*3\s*-\$155\.25/);
    expect(all).toMatch(/Office\s*2\s*-\$125\.00/);
    expect(all).toMatch(/01-200\s*3\s*-\$155\.25/);
    expect(all).toMatch(/J-100\s*3\s*-\$122\.50/);
    expect(all).toMatch(/J-200\s*2\s*-\$125\.00/);
    // Details: the parts under the row, with their names and amounts; the row and the subtotal keep the whole amount.
    expect(all).toMatch(/Split 1 of 2\s*Office\s*01-400\s*J-200\s*-\$150\.00/);
    expect(all).toMatch(/Split 2 of 2: Generator fuel\s*Fuel\s*01-200\s*J-100\s*-\$50\.00/);
    expect(all).toMatch(/Subtotal February 2026: 3 records\s*-\$220\.25/);

    const xlsx = await download(ada, 'excel', 'transactions', { startDate: '2026-01-01', endDate: '2026-03-31' });
    expect(xlsx.status).toBe(200);
    let wb = await book(xlsx.body);
    expect(breakdown(wb, 'By category').get('Fuel')).toEqual([3, -155.25]);
    expect(breakdown(wb, 'By category').get('Office')).toEqual([2, -125]);
    expect(breakdown(wb, 'By cost code').get('01-400')).toEqual([2, -125]);
    expect(breakdown(wb, 'By job number').get('J-100')).toEqual([3, -122.5]);
    const ws = wb.getWorksheet('Transactions')!;
    const header = ws.getRow(1).values as unknown[];
    const splitCol = header.indexOf('Split');
    expect(splitCol).toBeGreaterThan(0);
    const rowOf = (sheet: ExcelJS.Worksheet, description: string) => {
      let found: ExcelJS.Row | undefined;
      sheet.eachRow((r) => {
        if (r.getCell(2).value === description) found = r;
      });
      return found!;
    };
    const depot = rowOf(ws, 'Office Depot');
    expect(depot.getCell(3).value).toBe(-200);
    expect(depot.getCell(splitCol).value).toBe('Office / J-200 / 01-400: -$150.00; Fuel / J-100 / 01-200: -$50.00 (Generator fuel)');
    expect(rowOf(ws, 'Shell Fuel').getCell(splitCol).value ?? null).toBeNull();

    // The amount edited after the split: the split is stale, the summaries go back to the row's own fields.
    const edit = await api.http.put(`/api/transactions/${tx.get('Office Depot')}`).set(ada.headers()).send({ description: 'Office Depot', category: 'Office', job_number: 'J-200', cost_code: '01-400', amount: -210 });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    wb = await book((await download(ada, 'excel', 'transactions', { startDate: '2026-01-01', endDate: '2026-03-31' })).body);
    expect(breakdown(wb, 'By category').get('Fuel')).toEqual([2, -105.25]);
    expect(breakdown(wb, 'By category').get('Office')).toEqual([2, -185]);
    expect(String(rowOf(wb.getWorksheet('Transactions')!, 'Office Depot').getCell(splitCol).value)).toMatch(/^Stale, saved for -\$200\.00: Office/);
  });
});

describe("receipts' print copies (ADR 0018)", () => {
  /** Where the local blob store keeps a file's print copy: beside the file. */
  const copyPath = (name: string) => {
    const key = createHash('sha256').update(uploaded.get(name)!).digest('hex');
    return join(api.dataDir, 'files', key.slice(0, 2), key.slice(2, 4), `${key}.${PRINT_COPY}`);
  };
  const until = async (what: string, ok: () => boolean, ms = 20_000) => {
    const end = Date.now() + ms;
    while (!ok()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  /** An embedded image of exactly these pixels in the PDF (pdfkit writes image dictionaries as plain text). */
  const hasImage = (pdf: Buffer, width: number, height: number) => new RegExp(`/Width ${width}\\s[^>]*/Height ${height}\\s|/Height ${height}\\s[^>]*/Width ${width}\\s`).test(pdf.toString('latin1'));

  it('reading a receipt makes its print copy; a report embeds the stored copy, not the file', async () => {
    for (const name of ['bo-receipt.jpg', 'bo-invoice.pdf', 'ada-receipt.jpg']) await until(`the print copy of ${name}`, () => existsSync(copyPath(name)));
    // The 3-page PDF: every page rendered once (the report above showed 2 of them from it).
    const invoice = decodePrintCopy(readFileSync(copyPath('bo-invoice.pdf')))!;
    expect(invoice).toMatchObject({ asIs: false, complete: true });
    expect(invoice.pages).toHaveLength(3);
    expect(decodePrintCopy(readFileSync(copyPath('ada-receipt.jpg')))).not.toBeNull();
    // Ada's copy replaced by a 123 x 77 page: the report shows that page, so it read the copy.
    const marker = await sharp({ create: { width: 123, height: 77, channels: 3, background: '#cc0000' } }).jpeg().toBuffer();
    writeFileSync(copyPath('ada-receipt.jpg'), encodePrintCopy({ asIs: false, complete: true, pages: [marker] }));
    const res = await download(ada, 'pdf', 'transactions', { startDate: '2026-01-01', endDate: '2026-01-31' });
    expect(res.status).toBe(200);
    expect((await pdfText(res.body)).join('\n')).toContain('Receipt ada-receipt.jpg');
    expect(hasImage(res.body, 123, 77)).toBe(true);
  });

  it('a receipt without a copy (stored before copies existed) still renders, and the report keeps the copy it made', async () => {
    rmSync(copyPath('bo-receipt.jpg'));
    rmSync(copyPath('bo-invoice.pdf'));
    const res = await download(bo, 'pdf', 'transactions', { maxPagesPerReceipt: 2 });
    expect(res.status).toBe(200);
    const all = (await pdfText(res.body)).join('\n');
    expect(all).toContain('Receipt bo-receipt.jpg');
    expect(all).toContain('Receipt bo-invoice.pdf, page 2 of 2');
    expect(all).not.toMatch(/could not be read|file not found/);
    await until('the copies the report made', () => existsSync(copyPath('bo-receipt.jpg')) && existsSync(copyPath('bo-invoice.pdf')));
    // Made for 2 pages of 3: kept, marked as not every page (a report of all pages renders them again).
    const invoice = decodePrintCopy(readFileSync(copyPath('bo-invoice.pdf')))!;
    expect(invoice).toMatchObject({ asIs: false, complete: false });
    expect(invoice.pages).toHaveLength(2);
    const all3 = (await pdfText((await download(bo, 'pdf', 'transactions', { maxPagesPerReceipt: 'all' })).body)).join('\n');
    expect(all3).toContain('Receipt bo-invoice.pdf, page 3 of 3');
  });
});
