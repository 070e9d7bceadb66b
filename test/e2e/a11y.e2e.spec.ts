import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../support/process';
import { registerAccount, type Account, type Api } from '../support/harness';
import { BANK_CSV, labels } from '../support/labelled-reader';
import { browserSuite, launch, shot } from '../e2e-support/browser';
import { uploadUntilPending } from '../e2e-support/seed';

const NAME = 'accessibility and the review queue: axe-core (WCAG 2.0/2.1/2.2 A and AA) on every route and modal as an admin with data; one dialog that keeps and returns focus; skip link, page titles, focus on the heading';
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const ROUTES = ['/dashboard', '/transactions', '/receipts', '/matches', '/review', '/import', '/exports', '/profile', '/company-settings', '/master-data-settings', '/settings', '/ai-dashboard', '/llm-test', '/system'];

/** Runs axe in the page (plain JavaScript: the tests compile without the DOM's types); one line per violating node. */
const RUN_AXE = `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'] }, resultTypes: ['violations'] })
  .then((r) => r.violations.flatMap((v) => v.nodes.map((n) => v.id + ': ' + n.target.join(' ') + ' ' + (n.failureSummary || '').split('\\n').slice(1, 2).join(''))))`;

/** Where focus is: inside the open dialog, and a description of the element. */
const FOCUS_IN_DIALOG = `(() => { const a = document.activeElement; const d = document.querySelector('[role="dialog"]'); return { inside: !!d && d.contains(a), what: a ? a.tagName + ' ' + (a.getAttribute('aria-label') || a.textContent || '').trim().slice(0, 40) : 'none' }; })()`;

interface Truth { receipt_to_transaction: Record<string, unknown> }

