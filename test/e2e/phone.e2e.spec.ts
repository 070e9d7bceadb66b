import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../support/process';
import { invite, registerAccount, type Account, type Api } from '../support/harness';
import { BANK_CSV, labels } from '../support/labelled-reader';
import { browserSuite, launch, shot } from '../e2e-support/browser';
import { uploadUntilPending } from '../e2e-support/seed';

const NAME = 'every screen on a phone (390 x 844) and a laptop (1366 x 768): no sideways scroll, the menu folds, every row action in reach, receipt images on /matches, a member\'s search';
const ROUTES = [['/dashboard', /^Dashboard/], ['/transactions', /^Transactions$/], ['/receipts', /^Receipts$/], ['/matches', /^Matches$/], ['/import', /^Import Transactions$/], ['/exports', /^Export Reports$/]] as const;

/**
 * Run in the page: every action button of every table row must be shown, enabled, inside the
 * window's width and the element under its centre once scrolled to (nothing covers it); no table
 * box may scroll sideways (an action hidden off to the right). Plain JavaScript: the tests are
 * compiled without the DOM's types.
 */
const ROW_ACTION_CHECK = `(() => {
  const out = [];
  for (const box of document.querySelectorAll('.table-scroll')) {
    if (box.scrollWidth > box.clientWidth + 1) out.push('a table is ' + (box.scrollWidth - box.clientWidth) + ' px wider than its box');
  }
  const buttons = [...document.querySelectorAll('table tbody td.actions button')];
  buttons.forEach((b, i) => {
    window.scrollTo(0, window.scrollY + b.getBoundingClientRect().top - window.innerHeight / 2);
    const r = b.getBoundingClientRect();
    const name = i + ' ' + (b.getAttribute('aria-label') || b.textContent);
    if (r.width === 0 || r.height === 0 || getComputedStyle(b).visibility === 'hidden') out.push(name + ': not shown');
    else if (b.disabled) out.push(name + ': disabled');
    else if (r.left < 0 || r.right > window.innerWidth + 0.5) out.push(name + ': outside the window (' + Math.round(r.left) + '-' + Math.round(r.right) + ' of ' + window.innerWidth + ')');
    else {
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!hit || !b.contains(hit)) out.push(name + ': covered by ' + (hit ? hit.tagName + '.' + hit.className : 'nothing'));
    }
  });
  return { count: buttons.length, out };
})()`;

interface Truth {
  receipt_to_transaction: Record<string, { date: string; description: string; amount: number } | null>;
}

