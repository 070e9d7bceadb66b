import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../support/process';
import { invite, registerAccount, type Account, type Api } from '../support/harness';
import { BANK_CSV, labels, RECEIPTS_DEV } from '../support/labelled-reader';
import { browserSuite, launch, shot } from '../e2e-support/browser';

const NAME = 'dashboard in Debian chromium: every tab as admin, the user overview, cards against seeded data, Data Quality link, auto-match toast';

interface Truth {
  receipt_to_transaction: Record<string, { date: string; description: string; amount: number } | null>;
}
interface Tx { transaction_date: string; amount: number; receipt_count: number; description: string | null; category_name: string | null; job_number_name: string | null; cost_code_name: string | null }
interface Rc { processing_status: string; match_count: number; extracted_amount: number | null }
interface Mt { id: string; user_confirmed: boolean }

// The figures as the screen prints them, computed here from the lists (not from the analytics read model).
const usd = (n: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(n);
const pct = (part: number, whole: number) => {
  const r = whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0;
  return `${Number.isInteger(r) ? r.toFixed(0) : r.toFixed(1)}%`;
};
const blank = (v: string | null) => v === null || v.trim() === '';
/** Spec section 4, recomputed independently of the web app's own function. */
const health = (processing: number, match: number) => 100 - (processing < 80 ? 20 : 0) - (match < 70 ? 15 : 0);

browserSuite(NAME, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-e2e-dash-'));
  let server: ServerProcess;
  let browser: Browser;
  let api: Api;
  let ada: Account;
  let uma: Account;
  const truth = JSON.parse(readFileSync(join(BANK_CSV, 'chase.truth.json'), 'utf8')) as Truth;
  const picked = labels.filter((l) => truth.receipt_to_transaction[l.id]).slice(0, 3);
  const chase = readFileSync(join(BANK_CSV, 'chase.csv'), 'utf8').trim().split(/\r?\n/);
  // Uma's statement: the card line of her receipt, and one line without a category.
  const umaTruth = truth.receipt_to_transaction[picked[2]!.id]!;
  const [y, m, d] = umaTruth.date.split('-');
  const umaLine = chase.find((l) => l.startsWith(`${m}/${d}/${y},`) && l.includes(umaTruth.description) && l.includes(umaTruth.amount.toFixed(2)))!;
  const umaCsv = [chase[0], umaLine, '11/01/2018,11/02/2018,OFFICE PAPER CO,,Sale,-12.34,'].join('\n');
  const adaCsv = chase.filter((l) => l !== umaLine).join('\n');

  const get = async <T>(who: Account, path: string): Promise<T> => {
    const res = await api.http.get(`/api${path}`).set(who.headers(ada.companyId));
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    return res.body as T;
  };
  const all = async <T>(who: Account, path: string, key: string): Promise<T[]> => {
    const out: T[] = [];
    for (let page = 1; ; page++) {
      const body = await get<Record<string, unknown> & { pagination: { pages: number } }>(who, `${path}?page=${page}&limit=200`);
      out.push(...(body[key] as T[]));
      if (page >= body.pagination.pages) return out;
    }
  };

  beforeAll(async () => {
    expect(umaLine).toBeTruthy();
    server = await startServerProcess({ DATA_DIR: dir, OCR_WORKERS: '2' });
    api = { http: request(server.url) } as unknown as Api;
    ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin', companyName: 'Dash Works' });
    uma = await registerAccount(api, { firstName: 'Uma', lastName: 'User', companyName: 'Uma Studio' });
    await invite(api, ada, uma, 'user');
    for (const [who, csv] of [[ada, adaCsv], [uma, umaCsv]] as const) {
      const res = await api.http.post('/api/transactions/import').set(who.headers(ada.companyId)).attach('csvFile', Buffer.from(csv), 'statement.csv');
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    }
    for (const [who, label] of [[ada, picked[0]!], [ada, picked[1]!], [uma, picked[2]!]] as const) {
      const res = await api.http.post('/api/receipts/upload').set(who.headers(ada.companyId)).attach('receipt', join(RECEIPTS_DEV, `${label.id}.jpg`));
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    }
    // OCR reads the three receipts (and the auto-match job follows it).
    const deadline = Date.now() + 120_000;
    while ((await all<Rc>(ada, '/receipts', 'receipts')).filter((r) => r.processing_status === 'completed' || r.processing_status === 'failed').length < 3) {
      if (Date.now() > deadline) throw new Error('OCR did not finish the three receipts in 120 s');
      await new Promise((r) => setTimeout(r, 500));
    }
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const violations: string[] = [];
  async function signIn(who: Account): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => violations.push(`page error: ${e.message}`));
    page.on('console', (msg) => {
      if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
    });
    await page.goto(`${server.url}/auth`);
    // Both work in Ada's company: Uma's stored choice is it, not her own.
    await page.evaluate(`localStorage.setItem('currentCompanyId', ${JSON.stringify(ada.companyId)})`);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password', { exact: true }).fill(who.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL('**/dashboard');
    return page;
  }
  const text = (page: Page, testId: string) => page.getByTestId(testId).textContent();
  const toast = (page: Page, t: string) => expect.poll(() => page.getByText(t).first().isVisible(), { timeout: 15_000 }).toBe(true);

  /** Auto-Match Receipts: the toast names the count the server answered. */
  async function autoMatch(page: Page) {
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/matches/auto-match'));
    await page.getByRole('button', { name: 'Auto-Match Receipts' }).click();
    const res = await answer;
    expect(res.request().postDataJSON()).toEqual({ threshold: 70 });
    const { matched } = (await res.json()) as { matched: number };
    // Green only when something was matched.
    await toast(page, matched > 0 ? `Auto-matched ${matched} receipt${matched === 1 ? '' : 's'}!` : 'Auto-match found no new match');
  }

  /** The overview cards against the lists this person can read. */
  async function checkOverview(page: Page, who: Account, admin: boolean) {
    const [txs, rcs, mts] = await Promise.all([all<Tx>(who, '/transactions', 'transactions'), all<Rc>(who, '/receipts', 'receipts'), get<Mt[]>(who, '/matches')]);
    const confirmed = mts.filter((x) => x.user_confirmed).length;
    const processed = rcs.filter((r) => r.processing_status === 'completed').length;
    const matchedReceipts = rcs.filter((r) => r.match_count > 0).length;
    await expect.poll(() => text(page, 'card-total-matches-value')).toBe(String(mts.length));
    await expect.poll(() => text(page, 'card-total-matches-sub')).toBe(`${pct(confirmed, mts.length)} confirmed`);
    await expect.poll(() => text(page, 'card-processing-efficiency-value')).toBe(pct(processed, rcs.length));
    expect(await text(page, 'card-pending-review-value')).toBe(String(mts.length - confirmed));
    expect(await text(page, 'card-pending-review-sub')).toBe(`${rcs.length - matchedReceipts} unmatched receipts`);
    // System Health is the admins' card; a member gets none.
    if (admin) {
      const score = health(processed / rcs.length * 100, matchedReceipts / rcs.length * 100);
      expect(await text(page, 'card-system-health-sub')).toBe(`Score ${score}/100`);
      expect(await text(page, 'card-system-health-value')).toBe(score === 100 ? 'healthy' : 'warning');
    } else {
      expect(await page.getByTestId('card-system-health').count()).toBe(0);
    }
    // Data Quality: nobody filled job numbers or cost codes, so every transaction is incomplete.
    const incomplete = txs.filter((t) => blank(t.description) || blank(t.category_name) || blank(t.job_number_name) || blank(t.cost_code_name)).length;
    expect(incomplete).toBeGreaterThan(0);
    expect(await text(page, 'dq-incomplete')).toBe(String(incomplete));
    expect(await text(page, 'dq-completion')).toBe(pct(txs.length - incomplete, txs.length));
    const noCategory = txs.filter((t) => blank(t.category_name)).length;
    expect(await text(page, 'dq-missingCategory')).toBe(`Missing Category: ${noCategory} (${pct(noCategory, txs.length)})`);
    expect(await text(page, 'dq-missingJobNumber')).toBe(`Missing Job Number: ${txs.length} (100%)`);
    return { txs, rcs, mts };
  }

  describe(NAME, () => {
    it('a user: her own overview (no tabs, no admin cards), auto-match toast, figures of her data, the Data Quality link', async () => {
      const page = await signIn(uma);
      await page.getByRole('heading', { name: 'Dashboard', exact: true }).waitFor();
      await autoMatch(page);
      const { txs } = await checkOverview(page, uma, false);
      expect(txs).toHaveLength(2);
      expect(await page.getByRole('tab').count()).toBe(0);
      expect(await page.getByTestId('admin-cards').count()).toBe(0);
      expect(await page.getByRole('link', { name: 'Company Settings' }).count()).toBe(0);
      expect(await page.getByRole('table', { name: 'Recent transactions' }).locator('tbody tr').count()).toBe(2);
      // The chart's data table: one row per category of her expenses (blank ones as Uncategorized).
      await page.getByTestId('chart-spending-category').getByText('Show data table').click();
      const categories = new Set(txs.filter((t) => t.amount < 0).map((t) => (blank(t.category_name) ? 'Uncategorized' : t.category_name!.trim())));
      expect(await page.getByRole('table', { name: 'Spending by category data' }).locator('tbody tr').count()).toBe(categories.size);
      await expect.poll(() => page.locator('.recharts-wrapper').count(), { timeout: 15_000 }).toBe(2);
      await shot(page, '60-dashboard-user');
      await page.getByRole('region', { name: 'Data Quality' }).getByRole('link').click();
      await page.waitForURL('**/transactions');
      await page.context().close();
    }, 120_000);

    it('an admin: every tab, company-wide cards against the seeded data, measured figures, keyboard tabs', async () => {
      const page = await signIn(ada);
      await page.getByRole('heading', { name: 'Dashboard (Admin View)' }).waitFor();
      await autoMatch(page);
      // One match confirmed, then Refresh: the cards follow.
      const pending = await get<Mt[]>(ada, '/matches/pending');
      expect(pending.length).toBeGreaterThan(0);
      expect((await api.http.put(`/api/matches/${pending[0]!.id}/confirm`).set(ada.headers())).status).toBe(200);
      // Read models follow the events a moment later: wait until the match list shows it, then Refresh.
      await expect.poll(async () => (await get<Mt[]>(ada, '/matches')).filter((x) => x.user_confirmed).length).toBe(1);
      await expect.poll(async () => (await get<{ confirmed_matches: number }>(ada, '/matches/stats')).confirmed_matches).toBe(1);
      await page.getByRole('button', { name: 'Refresh' }).click();
      const { txs, rcs, mts } = await checkOverview(page, ada, true);
      const expenses = txs.filter((t) => t.amount < 0);
      const total = expenses.reduce((s, t) => s - t.amount, 0);
      const matched = expenses.filter((t) => t.receipt_count > 0).reduce((s, t) => s - t.amount, 0);
      expect(await text(page, 'card-total-expenses-value')).toBe(usd(total));
      expect(await text(page, 'card-matched-expenses-value')).toBe(usd(matched));
      const processed = rcs.filter((r) => r.processing_status === 'completed').length;
      expect(await text(page, 'card-processing-rate-value')).toBe(pct(processed, rcs.length));
      const cents = rcs.flatMap((r) => (r.extracted_amount === null ? [] : [Math.round(r.extracted_amount * 100)]));
      expect(await text(page, 'card-avg-receipt-value')).toBe(usd(cents.length ? Math.round(cents.reduce((s, a) => s + a, 0) / cents.length) / 100 : 0));
      expect(await page.getByRole('table', { name: 'Recent transactions' }).locator('tbody tr').count()).toBe(10);
      expect(await page.getByRole('tab').allTextContents()).toEqual(['Overview', 'Analytics', 'User Activity', 'Financial', 'System Health']);
      await shot(page, '61-dashboard-admin-overview');

      await page.getByRole('tab', { name: 'Analytics' }).click();
      const confirmed = mts.filter((x) => x.user_confirmed).length;
      expect(await text(page, 'an-auto-match-success-value')).toBe(pct(confirmed, mts.length));
      expect(await text(page, 'an-auto-match-success-sub')).toBe(`measured: ${confirmed} of ${mts.length} matches confirmed`);
      expect(await page.getByText('85%').count()).toBe(0);
      await expect.poll(() => page.locator('.recharts-wrapper').count(), { timeout: 15_000 }).toBe(1);
      await shot(page, '62-dashboard-admin-analytics');

      // Keyboard: the arrow key moves to User Activity and takes the focus along.
      await page.getByRole('tab', { name: 'Analytics' }).focus();
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.textContent')).toBe('User Activity');
      await expect.poll(() => page.getByTestId('activity-item').count()).toBeGreaterThan(0);
      const times = await page.locator('[data-testid="activity-item"] time').allTextContents();
      expect(times.every((t) => t === 'Just now')).toBe(true);
      expect(await page.getByTestId('activity-item').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('Uma User')]));
      await shot(page, '63-dashboard-admin-activity');

      await page.getByRole('tab', { name: 'Financial' }).click();
      expect(await text(page, 'fin-total-value')).toBe(usd(total));
      expect(await text(page, 'fin-unmatched-value')).toBe(usd(total - matched));
      const top = await page.getByTestId('top-category').allTextContents();
      expect(top.length).toBeGreaterThan(0);
      expect(top.length).toBeLessThanOrEqual(4);
      const byCategory = new Map<string, number>();
      for (const t of expenses) byCategory.set(t.category_name?.trim() || 'Uncategorized', (byCategory.get(t.category_name?.trim() || 'Uncategorized') ?? 0) - t.amount);
      const biggest = [...byCategory].sort((a, b) => b[1] - a[1])[0]!;
      expect(top[0]).toBe(`${biggest[0]} ${usd(biggest[1])}`);
      await expect.poll(() => page.locator('.recharts-wrapper').count(), { timeout: 15_000 }).toBe(2);
      // Spending over time by month: the last 12 months with transactions, each month's expenses summed here.
      const byMonth = new Map<string, number>();
      for (const t of expenses) byMonth.set(t.transaction_date.slice(0, 7), (byMonth.get(t.transaction_date.slice(0, 7)) ?? 0) - t.amount);
      const lastMonth = [...byMonth.keys()].sort().at(-1)!;
      expect(await text(page, 'chart-spending-time-note')).toContain('By month');
      await page.getByTestId('chart-spending-time').getByText('Show data table').click();
      const rows = await page.getByRole('table', { name: 'Spending over time data' }).locator('tbody tr').allInnerTexts();
      expect(rows).toHaveLength(12);
      expect(rows.at(-1)!.split('\t').slice(0, 2)).toEqual([lastMonth, usd(byMonth.get(lastMonth)!)]);
      for (const row of rows) {
        const [month, spent] = row.split('\t');
        expect(spent, month).toBe(usd(byMonth.get(month!) ?? 0));
      }
      // Keyboard: the chart is one tab stop, and the arrow keys walk its months (the tooltip shows each).
      const chart = page.getByTestId('chart-spending-time').locator('svg[role="application"]');
      const tooltip = () => page.getByTestId('chart-spending-time').locator('.recharts-tooltip-wrapper').innerText();
      await chart.focus();
      await expect.poll(tooltip).toContain(rows[0]!.split('\t')[0]!);
      await page.keyboard.press('ArrowRight');
      await expect.poll(tooltip).toContain(`${rows[1]!.split('\t')[0]!}\n\nExpenses : ${rows[1]!.split('\t')[1]!}`);
      await shot(page, '64-dashboard-admin-financial');

      await page.getByRole('tab', { name: 'System Health' }).click();
      await expect.poll(() => text(page, 'sh-response-value')).toMatch(/^\d+ ms$/);
      await expect.poll(() => text(page, 'sh-server-value')).toBe('ok');
      await expect.poll(() => text(page, 'sh-lag-value')).toMatch(/^\d+ events$/);
      await shot(page, '65-dashboard-admin-system-health');
      expect(page.url()).toContain('tab=health');
      expect(violations).toEqual([]);
      await page.context().close();
    }, 120_000);
  });
});