browserSuite(NAME, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-e2e-a11y-'));
  let server: ServerProcess;
  let browser: Browser;
  let ada: Account;
  const truth = JSON.parse(readFileSync(join(BANK_CSV, 'chase.truth.json'), 'utf8')) as Truth;
  const picked = labels.filter((l) => truth.receipt_to_transaction[l.id]).slice(0, 10);

  beforeAll(async () => {
    server = await startServerProcess({ DATA_DIR: dir, OCR_WORKERS: '2' });
    const api = { http: request(server.url) } as unknown as Api;
    ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin', companyName: 'Axe Works' });
    expect((await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', readFileSync(join(BANK_CSV, 'chase.csv')), 'chase.csv')).status).toBe(200);
    await uploadUntilPending(api, ada, picked.map((l) => l.id));
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function signIn(): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1366, height: 768 }, bypassCSP: true })).newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await page.goto(`${server.url}/auth`);
    await page.getByLabel('Email').fill(ada.email);
    await page.getByLabel('Password', { exact: true }).fill(ada.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL('**/dashboard');
    return page;
  }

  /** axe-core injected as a script tag (the context bypasses the CSP only for this inspection script). */
  async function axe(page: Page, where: string): Promise<void> {
    if (!(await page.evaluate<boolean>('typeof axe !== "undefined"'))) await page.addScriptTag({ content: AXE });
    expect(await page.evaluate<string[]>(RUN_AXE), where).toEqual([]);
  }

  /** The modals of the app, each opened from a row's button. */
  const MODALS: Array<[string, string, (p: Page) => Locator]> = [
    ['/receipts', 'receipt details', (p) => p.getByRole('button', { name: /^View / }).first()],
    ['/receipts', 'receipt history', (p) => p.getByRole('button', { name: /^History of / }).first()],
    ['/transactions', 'transaction history', (p) => p.getByRole('button', { name: /^History of / }).first()],
    ['/transactions', 'AI analysis', (p) => p.getByRole('button', { name: /^AI analysis / }).first()],
    ['/matches', 'match history', (p) => p.getByRole('button', { name: /^History of / }).first()],
  ];

  describe(NAME, () => {
    it('no axe violation on any route; each has its own title and its h1 takes focus after a navigation; the skip link reaches the content', async () => {
      const page = await signIn();
      const titles = new Set<string>();
      for (const route of ROUTES) {
        await page.goto(`${server.url}${route}`);
        await page.locator('main h1').first().waitFor();
        await page.waitForLoadState('networkidle');
        await axe(page, route);
        titles.add(await page.title());
      }
      expect(titles.size).toBe(ROUTES.length);
      // A navigation inside the app moves focus to the new page's heading.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Matches' }).click();
      await page.waitForURL('**/matches');
      await expect.poll(() => page.evaluate<string>('document.activeElement.tagName + " " + document.activeElement.textContent')).toMatch(/^H1 Matches/);
      expect(await page.title()).toBe('Matches · Paperlink');
      // The first Tab stop is the skip link; following it puts focus on the page's content.
      await page.reload();
      await page.locator('main h1').first().waitFor();
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to content');
      await page.keyboard.press('Enter');
      expect(await page.evaluate<string>('document.activeElement.id')).toBe('main-content');
      await page.context().close();
    }, 240_000);

    it('every modal: no axe violation; opened from the keyboard it takes focus, Tab and Shift+Tab stay inside, Escape closes it and focus returns to its button', async () => {
      const page = await signIn();
      for (const [route, name, opener] of MODALS) {
        await page.goto(`${server.url}${route}`);
        const button = opener(page);
        await button.waitFor();
        await button.focus();
        await page.keyboard.press('Enter');
        const dialog = page.getByRole('dialog');
        await dialog.waitFor();
        await page.waitForLoadState('networkidle');
        await expect.poll(() => page.evaluate<{ inside: boolean }>(FOCUS_IN_DIALOG).then((f) => f.inside), { message: `${name}: focus moves into the dialog` }).toBe(true);
        await axe(page, name);
        for (let i = 0; i < 12; i++) {
          await page.keyboard.press(i < 8 ? 'Tab' : 'Shift+Tab');
          const f = await page.evaluate<{ inside: boolean; what: string }>(FOCUS_IN_DIALOG);
          expect(f.inside, `${name}: Tab ${i + 1} left the dialog for ${f.what}`).toBe(true);
        }
        await shot(page, `a11y-${name.replace(/ /g, '-')}`);
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
        expect(await button.evaluate((b) => b === (b.ownerDocument as unknown as { activeElement: unknown }).activeElement), `${name}: focus back on its button`).toBe(true);
      }
      await page.context().close();
    }, 240_000);

    it('the review queue: ten pending matches worked through with the keyboard alone, focus staying in the queue; ? lists the shortcuts', async () => {
      const page = await signIn();
      const queue = page.getByTestId('review-queue');
      const left = page.getByTestId('queue-left');
      const focusInQueue = () => page.evaluate<boolean>('!!document.querySelector(\'[data-testid="review-queue"]\')?.contains(document.activeElement)');
      const leftCount = async () => Number(/^(\d+) left/.exec((await left.textContent()) ?? '')?.[1] ?? 0);
      await page.goto(`${server.url}/review`);
      await queue.waitFor();
      await expect.poll(focusInQueue, { message: 'the queue takes focus on arrival' }).toBe(true);
      const start = await leftCount();
      expect(start).toBeGreaterThanOrEqual(10);
      // ? opens the list of shortcuts in the dialog; Escape gives the focus back to the queue.
      await page.keyboard.press('?');
      const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await help.waitFor();
      expect(await help.textContent()).toContain('Confirm this match');
      await axe(page, 'review queue shortcuts');
      await page.keyboard.press('Escape');
      await help.waitFor({ state: 'detached' });
      expect(await focusInQueue()).toBe(true);
      // Next and previous.
      await page.keyboard.press('n');
      await expect.poll(() => left.textContent()).toMatch(/match 2 of/);
      await page.keyboard.press('ArrowLeft');
      await expect.poll(() => left.textContent()).toMatch(/match 1 of/);
      // Ten decisions, confirm and reject in turn, the count going down by one each time.
      const decided: string[] = [];
      for (let i = 0; i < 10; i++) {
        decided.push((await page.getByTestId('queue-item').getAttribute('data-match-id'))!);
        await page.keyboard.press(i % 3 === 2 ? 'r' : 'c');
        await expect.poll(leftCount, { message: `decision ${i + 1}` }).toBe(start - i - 1);
        expect(await focusInQueue(), `focus after decision ${i + 1}`).toBe(true);
      }
      expect(new Set(decided).size).toBe(10);
      await shot(page, 'review-queue-after-ten');
      // The server holds the decisions.
      const confirmed = (await request(server.url).get('/api/matches?status=confirmed&limit=50').set(ada.headers())).body as Array<{ id: string }>;
      const confirmedIds = new Set((Array.isArray(confirmed) ? confirmed : []).map((m) => m.id));
      expect(decided.filter((_id, i) => i % 3 !== 2).every((id) => confirmedIds.has(id))).toBe(true);
      await page.context().close();
    }, 240_000);
  });
});
