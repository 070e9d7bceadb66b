import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { REPO_ROOT, startServerProcess, type ServerProcess } from '../support/process';
import { browserSuite, launch, registerInBrowser, shot as keep } from '../e2e-support/browser';

const NAME = 'AI screens in Debian chromium: AI Analysis modal with feedback, duplicate check, /ai-dashboard tabs, batch processing, confirm and dismiss duplicate groups';
const LEDGER = join(REPO_ROOT, '..', 'shared', 'data', 'ledger');

/**
 * Lines of the second half-year (new.csv) picked by their truth: two charges each posted twice
 * (once in a pending form), the repeat of a monthly bill, and a merchant the history never saw.
 */
const PICKED = [
  '2025-08-08,HAMPTON INN AUSTIN TX',
  '2025-08-11,HAMPTON INN AUSTIN TX PENDING',
  '2025-09-15,CHIPOTLE 9128,-26.64',
  '2025-09-17,CHIPOTLE 9128 PENDING',
  '2025-07-09,PROCORE TECH',
  '2025-07-01,PARKMOBILE 1371',
];

/** A three-night trip to Austin covering the hotel charge and its pending repeat. */
const ICS = [
  'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Paperlink e2e//EN',
  'BEGIN:VEVENT', 'UID:austin-visit@example.com', 'DTSTAMP:20250801T000000Z', 'DTSTART;VALUE=DATE:20250807', 'DTEND;VALUE=DATE:20250812',
  'SUMMARY:Austin site visit', 'LOCATION:Austin, TX', 'END:VEVENT', 'END:VCALENDAR', '',
].join('\r\n');