browserSuite(NAME, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-e2e-phone-'));
  let server: ServerProcess;
  let browser: Browser;
  let api: Api;
  let ada: Account;
  let bo: Account;
  const truth = JSON.parse(readFileSync(join(BANK_CSV, 'chase.truth.json'), 'utf8')) as Truth;
  const picked = labels.filter((l) => truth.receipt_to_transaction[l.id]).slice(0, 3);

  beforeAll(async () => {
    server = await startServerProcess({ DATA_DIR: dir, OCR_WORKERS: '2' });
    api = { http: request(server.url) } as unknown as Api;
    ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin', companyName: 'Phone Works' });
    const imp = await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', readFileSync(join(BANK_CSV, 'chase.csv')), 'chase.csv');
    expect(imp.status, JSON.stringify(imp.body)).toBe(200);
    // Bo, a plain member, holds one line of the company; Ada another with a like name.
    bo = await registerAccount(api, { firstName: 'Bo', lastName: 'Berg', companyName: 'Bo Co' });
    await invite(api, ada, bo, 'user');
    const named = 'Transaction Date,Description,Amount,Category,Job Number,Cost Code,First Name,Last Name\n2024-02-10,GREEN LANTERN HARDWARE,-41.10,,,,Bo,Berg\n2024-02-11,GREEN LANTERN CAFE,-9.80,,,,Ada,Admin\n';
    expect((await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', Buffer.from(named), 'named.csv')).body).toMatchObject({ imported: 2 });
    await uploadUntilPending(api, ada, picked.map((l) => l.id));
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function signIn(width: number, height: number, who = ada): Promise<Page> {
    const phone = width < 500;
    const context = await browser.newContext({ viewport: { width, height }, isMobile: phone, hasTouch: phone, deviceScaleFactor: 1 });
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await page.goto(`${server.url}/auth`);
    // Bo works in Ada's company: his stored choice is it, not his own.
    await page.evaluate(`localStorage.setItem('currentCompanyId', ${JSON.stringify(ada.companyId)})`);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password', { exact: true }).fill(who.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL('**/dashboard');
    return page;
  }

  /** How far the page reaches past the window's width (0: no sideways scroll). */
  const overflow = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');

  /**
   * Every action button of every table row: shown, enabled, inside the window's width, and the
   * element under its centre once scrolled to (nothing covers it). In the page, one round trip;
   * the first and last also go through Playwright's own actionability checks.
   */
  async function checkRowActions(page: Page, route: string) {
    const problems = await page.evaluate<{ count: number; out: string[] }>(ROW_ACTION_CHECK);
    expect(problems.out, route).toEqual([]);
    const buttons = page.locator('table tbody td.actions button');
    if (problems.count > 0) {
      await buttons.first().click({ trial: true, timeout: 5_000 });
      await buttons.last().click({ trial: true, timeout: 5_000 });
    }
    return problems.count;
  }

  for (const [width, height] of [[390, 844], [1366, 768]] as const) {
    describe(`${NAME} at ${width} x ${height}`, () => {
      it('no page scrolls sideways; every row action is visible and clickable; a screenshot of each', async () => {
        const page = await signIn(width, height);
        const counts: Record<string, number> = {};
        for (const [route, heading] of ROUTES) {
          await page.goto(`${server.url}${route}`);
          await page.getByRole('heading', { level: 1, name: heading }).first().waitFor();
          await page.waitForLoadState('networkidle');
          expect(await overflow(page), `${route} at ${width} px`).toBeLessThanOrEqual(0);
          counts[route] = await checkRowActions(page, route);
          await shot(page, `phone-${width}x${height}${route.replace('/', '-')}`);
        }
        // The lists with rows really had actions to check.
        expect(counts['/transactions']).toBeGreaterThan(0);
        expect(counts['/receipts']).toBeGreaterThan(0);
        expect(counts['/matches']).toBeGreaterThanOrEqual(picked.length * 2);
        await page.context().close();
      }, 180_000);
    });
  }

  describe(`${NAME}: navigation and images`, () => {
    it('on a phone the page links fold into a menu that opens, navigates and closes', async () => {
      const page = await signIn(390, 844);
      const nav = page.getByRole('navigation', { name: 'Main' });
      const menu = page.locator('button[aria-controls="main-nav"]');
      await menu.waitFor();
      expect(await menu.textContent()).toBe('Menu');
      expect(await nav.getByRole('link', { name: 'Matches' }).isVisible()).toBe(false);
      const headerHeight = await page.locator('header.navbar').evaluate((h) => h.getBoundingClientRect().height);
      expect(headerHeight).toBeLessThan(80);
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      await nav.getByRole('link', { name: 'Matches' }).click();
      await page.waitForURL('**/matches');
      await expect.poll(() => nav.getByRole('link', { name: 'Matches' }).isVisible()).toBe(false);
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      await shot(page, 'phone-390x844-matches-menu-closed');
      await page.context().close();
    }, 60_000);

    it('a plain member finds his transaction by a fragment of its merchant, never another member\'s; the search stays in the URL', async () => {
      const page = await signIn(390, 844, bo);
      await page.goto(`${server.url}/transactions`);
      const box = page.getByRole('searchbox', { name: 'Search transactions' });
      const rows = page.getByRole('table', { name: 'Transactions' }).locator('tbody tr');
      await box.fill('lantern');
      await page.waitForURL(/[?&]q=lantern/);
      await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining('GREEN LANTERN HARDWARE')]);
      await page.reload();
      expect(await box.inputValue()).toBe('lantern');
      await expect.poll(() => rows.count()).toBe(1);
      await shot(page, 'search-member-390');
      // Ada's line with a like name: the server never shows it to Bo.
      await box.fill('lantern cafe');
      await page.waitForURL(/[?&]q=lantern(\+|%20)cafe/);
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'No transactions match "lantern cafe".' }).count()).toBe(1);
      expect(await rows.count()).toBe(0);
      // As the admin, the same search finds it.
      const admin = await signIn(1366, 768);
      await admin.goto(`${server.url}/transactions?q=lantern%20cafe`);
      await expect.poll(() => admin.getByRole('table', { name: 'Transactions' }).locator('tbody tr').allTextContents()).toEqual([expect.stringContaining('GREEN LANTERN CAFE')]);
      await page.context().close();
      await admin.context().close();
    }, 60_000);

    it('the matches screen shows each receipt\'s thumbnail beside its card line', async () => {
      const page = await signIn(1366, 768);
      const thumbs: string[] = [];
      page.on('response', (r) => {
        const m = /\/api\/receipts\/([^/]+)\/thumbnail$/.exec(r.url());
        if (m && r.status() === 200 && r.headers()['content-type']?.startsWith('image/jpeg')) thumbs.push(m[1]!);
      });
      await page.goto(`${server.url}/matches`);
      const pending = (await api.http.get('/api/matches/pending').set(ada.headers())).body as Array<{ receipt_id: string; original_filename: string }>;
      for (const m of pending) {
        const img = page.getByTestId(`match-${m.original_filename}`).getByRole('img', { name: `Receipt ${m.original_filename}` });
        await img.waitFor();
        await expect.poll(() => img.evaluate((i) => (i as unknown as { complete: boolean; naturalWidth: number }).complete && (i as unknown as { naturalWidth: number }).naturalWidth > 0)).toBe(true);
        expect(await img.getAttribute('data-receipt-id')).toBe(m.receipt_id);
        expect(await img.getAttribute('src')).toMatch(/^blob:/);
      }
      expect(new Set(thumbs)).toEqual(new Set(pending.map((m) => m.receipt_id)));
      await shot(page, 'matches-thumbnails-1366');
      await page.context().close();
    }, 60_000);
  });
});
