import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import ExcelJS from 'exceljs';
import { pdfText, renderPdfPages } from '../../infra/src/ocr/pdf';
import { startServerProcess, type ServerProcess } from '../support/process';
import { browserSuite, launch, SCREENSHOTS, shot } from '../e2e-support/browser';

const NAME = 'exports in Debian chromium: report types, admin preview, PDF and Excel downloads that open, user scope';

interface Person {
  firstName: string;
  lastName: string;
  email: string;
  password: string;
  companyName: string;
  token?: string;
  companyId?: string;
}

/** Reports in the browser: preview, then a PDF and an Excel report, as admin and as user. */
browserSuite(NAME, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-e2e-ex-'));
  const stamp = Date.now();
  const ada: Person = { firstName: 'Ada', lastName: 'Admin', email: `ada-ex-${stamp}@example.com`, password: 'Passw0rdOK', companyName: 'Ledger Works' };
  const uma: Person = { firstName: 'Uma', lastName: 'User', email: `uma-ex-${stamp}@example.com`, password: 'Passw0rdOK', companyName: 'Uma Solo' };
  const ADMIN_ROWS = ['Admin Fuel Station', 'Admin Office Depot', '=1+2 Admin Formula'];
  const USER_ROWS = ['User Taxi Ride', 'User Lunch Cafe'];
  let server: ServerProcess;
  let browser: Browser;
  const violations: string[] = [];

  const call = async (path: string, init: RequestInit & { who?: Person } = {}) => {
    const headers = new Headers(init.headers);
    if (init.who?.token) headers.set('authorization', `Bearer ${init.who.token}`);
    if (ada.companyId) headers.set('x-company-id', ada.companyId);
    const res = await fetch(`${server.url}/api${path}`, { ...init, headers });
    if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  const register = async (p: Person) => {
    const res = await fetch(`${server.url}/api/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ firstName: p.firstName, lastName: p.lastName, email: p.email, password: p.password, companyName: p.companyName }) });
    const body = (await res.json()) as { accessToken: string; company: { id: string } };
    if (res.status !== 201) throw new Error(`register ${p.email}: ${res.status} ${JSON.stringify(body)}`);
    p.token = body.accessToken;
    p.companyId = body.company.id;
  };
  const importRows = async (who: Person, rows: Array<[string, string, string]>) => {
    const csv = ['Transaction Date,Description,Amount', ...rows.map(([d, text, a]) => `${d},"${text.replace(/"/g, '""')}",${a}`)].join('\n');
    const form = new FormData();
    form.append('csvFile', new Blob([csv], { type: 'text/csv' }), `${who.firstName}.csv`);
    const result = await call('/transactions/import', { method: 'POST', body: form, who });
    expect(result.imported).toBe(rows.length);
  };

  beforeAll(async () => {
    server = await startServerProcess({ DATA_DIR: dir });
    await register(ada);
    await register(uma);
    await call('/companies/current/invite', { method: 'POST', who: ada, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: uma.email, role: 'user' }) });
    await importRows(ada, [['2024-03-01', ADMIN_ROWS[0]!, '-80.00'], ['2024-03-05', ADMIN_ROWS[1]!, '-45.50'], ['2024-03-09', ADMIN_ROWS[2]!, '-10.00']]);
    await importRows(uma, [['2024-03-02', USER_ROWS[0]!, '-23.40'], ['2024-03-07', USER_ROWS[1]!, '-12.00']]);
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Signs in through the screen, in Ada's company (the stored company is the one chosen). */
  async function signIn(who: Person): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, acceptDownloads: true });
    await context.addInitScript({ content: "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));" });
    const page = await context.newPage();
    page.on('console', (m) => {
      if (/Content Security Policy|CSP violation|Refused to/i.test(m.text())) violations.push(m.text());
    });
    page.on('pageerror', (e) => violations.push(`page error: ${e.message}`));
    await page.goto(`${server.url}/auth`);
    const company = JSON.stringify(ada.companyId);
    await page.evaluate(`localStorage.setItem('currentCompanyId', ${company}); localStorage.setItem('companyId', ${company});`);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL('**/dashboard');
    await page.goto(`${server.url}/exports`);
    await page.getByRole('radiogroup', { name: 'Report type' }).waitFor();
    return { context, page };
  }

  /** Clicks Generate and returns the downloaded file with the name the server gave it. */
  async function download(page: Page, format: 'PDF' | 'Excel', watchProgress = false): Promise<{ name: string; served: string; bytes: Buffer }> {
    await page.getByRole('radio', { name: format }).check();
    // A report of five rows is quicker than a look: hold the request back a moment to see the progress.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    if (watchProgress) await page.route('**/api/exports/**', async (route) => { await held; await route.continue(); }, { times: 1 });
    const response = page.waitForResponse((r) => /\/api\/exports\/(pdf|excel)\//.test(r.url()) && r.request().method() === 'POST', { timeout: 60_000 });
    const file = page.waitForEvent('download', { timeout: 60_000 });
    await page.getByRole('button', { name: `Generate ${format} Report` }).click();
    if (watchProgress) {
      const progress = page.getByRole('progressbar', { name: 'Report progress' });
      await progress.waitFor();
      expect(await page.getByTestId('export-status').getAttribute('aria-live')).toBe('polite');
      expect(await page.getByTestId('export-status').textContent()).toContain(`Generating your ${format} report`);
      expect(await page.getByRole('button', { name: `Generating ${format} report...` }).isDisabled()).toBe(true);
      await shot(page, `85-exports-generating-${format.toLowerCase()}`);
      release();
      await progress.waitFor({ state: 'detached', timeout: 60_000 });
    }
    const res = await response;
    expect(res.status()).toBe(200);
    const disposition = res.headers()['content-disposition'] ?? '';
    const extended = /filename\*\s*=\s*[^']*'[^']*'([^;]+)/i.exec(disposition)?.[1];
    const served = extended ? decodeURIComponent(extended) : (/filename\s*=\s*"?([^";]+)"?/i.exec(disposition)?.[1] ?? '');
    const got = await file;
    const bytes = readFileSync((await got.path())!);
    await expect.poll(() => page.getByTestId('export-status').textContent()).toContain(`Downloaded ${got.suggestedFilename()}`);
    return { name: got.suggestedFilename(), served, bytes };
  }

  async function xlsxText(bytes: Buffer): Promise<{ sheets: string[]; texts: string[]; cells: ExcelJS.Cell[] }> {
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(bytes as unknown as ArrayBuffer);
    const texts: string[] = [];
    const cells: ExcelJS.Cell[] = [];
    wb.eachSheet((sheet) => sheet.eachRow((row) => row.eachCell((cell) => {
      cells.push(cell);
      texts.push(cell.text);
    })));
    return { sheets: wb.worksheets.map((s) => s.name), texts, cells };
  }

  describe(NAME, () => {
    it('as admin: four report types as a keyboard radio group, a preview of the company, then a PDF and an Excel report of everyone', async () => {
      const { context, page } = await signIn(ada);
      const radios = page.getByRole('radiogroup', { name: 'Report type' }).getByRole('radio');
      await expect.poll(() => radios.count()).toBe(4);
      expect(await page.getByRole('radio', { name: 'Analytics', exact: false }).count()).toBeGreaterThan(0);
      const first = radios.first();
      expect(await first.isChecked()).toBe(true);
      expect(await page.getByRole('radio', { name: 'PDF' }).isChecked()).toBe(true);
      await first.focus();
      await page.keyboard.press('ArrowDown');
      expect(await radios.nth(1).isChecked()).toBe(true);
      await page.keyboard.press('ArrowUp');
      expect(await first.isChecked()).toBe(true);

      await page.getByRole('button', { name: 'Preview Data' }).click();
      await expect.poll(() => page.getByTestId('preview-total').textContent(), { timeout: 30_000 }).toBe(String(ADMIN_ROWS.length + USER_ROWS.length));
      const table = page.getByRole('table', { name: 'Preview records' });
      expect(await table.getByRole('row').count()).toBe(1 + ADMIN_ROWS.length + USER_ROWS.length);
      for (const text of [...ADMIN_ROWS, ...USER_ROWS]) expect(await table.textContent()).toContain(text);
      // Quick analytics: the company's expenses, everyone's rows (80 + 45.50 + 10 + 23.40 + 12).
      await expect.poll(() => page.getByTestId('quick-analytics').textContent(), { timeout: 15_000 }).toContain('$170.90');
      await shot(page, '80-exports-admin-preview');

      const pdf = await download(page, 'PDF', true);
      expect(pdf.name).toBe(pdf.served);
      expect(pdf.name).toMatch(/\.pdf$/);
      expect(pdf.name).not.toBe('report.pdf');
      expect(pdf.bytes.subarray(0, 4).toString('latin1')).toBe('%PDF');
      const text = (await pdfText(pdf.bytes)).join('\n');
      for (const row of [...ADMIN_ROWS, ...USER_ROWS]) expect(text).toContain(row);
      const [cover] = await renderPdfPages(pdf.bytes, { maxPages: 1, dpi: 100 });
      mkdirSync(SCREENSHOTS, { recursive: true });
      writeFileSync(join(SCREENSHOTS, '81-exports-admin-pdf-page-1.png'), cover!);

      const xlsx = await download(page, 'Excel');
      expect(xlsx.name).toBe(xlsx.served);
      expect(xlsx.name).toMatch(/\.xlsx$/);
      const book = await xlsxText(xlsx.bytes);
      expect(book.sheets).toContain('Transactions');
      for (const row of [...ADMIN_ROWS, ...USER_ROWS]) expect(book.texts.some((t) => t.includes(row))).toBe(true);
      // A description that looks like a formula stays text.
      const formula = book.cells.find((c) => c.text.includes('Admin Formula'))!;
      expect(formula.type).toBe(ExcelJS.ValueType.String);
      expect(book.cells.some((c) => c.value === -80 || c.value === -80.0)).toBe(true);
      await shot(page, '82-exports-admin-downloaded');

      // The admin-only analytics report: every section, one sheet each.
      await page.getByRole('radio', { name: 'Analytics' }).check();
      const analytics = await download(page, 'Excel');
      expect(analytics.name).toBe(analytics.served);
      const sections = await xlsxText(analytics.bytes);
      expect(sections.sheets).toEqual(expect.arrayContaining(['Summary', 'Transactions', 'Receipts', 'Matches']));
      expect(sections.texts.some((t) => t.includes(USER_ROWS[0]!))).toBe(true);
      await context.close();
    }, 180_000);

    it('as a plain user: no analytics, no preview, and reports holding only her own rows', async () => {
      const { context, page } = await signIn(uma);
      const radios = page.getByRole('radiogroup', { name: 'Report type' }).getByRole('radio');
      await expect.poll(() => radios.count()).toBe(3);
      expect(await page.getByRole('radio', { name: 'Analytics', exact: false }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Preview Data' }).count()).toBe(0);
      expect(await page.getByTestId('export-preview').count()).toBe(0);
      expect(await page.getByTestId('quick-analytics').count()).toBe(0);

      await page.getByLabel('Matched', { exact: true }).uncheck();
      await page.getByLabel('Unmatched', { exact: true }).uncheck();
      await page.getByRole('button', { name: 'Generate PDF Report' }).click();
      await expect.poll(() => page.getByTestId('export-problem').textContent()).toBe('Please select at least one option: Matched or Unmatched');
      await shot(page, '83-exports-user-validation');
      await page.getByLabel('Unmatched', { exact: true }).check();

      const pdf = await download(page, 'PDF');
      expect(pdf.name).toBe(pdf.served);
      expect(pdf.bytes.subarray(0, 4).toString('latin1')).toBe('%PDF');
      const text = (await pdfText(pdf.bytes)).join('\n');
      for (const row of USER_ROWS) expect(text).toContain(row);
      for (const row of ADMIN_ROWS) expect(text).not.toContain(row);

      const xlsx = await download(page, 'Excel');
      expect(xlsx.name).toBe(xlsx.served);
      const book = await xlsxText(xlsx.bytes);
      for (const row of USER_ROWS) expect(book.texts.some((t) => t.includes(row))).toBe(true);
      for (const row of ADMIN_ROWS) expect(book.texts.some((t) => t.includes(row))).toBe(false);

      // A period: the start after the end is refused on the screen; a real one names the file and keeps its rows.
      await page.getByLabel('Start date').fill('2024-03-06');
      await page.getByLabel('End date').fill('2024-03-01');
      await page.getByRole('button', { name: 'Generate Excel Report' }).click();
      await expect.poll(() => page.getByTestId('export-problem').textContent()).toBe('The start date must be on or before the end date');
      await page.getByLabel('Start date').fill('2024-03-01');
      await page.getByLabel('End date').fill('2024-03-05');
      const march = await download(page, 'Excel');
      expect(march.name).toBe(march.served);
      expect(march.name).toContain('2024-03-01');
      const early = await xlsxText(march.bytes);
      expect(early.texts.some((t) => t.includes(USER_ROWS[0]!))).toBe(true);
      expect(early.texts.some((t) => t.includes(USER_ROWS[1]!))).toBe(false);
      await shot(page, '84-exports-user-downloaded');
      await context.close();
      expect(violations).toEqual([]);
    }, 180_000);
  });
});
