/**
 * The auditor in the browser: an auditor signs in, switches to the company they audit and
 * walks its main pages. They read everything (transactions, receipts, matches, master data, the
 * AI dashboard, a record's History and the as-of view) and see no write control anywhere, with a
 * read-only notice on every page. The same person in their own company (where they are admin)
 * sees the write controls: the check below would notice them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../support/process';
import { BANK_CSV, imageOf, labels } from '../support/labelled-reader';
import { browserSuite, launch, shot } from '../e2e-support/browser';

const NAME = 'auditor in Debian chromium: every page read-only, history and as-of readable';

/** Names of controls that change something (the app's write buttons, links and inputs). */
const WRITE_CONTROL = /^(Edit|Delete|Save|Add$|Import|Upload|Auto-Match|Confirm\b|Reject\b|Dismiss\b|Run duplicate|Check duplicates|Read Again|Find Matches|Match to|Invite|Remove|Update|Send correction|Run OCR|Test Categori)/i;

/** Every button, button-like link and file input of the page, by accessible name. */
async function controls(page: Page): Promise<string[]> {
  return page.$$eval('button, a.btn, [role="button"], input[type="file"]', (els) =>
    els.map((e) => (e.tagName === 'INPUT' && e.getAttribute('type') === 'file' ? `Upload (file input ${e.getAttribute('aria-label') ?? ''})` : (e.getAttribute('aria-label') ?? e.textContent ?? '').trim())),
  );
}
const writeControls = async (page: Page) => (await controls(page)).filter((n) => WRITE_CONTROL.test(n));

const localValue = (d: Date) => {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
};