browserSuite(NAME, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-e2e-ai-'));
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  let seeded = 0;

  /** Calls the API as the person signed in to the browser. */
  const call = async (method: string, path: string, body?: FormData | object) => {
    const state = await page.context().storageState();
    const stored = new Map(state.origins.flatMap((o) => o.localStorage.map((e) => [e.name, e.value] as const)));
    const token = stored.get('accessToken');
    const company = stored.get('currentCompanyId');
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'x-company-id': company ?? '' };
    const isForm = body instanceof FormData;
    if (body !== undefined && !isForm) headers['content-type'] = 'application/json';
    const res = await fetch(`${server.url}/api${path}`, { method, headers, body: body === undefined ? undefined : isForm ? body : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  const csv = (name: string, text: string) => {
    const form = new FormData();
    form.append('csvFile', new Blob([text], { type: 'text/csv' }), name);
    return form;
  };

  beforeAll(async () => {
    server = await startServerProcess({ DATA_DIR: dir });
    browser = await launch();
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await registerInBrowser(page, server.url, { firstName: 'Ana', lastName: 'Lopez', email: `ana-ai-${Date.now()}@example.com`, company: 'Ledger Builders', password: 'Passw0rdOK' });

    // Master data first (cost codes bring their categories), then the categorised half-year, then the picked new lines.
    await call('POST', '/masterdata/cost_codes/import', csv('cost-codes.csv', readFileSync(join(LEDGER, 'cost-codes.csv'), 'utf8')));
    await call('POST', '/masterdata/job_numbers/import', csv('job-numbers.csv', readFileSync(join(LEDGER, 'job-numbers.csv'), 'utf8')));
    const history = await call('POST', '/transactions/import', csv('history.csv', readFileSync(join(LEDGER, 'history.csv'), 'utf8')));
    const lines = readFileSync(join(LEDGER, 'new.csv'), 'utf8').trim().split('\n');
    const picked = lines.filter((l) => PICKED.some((p) => l.startsWith(p)));
    expect(picked).toHaveLength(PICKED.length);
    const fresh = await call('POST', '/transactions/import', csv('new-picked.csv', [lines[0], ...picked].join('\n') + '\n'));
    seeded = Number(history.imported) + Number(fresh.imported);
    expect(seeded).toBe(readFileSync(join(LEDGER, 'history.csv'), 'utf8').trim().split('\n').length - 1 + PICKED.length);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const toast = (text: string) => expect.poll(() => page.getByText(text).first().isVisible(), { timeout: 20_000 }).toBe(true);
  /** A screenshot of the screen itself: the toasts of earlier steps are closed first. */
  const shot = async (p: Page, name: string) => {
    await p.locator('.Toastify__close-button').evaluateAll((buttons) => buttons.forEach((b) => (b as unknown as { click(): void }).click()));
    await expect.poll(() => p.locator('.Toastify__toast').count(), { timeout: 5_000 }).toBe(0);
    await keep(p, name);
  };
  const dialog = () => page.getByRole('dialog', { name: 'AI Analysis' });
  const section = (name: string) => dialog().getByRole('region', { name });

  describe(NAME, () => {
    it('opens the AI Analysis modal: four sections, the predicted category with its badge, Yes feedback; Escape closes it', async () => {
      await page.goto(`${server.url}/transactions`);
      await page.getByRole('button', { name: 'AI analysis PROCORE TECH' }).first().click();
      await expect.poll(() => section('Intelligent Categorization').getByTestId('ai-predicted').textContent(), { timeout: 30_000 }).toBe('SOFTWARE');
      expect(await dialog().getByRole('heading', { level: 3 }).allTextContents()).toEqual(['Intelligent Categorization', 'Duplicate Detection', 'Recurring Patterns', 'Calendar Correlation']);
      expect(await section('Intelligent Categorization').getByTestId('ai-confidence').getAttribute('data-level')).toBe('high');
      expect(await section('Recurring Patterns').textContent()).toMatch(/monthly/i);
      expect(await section('Duplicate Detection').textContent()).toContain('No duplicates found');
      await shot(page, '90-ai-analysis-modal');
      await section('Intelligent Categorization').getByRole('button', { name: 'Yes' }).click();
      await toast('Categorization feedback recorded');
      await page.keyboard.press('Escape');
      await expect.poll(() => dialog().count()).toBe(0);
    });

    it('No lets the person pick the right category from master data, and the next prediction for the merchant follows it', async () => {
      await page.getByRole('button', { name: 'AI analysis PARKMOBILE 1371' }).click();
      const cat = section('Intelligent Categorization');
      await cat.getByRole('group', { name: 'Was this correct?' }).waitFor({ timeout: 30_000 });
      const predicted = await cat.getByTestId('ai-predicted').textContent().catch(() => null);
      const right = predicted === 'PERMITS & FEES' ? 'PARKING & TOLLS' : 'PERMITS & FEES';
      await cat.getByRole('button', { name: 'No' }).click();
      await expect.poll(() => cat.getByLabel('Correct category').locator('option').count()).toBeGreaterThan(10);
      await cat.getByLabel('Correct category').selectOption({ label: right });
      await shot(page, '91-ai-analysis-feedback-no');
      await cat.getByRole('button', { name: 'Send correction' }).click();
      await toast('Categorization feedback recorded');
      await dialog().getByRole('button', { name: 'Close', exact: true }).click();
      await expect.poll(() => dialog().count()).toBe(0);

      await page.getByRole('button', { name: 'AI analysis PARKMOBILE 1371' }).click();
      await expect.poll(() => section('Intelligent Categorization').getByTestId('ai-predicted').textContent(), { timeout: 30_000 }).toBe(right);
      await page.keyboard.press('Escape');
      await expect.poll(() => dialog().count()).toBe(0);
    });

    it('checks rows for duplicates: a monthly bill is not one, the pending repeat of a hotel charge is, with a link to review it', async () => {
      await page.getByRole('button', { name: 'Check duplicates PROCORE TECH' }).first().click();
      await toast('No duplicates found');
      await page.getByRole('button', { name: 'Check duplicates HAMPTON INN AUSTIN TX PENDING' }).click();
      await toast('Duplicate detected: 1 similar transactions found');
      await page.getByRole('link', { name: 'Review duplicates' }).first().click();
      await page.waitForURL('**/ai-dashboard?tab=duplicates');
      expect(await page.getByRole('tab', { name: 'Duplicate Detection' }).getAttribute('aria-selected')).toBe('true');
    });

    it('runs a batch of 100, then confirms one pending group and dismisses another', async () => {
      await page.getByRole('button', { name: 'Run duplicate detection' }).click();
      await expect.poll(() => page.getByTestId('batch-processed').textContent(), { timeout: 60_000 }).toBe(String(Math.min(100, seeded)));
      expect(Number(await page.getByTestId('batch-found').textContent())).toBeGreaterThanOrEqual(2);
      const rows = page.getByRole('table', { name: 'Duplicate groups' }).locator('tbody tr');
      await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(2);
      await shot(page, '92-ai-dashboard-duplicates');

      const pending = rows.filter({ has: page.getByRole('button', { name: 'Confirm' }) });
      const before = await pending.count();
      expect(before).toBeGreaterThanOrEqual(2);
      await pending.first().getByRole('button', { name: 'Confirm' }).click();
      await toast('Duplicate group confirmed');
      await expect.poll(() => pending.count()).toBe(before - 1);
      await pending.first().getByRole('button', { name: 'Dismiss' }).click();
      await toast('Duplicate group dismissed');
      await expect.poll(() => pending.count()).toBe(before - 2);
      const statuses = await rows.locator('td:nth-child(4)').allTextContents();
      expect(statuses).toContain('confirmed');
      expect(statuses).toContain('dismissed');
      await shot(page, '93-ai-dashboard-duplicates-resolved');
    });

    it('shows the Overview figures from what happened, and a trip from an uploaded calendar with its spending', async () => {
      await page.getByRole('tab', { name: 'Overview' }).click();
      await expect.poll(() => page.getByTestId('stat-accuracy').textContent()).toBe('50%'); // one Yes, one No
      expect(Number(await page.getByTestId('stat-predictions').textContent())).toBeGreaterThanOrEqual(3);
      expect(Number(await page.getByTestId('stat-groups').textContent())).toBeGreaterThanOrEqual(2);
      expect(Number(await page.getByTestId('stat-prevented').textContent())).toBeGreaterThanOrEqual(1);

      await page.getByTestId('calendar-input').setInputFiles({ name: 'trips.ics', mimeType: 'text/calendar', buffer: Buffer.from(ICS) });
      await page.getByRole('button', { name: 'Upload calendar' }).click();
      await toast('1 calendar events imported');
      const trips = page.getByRole('table', { name: 'Trips' });
      await expect.poll(() => trips.textContent(), { timeout: 20_000 }).toContain('Austin site visit');
      // The hotel charge and its pending repeat fall inside the trip's days and name its city.
      const trip = trips.locator('tbody tr', { hasText: 'Austin site visit' });
      expect(await trip.locator('td').nth(3).textContent()).toBe('2');
      expect(await trip.locator('td').nth(4).textContent()).toBe('$821.70');
      await shot(page, '94-ai-dashboard-overview');
    });

    it('correlates the hotel charge with the trip in the AI Analysis modal', async () => {
      await page.goto(`${server.url}/transactions`);
      await page.getByRole('button', { name: 'AI analysis HAMPTON INN AUSTIN TX PENDING' }).click();
      await expect.poll(() => section('Calendar Correlation').textContent(), { timeout: 30_000 }).toContain('Austin site visit');
      await page.keyboard.press('Escape');
    });

    it('lists the recurring patterns of the ledger', async () => {
      await page.goto(`${server.url}/ai-dashboard?tab=recurring`);
      const table = page.getByRole('table', { name: 'Recurring patterns' });
      await expect.poll(() => table.locator('tbody tr').count(), { timeout: 30_000 }).toBeGreaterThan(1);
      const procore = table.locator('tbody tr', { hasText: 'PROCORE TECH' });
      expect(await procore.textContent()).toMatch(/monthly/i);
      await shot(page, '95-ai-dashboard-recurring');
    });
  });
});
