/**
 * History and as-of reads (ADR 0017) in the browser: the History panel of a transaction row (the import's file
 * and row, the correction's before and after, who and their role), and the as-of date picker
 * with its banner on the transactions screen: the list as it stood before the correction.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../support/process';
import { BANK_CSV, imageOf, labels } from '../support/labelled-reader';
import { browserSuite, launch, registerInBrowser, shot } from '../e2e-support/browser';

const NAME = 'history in Debian chromium: the History panel of a transaction, the as-of picker and its banner';

/** `datetime-local` value with seconds, in the machine's zone (the browser runs on this machine). */
const localValue = (d: Date) => {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
};

browserSuite(NAME, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-e2e-history-'));
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  const ada = { email: `ada-history-${Date.now()}@example.com`, password: 'Passw0rdOK' };
  let headers: Record<string, string>;
  let edited: { id: string; description: string };
  let between: Date;

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}/api${path}`, { method, headers: { ...headers, ...(body && !(body instanceof FormData) ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: body instanceof FormData ? body : JSON.stringify(body) } : {}) });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { transactions: Array<{ id: string; description: string; amount: number }> };
  };

  beforeAll(async () => {
    server = await startServerProcess({ DATA_DIR: dir });
    browser = await launch();
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await registerInBrowser(page, server.url, { firstName: 'Ada', lastName: 'Admin', email: ada.email, company: 'History Works', password: ada.password });
    // The statement import and the correction go through the API; the screens show them.
    const login = (await (await fetch(`${server.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ada) })).json()) as { accessToken: string; companies: Array<{ id: string }> };
    headers = { authorization: `Bearer ${login.accessToken}`, 'x-company-id': login.companies[0]!.id };
    const form = new FormData();
    form.append('csvFile', new Blob([readFileSync(join(BANK_CSV, 'chase.csv'))], { type: 'text/csv' }), 'chase.csv');
    await call('POST', '/transactions/import', form);
    const list = await call('GET', '/transactions?limit=5&sortBy=transaction_date&sortOrder=desc');
    edited = list.transactions[0]!;
    await new Promise((r) => setTimeout(r, 1500));
    between = new Date();
    await new Promise((r) => setTimeout(r, 1500));
    await call('PUT', `/transactions/${edited.id}`, { description: 'Corrected in the browser test', category: 'Travel', job_number: 'J-1', cost_code: 'C-1', amount: list.transactions[0]!.amount });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe(NAME, () => {
    it("opens a transaction's History: the statement row, then the correction with its before and after, by whom", async () => {
      await page.goto(`${server.url}/transactions`);
      const row = page.getByTestId(`tx-${edited.id}`);
      await row.waitFor();
      await row.getByRole('button', { name: 'History of Corrected in the browser test' }).click();
      const panel = page.getByTestId('history-panel');
      await expect.poll(() => panel.getByTestId('history-entry').count(), { timeout: 15_000 }).toBe(2);
      const [imported, corrected] = await panel.getByTestId('history-entry').allTextContents();
      expect(imported).toContain('Imported from chase.csv');
      expect(imported).toMatch(/Statement chase\.csv, row \d+/);
      expect(imported).toContain('Ada Admin · admin');
      expect(corrected).toContain('Edited: description');
      expect(corrected).toContain(edited.description);
      expect(corrected).toContain('Corrected in the browser test');
      await shot(page, '17-history-panel-transaction');
      await panel.getByRole('button', { name: 'Close', exact: true }).click();
      await expect.poll(() => panel.count()).toBe(0);
    });

    it("opens a receipt's History from its row: the upload with the file it came from", async () => {
      const form = new FormData();
      form.append('receipt', new Blob([imageOf(labels[0]!.id)], { type: 'image/jpeg' }), 'history-receipt.jpg');
      await call('POST', '/receipts/upload', form);
      await page.goto(`${server.url}/receipts`);
      await page.getByRole('button', { name: 'History of history-receipt.jpg' }).click();
      const panel = page.getByTestId('history-panel');
      await expect.poll(() => panel.getByTestId('history-entry').count(), { timeout: 15_000 }).toBeGreaterThan(0);
      const [uploaded] = await panel.getByTestId('history-entry').allTextContents();
      expect(uploaded).toContain('Uploaded history-receipt.jpg');
      expect(uploaded).toContain('Upload of history-receipt.jpg (image/jpeg');
      expect(uploaded).toContain('Ada Admin · admin');
      await shot(page, '17-history-panel-receipt');
      await panel.getByRole('button', { name: 'Close', exact: true }).click();
    });

    it('shows the list as of a moment before the correction, with a banner, and goes back to today', async () => {
      await page.goto(`${server.url}/transactions`);
      await page.getByTestId(`tx-${edited.id}`).waitFor();
      expect(await page.getByTestId('as-of-banner').count()).toBe(0);
      await page.getByRole('button', { name: 'Audit view' }).click();
      await page.getByLabel('Show as of').fill(localValue(between));
      await page.getByRole('button', { name: 'Show', exact: true }).click();
      const banner = page.getByTestId('as-of-banner');
      await banner.waitFor();
      expect(await banner.textContent()).toContain('as they stood on');
      const row = page.getByTestId(`tx-${edited.id}`);
      await expect.poll(async () => (await row.count()) > 0 && (await row.textContent())?.includes(edited.description), { timeout: 15_000 }).toBe(true);
      expect(await row.textContent()).not.toContain('Corrected in the browser test');
      await shot(page, '17-as-of-banner-transactions');
      await page.getByRole('button', { name: 'Back to today' }).click();
      await expect.poll(() => page.getByTestId('as-of-banner').count()).toBe(0);
      await expect.poll(async () => (await page.getByTestId(`tx-${edited.id}`).textContent()) ?? '', { timeout: 15_000 }).toContain('Corrected in the browser test');
    });
  });
});
