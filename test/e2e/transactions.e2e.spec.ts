import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { parseBankStatement } from '@paperlink/domain';
import { REPO_ROOT, startServerProcess, type ServerProcess } from '../support/process';
import { browserSuite, launch, registerInBrowser, shot } from '../e2e-support/browser';

const NAME = 'transactions in Debian chromium: master data tabs, statement import, list, edit with linkage, filter, sort, paginate, delete';
const BANK = join(REPO_ROOT, '..', 'shared', 'data', 'bank-csv');

browserSuite(NAME, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-e2e-tx-'));
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  const ada = { email: `ada-tx-${Date.now()}@example.com`, password: 'Passw0rdOK' };
  const chase = parseBankStatement(readFileSync(join(BANK, 'chase.csv')));

  beforeAll(async () => {
    server = await startServerProcess({ DATA_DIR: dir });
    browser = await launch();
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await registerInBrowser(page, server.url, { firstName: 'Ada', lastName: 'Admin', email: ada.email, company: 'Ledger Works', password: ada.password });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const toast = (text: string) => expect.poll(() => page.getByText(text).first().isVisible(), { timeout: 15_000 }).toBe(true);
  const file = (name: string, body: string) => {
    const path = join(dir, name);
    writeFileSync(path, body);
    return path;
  };
  const pageInfo = () => page.getByTestId('page-info').textContent();

  describe(NAME, () => {
    it('keeps master data in three tabs: add, refuse an empty name, import CSV, edit, delete', async () => {
      await page.goto(`${server.url}/master-data-settings`);
      await page.getByRole('tab', { name: 'Cost Codes' }).waitFor();
      expect(await page.getByRole('tab').allTextContents()).toEqual(['Categories', 'Job Numbers', 'Cost Codes']);
      await page.getByRole('button', { name: 'Add' }).click();
      await toast('Name cannot be empty.');
      await page.getByLabel('New category').fill('PROJECT MANAGER');
      await page.getByRole('button', { name: 'Add' }).click();
      await toast('Added category "PROJECT MANAGER"');
      await page.getByLabel('CSV file of categories').setInputFiles(file('categories.csv', 'Name\nFuel\nTravel\nPROJECT MANAGER\n'));
      await page.getByRole('button', { name: 'Import CSV' }).click();
      await expect.poll(() => page.getByTestId('master-import-result').textContent()).toContain('Imported 2, skipped 1');
      await expect.poll(() => page.getByRole('table', { name: 'categories list' }).getByRole('row').count()).toBe(4);

      await page.getByRole('tab', { name: 'Job Numbers' }).click();
      for (const j of ['J-100', 'J-200', 'J-OLD']) {
        await page.getByLabel('New job number').fill(j);
        await page.getByRole('button', { name: 'Add' }).click();
        await expect.poll(() => page.getByRole('cell', { name: j, exact: true }).count()).toBe(1);
      }
      await page.getByRole('button', { name: 'Edit J-200' }).click();
      await page.getByLabel('Name', { exact: true }).fill('J-250');
      await page.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.getByRole('cell', { name: 'J-250', exact: true }).count()).toBe(1);
      page.once('dialog', (d) => void d.accept());
      await page.getByRole('button', { name: 'Delete J-OLD' }).click();
      await expect.poll(() => page.getByRole('cell', { name: 'J-OLD', exact: true }).count()).toBe(0);

      await page.getByRole('tab', { name: 'Cost Codes' }).click();
      await page.getByLabel('CSV file of cost codes').setInputFiles(file('codes.csv', 'Cost Code,Category\n01-3114,PROJECT MANAGER\n01-3115,PROJECT MANAGER\n03-100,Fuel\n03-200,Fuel\n04-100,Travel\n05-100,Office\n'));
      await page.getByRole('button', { name: 'Import CSV' }).click();
      await expect.poll(() => page.getByTestId('master-import-result').textContent()).toContain('Imported 6');
      await expect.poll(() => page.getByRole('table', { name: 'cost codes list' }).getByRole('row').count()).toBe(7);
      await shot(page, '10-master-data-cost-codes');
    });

    it('imports a real Chase export with progress and result cards; the same file again adds nothing', async () => {
      await page.goto(`${server.url}/import`);
      await expect.poll(() => page.getByText('Expected columns').isVisible()).toBe(true);
      await page.getByTestId('csv-input').setInputFiles(join(BANK, 'chase.csv'));
      await expect.poll(() => page.getByTestId('imported-count').textContent(), { timeout: 30_000 }).toBe(String(chase.rows.length));
      expect(await page.getByTestId('total-count').textContent()).toBe(String(chase.rows.length));
      await toast(`Import completed! ${chase.rows.length} transactions imported`);
      expect(await page.getByRole('table', { name: 'User assignment details' }).getByRole('row').count()).toBe(21);
      await shot(page, '11-import-result');
      // Read-your-writes (ADR 0030): the import's position goes with the next read of the list, whose answer says it holds it.
      const importAnswer = JSON.parse((await page.evaluate("window.sessionStorage.getItem('paperlink-read-position')")) ?? '{}') as { state?: { position?: number } };
      expect(importAnswer.state?.position).toBeGreaterThan(0);
      const listRead = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/transactions' && r.request().method() === 'GET');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Transactions', exact: true }).click();
      const list = await listRead;
      expect(Number(await list.request().headerValue('x-min-position'))).toBeGreaterThanOrEqual(importAnswer.state!.position!);
      expect(await list.request().headerValue('prefer')).toBe('wait=1');
      expect(await list.headerValue('x-read-side')).toBe('current');
      await expect.poll(pageInfo).toContain(`(${chase.rows.length} total)`);
      expect(await page.getByTestId('read-side-notice').textContent()).toBe('');
      await page.goto(`${server.url}/import`);
      await page.getByTestId('csv-input').waitFor({ state: 'attached' });
      await page.getByTestId('csv-input').setInputFiles(join(BANK, 'chase.csv'));
      await page.getByTestId('csv-input').setInputFiles(join(BANK, 'chase.csv'));
      await expect.poll(() => page.getByTestId('imported-count').textContent(), { timeout: 30_000 }).toBe('0');
      expect(await page.getByTestId('skipped-count').textContent()).toBe(String(chase.rows.length));
    });

    it('asks for the columns of an unknown layout, previews it, and remembers the mapping', async () => {
      await page.goto(`${server.url}/import`);
      const odd = 'Booked on|Payee|Value\n'.replace(/\|/g, ';');
      await page.getByTestId('csv-input').setInputFiles(file('odd-1.csv', `${odd}2024-05-01;Corner Cafe;-4.50\n2024-05-02;Book Shop;-19.99\n`));
      await expect.poll(() => page.getByRole('form', { name: 'Column mapping' }).isVisible(), { timeout: 15_000 }).toBe(true);
      expect(await page.getByRole('table', { name: 'File preview' }).textContent()).toContain('Corner Cafe');
      await page.getByLabel('Transaction Date', { exact: true }).selectOption({ label: 'Booked on' });
      await page.getByLabel('Description', { exact: true }).selectOption({ label: 'Payee' });
      await page.getByLabel('Amount (signed)').selectOption({ label: 'Value' });
      await shot(page, '12-import-mapping');
      await page.getByRole('button', { name: 'Import with this mapping' }).click();
      await expect.poll(() => page.getByTestId('imported-count').textContent(), { timeout: 15_000 }).toBe('2');
      await page.getByRole('button', { name: 'Import Another File' }).click();
      await page.getByTestId('csv-input').setInputFiles(file('odd-2.csv', `${odd}2024-05-03;Hardware Store;-7.25\n`));
      await expect.poll(() => page.getByTestId('imported-count').textContent(), { timeout: 15_000 }).toBe('1');
    });

    it('lists 50 a page, paginates, sorts and filters', async () => {
      const total = chase.rows.length + 3;
      await page.goto(`${server.url}/transactions`);
      await expect.poll(pageInfo).toBe(`Page 1 of ${Math.ceil(total / 50)} (${total} total)`);
      expect(await page.locator('tbody tr').count()).toBe(50);
      await page.getByRole('button', { name: 'Next' }).click();
      await expect.poll(pageInfo).toBe(`Page 2 of ${Math.ceil(total / 50)} (${total} total)`);

      await page.getByRole('button', { name: 'Show Filters' }).click();
      await page.getByLabel('Sort by').selectOption({ label: 'Amount' });
      await page.getByLabel('Sort order').selectOption({ label: 'Ascending' });
      await expect.poll(pageInfo).toContain('Page 1 of');
      const smallest = Math.min(...chase.rows.map((r) => r.amountCents)) / 100;
      await expect.poll(() => page.locator('tbody tr').first().locator('td').nth(3).textContent()).toBe(`-$${Math.abs(smallest).toLocaleString('en-US', { minimumFractionDigits: 2 })}`);

      // Amount filters compare sizes: 'between 1 and 5' finds expenses and refunds of that size.
      await page.getByLabel('Min amount').fill('1');
      await page.getByLabel('Max amount').fill('5');
      const inRange = chase.rows.filter((r) => Math.abs(r.amountCents) >= 100 && Math.abs(r.amountCents) <= 500).length + 1; // + Corner Cafe
      await expect.poll(pageInfo).toBe(`Page 1 of 1 (${inRange} total)`);
      await page.getByLabel('Start date').fill('2030-01-01');
      await expect.poll(() => page.getByText('No transactions found.').isVisible()).toBe(true);
      await shot(page, '13-transactions-empty-filter');
      await page.getByRole('button', { name: 'Clear Filters' }).click();
      await expect.poll(pageInfo).toBe(`Page 1 of ${Math.ceil(total / 50)} (${total} total)`);
    });

    it('edits a row inline with the category and cost-code linkage, then deletes one after confirmation', async () => {
      await page.goto(`${server.url}/transactions`);
      await page.getByRole('button', { name: 'Edit Corner Cafe' }).first().waitFor();
      await page.getByRole('button', { name: 'Edit Corner Cafe' }).click();
      const row = page.locator('tr.editing');
      await row.getByLabel('Category').selectOption('PROJECT MANAGER');
      expect(await row.getByLabel('Cost code').inputValue()).toBe('01-3114');
      await row.getByLabel('Category').selectOption('Travel');
      expect(await row.getByLabel('Cost code').inputValue()).toBe('04-100');
      await row.getByLabel('Category').selectOption('Fuel');
      expect(await row.getByLabel('Cost code').inputValue()).toBe('');
      expect(await row.getByLabel('Cost code').locator('option').allTextContents()).toEqual(['Select cost code', '03-100', '03-200']);
      await row.getByLabel('Cost code').selectOption('03-200');
      await row.getByRole('button', { name: 'Save' }).click();
      await toast('Description, category, job number, and cost code are required');
      await row.getByLabel('Job number').selectOption('J-100');
      await row.getByLabel('Amount').fill('-4.75');
      await shot(page, '14-transactions-inline-edit');
      await row.getByRole('button', { name: 'Save' }).click();
      await toast('Transaction updated successfully');
      const saved = page.locator('tr', { hasText: 'Corner Cafe' });
      await expect.poll(() => saved.textContent()).toContain('03-200');
      expect(await saved.textContent()).toContain('-$4.75');
      expect(await saved.textContent()).toContain('J-100');

      const before = await pageInfo();
      page.once('dialog', (d) => {
        expect(d.message()).toBe('Are you sure you want to delete the transaction "Book Shop"?');
        void d.accept();
      });
      await page.getByRole('button', { name: 'Delete Book Shop' }).click();
      await toast('Transaction deleted successfully');
      const n = Number(/\((\d+) total\)/.exec(before ?? '')![1]);
      await expect.poll(pageInfo).toContain(`(${n - 1} total)`);
      expect(await page.getByRole('button', { name: 'Delete Book Shop' }).count()).toBe(0);
    });
  });
});