browserSuite(NAME, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-e2e-auditor-'));
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  const stamp = Date.now();
  const auditor = { email: `audrey-${stamp}@example.com`, password: 'Passw0rdOK' };
  let adminHeaders: Record<string, string>;
  let txId: string;
  let txDescription: string;
  let afterImport: Date;

  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await fetch(`${server.url}/api${path}`, { method, headers: { ...headers, ...(body && !(body instanceof FormData) ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: body instanceof FormData ? body : JSON.stringify(body) } : {}) });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const register = async (firstName: string, email: string, companyName: string) => {
    const r = (await call('POST', '/auth/register', {}, { firstName, lastName: 'Test', email, password: 'Passw0rdOK', companyName })) as { accessToken: string; company: { id: string } };
    return { authorization: `Bearer ${r.accessToken}`, 'x-company-id': r.company.id };
  };

  beforeAll(async () => {
    server = await startServerProcess({ DATA_DIR: dir });
    adminHeaders = await register('Ada', `ada-auditor-${stamp}@example.com`, 'Audited Works');
    await register('Audrey', auditor.email, 'Audrey Firm');
    await call('POST', '/companies/current/invite', adminHeaders, { email: auditor.email, role: 'auditor' });
    const form = new FormData();
    form.append('csvFile', new Blob([readFileSync(join(BANK_CSV, 'chase.csv'))], { type: 'text/csv' }), 'chase.csv');
    await call('POST', '/transactions/import', adminHeaders, form);
    await call('POST', '/masterdata/categories', adminHeaders, { name: 'Audited Travel' });
    const receipt = new FormData();
    receipt.append('receipt', new Blob([imageOf(labels[0]!.id)], { type: 'image/jpeg' }), 'audited-receipt.jpg');
    await call('POST', '/receipts/upload', adminHeaders, receipt);
    const list = (await call('GET', '/transactions?limit=1&sortBy=transaction_date&sortOrder=desc', adminHeaders)) as { transactions: Array<{ id: string; description: string; amount: number }> };
    txId = list.transactions[0]!.id;
    txDescription = list.transactions[0]!.description;
    await new Promise((r) => setTimeout(r, 1100));
    afterImport = new Date();
    await new Promise((r) => setTimeout(r, 1100));
    await call('PUT', `/transactions/${txId}`, adminHeaders, { description: 'Changed after the audit date', category: 'Audited Travel', job_number: 'J-1', cost_code: 'C-1', amount: list.transactions[0]!.amount });

    browser = await launch();
    page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await page.goto(`${server.url}/auth`);
    await page.getByLabel('Email').fill(auditor.email);
    await page.getByLabel('Password').fill(auditor.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL('**/dashboard');
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Opens a page of the app and waits for `ready` (a locator's text) to show. */
  const visit = async (path: string, ready: string) => {
    await page.goto(`${server.url}${path}`);
    await page.getByText(ready, { exact: false }).first().waitFor({ timeout: 15_000 });
  };

  describe(NAME, () => {
    it('in their own company (admin there) the same person sees write controls and no read-only notice', async () => {
      await visit('/matches', 'Pending (');
      expect(await page.getByTestId('read-only-notice').count()).toBe(0);
      expect(await writeControls(page)).toContain('Auto-Match Receipts');
      await visit('/receipts', 'Drag and drop receipts');
      expect(await writeControls(page)).toContain('Upload (file input Choose receipt files)');
    });

    it('switches to the audited company: a labelled read-only notice, no Import link, no write control on the dashboard', async () => {
      await page.getByTestId('company-selector').click();
      await page.getByRole('menuitem', { name: /Audited Works/ }).click();
      await page.waitForURL('**/dashboard');
      const notice = page.getByRole('complementary', { name: 'Read-only access' });
      await notice.waitFor();
      expect(await notice.textContent()).toContain('you can read everything');
      await page.getByText('Quick Actions').waitFor();
      expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Import' }).count()).toBe(0);
      expect(await writeControls(page)).toEqual([]);
      await shot(page, '17-auditor-dashboard');
    });

    it("reads every member's transactions with their History, without Edit, Delete or the duplicate check", async () => {
      await visit('/transactions', 'Changed after the audit date');
      expect(await page.getByRole('columnheader', { name: 'Created By' }).count()).toBe(1);
      expect(await writeControls(page)).toEqual([]);
      await page.getByRole('button', { name: 'History of Changed after the audit date' }).click();
      const panel = page.getByTestId('history-panel');
      await expect.poll(() => panel.getByTestId('history-entry').count(), { timeout: 15_000 }).toBe(2);
      expect((await panel.getByTestId('history-entry').allTextContents()).join(' ')).toContain('Ada Test · admin');
      await panel.getByRole('button', { name: 'Close', exact: true }).click();
    });

    it('shows the transactions as of a moment before the change, with the banner', async () => {
      await page.getByRole('button', { name: 'Audit view' }).click();
      await page.getByLabel('Show as of').fill(localValue(afterImport));
      await page.getByRole('button', { name: 'Show', exact: true }).click();
      await page.getByTestId('as-of-banner').waitFor();
      const row = page.getByTestId(`tx-${txId}`);
      await expect.poll(async () => ((await row.count()) > 0 ? await row.textContent() : '') ?? '', { timeout: 15_000 }).toContain(txDescription);
      expect(await writeControls(page)).toEqual([]);
      await shot(page, '17-auditor-as-of');
      await page.getByRole('button', { name: 'Back to today' }).click();
      await expect.poll(() => page.getByTestId('as-of-banner').count()).toBe(0);
    });

    it('receipts (no drop zone, no Delete; the details read-only), matches, import, master data and AI: no write control', async () => {
      await visit('/receipts', 'audited-receipt.jpg');
      expect(await writeControls(page)).toEqual([]);
      await page.getByRole('button', { name: 'View audited-receipt.jpg' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'audited-receipt.jpg' }).waitFor();
      expect(await writeControls(page)).toEqual([]);
      expect(await dialog.locator('input:not([readonly])').count()).toBe(0);
      await dialog.getByRole('button', { name: 'Close', exact: true }).click();

      await visit('/matches', 'Pending (');
      expect(await writeControls(page)).toEqual([]);
      await visit('/import', 'which an auditor cannot do');
      expect(await writeControls(page)).toEqual([]);
      await visit('/master-data-settings', 'Audited Travel');
      expect(await writeControls(page)).toEqual([]);
      await visit('/ai-dashboard?tab=duplicates', 'Duplicate Detection');
      expect(await writeControls(page)).toEqual([]);
      expect(await page.getByTestId('read-only-notice').count()).toBe(1);
      await shot(page, '17-auditor-ai-duplicates');
    });
  });
});
