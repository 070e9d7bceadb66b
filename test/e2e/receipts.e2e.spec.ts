import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../support/process';
import { BANK_CSV, labels, RECEIPTS_DEV } from '../support/labelled-reader';
import { browserSuite, launch, registerInBrowser, shot } from '../e2e-support/browser';

const NAME = 'receipts and matches in Debian chromium: upload several, watch OCR finish, view, download, duplicates, correct, match, confirm, reject, delete';

interface Truth {
  receipt_to_transaction: Record<string, { date: string; description: string; amount: number } | null>;
}

browserSuite(NAME, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-e2e-rc-'));
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  const truth = JSON.parse(readFileSync(join(BANK_CSV, 'chase.truth.json'), 'utf8')) as Truth;
  const picked = labels.filter((l) => truth.receipt_to_transaction[l.id]).slice(0, 3);
  const file = (id: string) => join(RECEIPTS_DEV, `${id}.jpg`);

  beforeAll(async () => {
    server = await startServerProcess({ DATA_DIR: dir, OCR_WORKERS: '2' });
    browser = await launch();
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await registerInBrowser(page, server.url, { firstName: 'Rae', lastName: 'Receipts', email: `rae-${Date.now()}@example.com`, company: 'Receipt Works', password: 'Passw0rdOK' });
    await page.goto(`${server.url}/import`);
    await page.getByTestId('csv-input').setInputFiles(join(BANK_CSV, 'chase.csv'));
    await page.getByTestId('import-result').waitFor({ timeout: 30_000 });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const toast = (text: string) => expect.poll(() => page.getByText(text).first().isVisible(), { timeout: 15_000 }).toBe(true);
  const statuses = () => page.getByTestId('processing-status').allTextContents();

  describe(NAME, () => {
    it('uploads several receipts with per-file progress and shows OCR finishing by itself', async () => {
      await page.goto(`${server.url}/receipts`);
      await expect.poll(() => page.getByText('No receipts found.').isVisible()).toBe(true);
      await page.getByTestId('receipt-input').setInputFiles(picked.map((l) => file(l.id)));
      await toast(`${picked.length} receipt(s) uploaded successfully`);
      expect(await page.getByRole('list', { name: 'Uploads' }).getByRole('listitem').count()).toBe(picked.length);
      await shot(page, '20-receipts-uploading');
      await expect.poll(statuses, { timeout: 90_000, interval: 500 }).toEqual(picked.map(() => 'completed'));
      await shot(page, '21-receipts-completed');
      expect(await page.getByTestId('page-info').textContent()).toBe(`Page 1 of 1 (${picked.length} total)`);
    }, 120_000);

    it('views a receipt in the details modal, opens it in a new tab, downloads it, checks duplicates', async () => {
      const first = picked[0]!;
      await page.getByRole('button', { name: `View ${first.id}.jpg` }).click();
      const dialog = page.getByRole('dialog');
      await expect.poll(() => dialog.getByRole('img').isVisible()).toBe(true);
      const popup = page.waitForEvent('popup');
      await dialog.getByRole('button', { name: 'Open in New Tab' }).click();
      await (await popup).close();
      await dialog.getByRole('button', { name: 'Close', exact: true }).click();
      expect(await page.getByRole('dialog').count()).toBe(0);

      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: `Download ${first.id}.jpg` }).click();
      expect((await download).suggestedFilename()).toBe(`${first.id}.jpg`);
      await toast('Receipt downloaded successfully');

      await page.getByRole('button', { name: `Duplicate check ${first.id}.jpg` }).click();
      await toast('No duplicates found');
      await page.getByTestId('receipt-input').setInputFiles(file(first.id));
      await toast('1 receipt(s) uploaded successfully');
      await page.getByRole('button', { name: `Duplicate check ${first.id}.jpg` }).first().click();
      await toast('Duplicate detected: 1 similar receipts found');
      await expect.poll(statuses, { timeout: 60_000, interval: 500 }).toEqual([...picked, first].map(() => 'completed'));
      page.once('dialog', (d) => {
        expect(d.message()).toBe('Are you sure you want to delete this receipt?');
        void d.accept();
      });
      await page.getByRole('button', { name: `Delete ${first.id}.jpg` }).first().click();
      await toast('Receipt deleted successfully');
      await expect.poll(statuses).toHaveLength(picked.length);
    }, 90_000);

    it('shows where OCR read each field on the image, doubtful fields first and flagged', async () => {
      await page.getByRole('button', { name: `View ${picked[0]!.id}.jpg` }).click();
      const dialog = page.getByRole('dialog');
      await expect.poll(() => dialog.getByRole('img').isVisible()).toBe(true);
      // Real OCR: the lines the fields were read from are outlined over the photo, inside it.
      await expect.poll(() => dialog.locator('.read-box').count()).toBeGreaterThan(0);
      const image = (await dialog.getByRole('img').boundingBox())!;
      for (const box of await dialog.locator('.read-box').all()) {
        const b = (await box.boundingBox())!;
        expect(b.x).toBeGreaterThanOrEqual(image.x - 1);
        expect(b.y + b.height).toBeLessThanOrEqual(image.y + image.height + 1);
      }
      // Flagged fields ("Check") come before every field that is not.
      const flags = await dialog.locator('.read-field').evaluateAll((els) => els.map((el) => el.classList.contains('doubtful')));
      expect(flags).toEqual([...flags].sort((a, b) => Number(b) - Number(a)));
      await dialog.getByLabel('Merchant').focus();
      await shot(page, '25-receipt-fields-where-read');
      await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    }, 30_000);

    it('corrects what OCR read, so that matching works from the right fields', async () => {
      for (const l of picked) {
        await page.getByRole('button', { name: `View ${l.id}.jpg` }).click();
        const dialog = page.getByRole('dialog');
        await dialog.getByLabel('Total').fill(l.total.toFixed(2));
        await dialog.getByLabel('Date').fill(l.date);
        await dialog.getByLabel('Merchant').fill(l.merchant);
        await dialog.getByRole('button', { name: 'Save corrections' }).click();
        await toast('Receipt updated successfully');
        await dialog.getByRole('button', { name: 'Close', exact: true }).click();
      }
    });

    it('reviews matches: confirm, reject, delete, and matches one by hand from the receipt', async () => {
      await page.goto(`${server.url}/matches`);
      await page.getByRole('button', { name: 'Auto-Match Receipts' }).click();
      await expect.poll(async () => (await page.getByRole('tab').allTextContents())[0], { timeout: 20_000 }).toBe(`Pending (${picked.length})`);
      for (const l of picked) {
        const t = truth.receipt_to_transaction[l.id]!;
        expect(await page.getByTestId(`match-${l.id}.jpg`).textContent()).toContain(t.description);
      }
      await page.getByTestId(`match-${picked[0]!.id}.jpg`).getByText(/^Why/).click();
      await shot(page, '22-matches-pending');
      await page.getByRole('button', { name: `Confirm ${picked[0]!.id}.jpg` }).click();
      await toast('Match confirmed');
      await page.getByRole('button', { name: `Reject ${picked[1]!.id}.jpg` }).click();
      await toast('Match rejected');
      await expect.poll(async () => page.getByRole('tab').allTextContents()).toEqual([`Pending (${picked.length - 2})`, 'Confirmed (1)']);
      await page.getByRole('tab', { name: 'Confirmed (1)' }).click();
      page.once('dialog', (d) => void d.accept());
      await page.getByRole('button', { name: `Delete match ${picked[0]!.id}.jpg` }).click();
      await toast('Match deleted');
      await expect.poll(async () => page.getByRole('tab').allTextContents()).toEqual([`Pending (${picked.length - 2})`, 'Confirmed (0)']);

      // The rejected receipt is matched by hand from the receipts screen.
      await page.goto(`${server.url}/receipts`);
      await page.getByRole('button', { name: `View ${picked[1]!.id}.jpg` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Find Matches' }).click();
      const t = truth.receipt_to_transaction[picked[1]!.id]!;
      await page.getByRole('dialog').getByRole('button', { name: `Match to ${t.description}` }).first().click();
      await toast('Match confirmed');
      await expect.poll(() => page.getByTestId(`receipt-${picked[1]!.id}.jpg`).textContent()).toContain('Matched');
      await shot(page, '23-receipts-matched');

      // The dashboard shows what is still waiting for review, with a way to it.
      await page.goto(`${server.url}/dashboard`);
      await expect.poll(() => page.getByRole('table', { name: 'Pending matches' }).getByRole('row').count()).toBe(picked.length - 2 + 1);
      expect(await page.getByRole('table', { name: 'Pending matches' }).textContent()).toContain(`${picked[2]!.id}.jpg`);
      await page.getByRole('button', { name: 'Auto-Match Receipts' }).click();
      // Green only when something new was matched; a run that finds nothing says so.
      await expect.poll(() => page.getByText(/^(Auto-matched \d+ receipts?!|Auto-match found no new match)$/).first().isVisible(), { timeout: 15_000 }).toBe(true);
      await shot(page, '24-dashboard');
    }, 90_000);
  });
});
