import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../support/process';
import { RECEIPTS_DEV, labels } from '../support/labelled-reader';
import { browserSuite, launch, registerInBrowser } from '../e2e-support/browser';

const NAME = 'the web app under its Content-Security-Policy in Debian chromium: no violation on any screen, receipts preview and open';

/** The CSP the server sends is one the built app runs under, untouched. */
browserSuite(NAME, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-e2e-csp-'));
  let server: ServerProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const violations: string[] = [];

  beforeAll(async () => {
    server = await startServerProcess({ DATA_DIR: dir, OCR_WORKERS: '1' });
    browser = await launch();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // Reports every violation, also those the page's own code swallows (a caught eval probe).
    await context.addInitScript({
      content: "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI + ' at ' + e.sourceFile + ':' + e.lineNumber + ':' + e.columnNumber));",
    });
    page = await context.newPage();
    // The app's own documents. (A receipt opened in a new tab is a blob: document that inherits
    // the policy; Chrome's built-in image viewer there gets its inline styles refused, which
    // only costs it its dark background: checked below by the image being shown.)
    page.on('console', (m) => {
      if (/Content Security Policy|CSP violation|Refused to/i.test(m.text())) violations.push(`${m.location().url}: ${m.text()}`);
    });
    page.on('pageerror', (e) => violations.push(`page error: ${e.message}`));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe(NAME, () => {
    it('the index carries the policy, and no screen breaks it', async () => {
      const res = await page.goto(`${server.url}/auth`);
      const csp = res!.headers()['content-security-policy'] ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      await registerInBrowser(page, server.url, { firstName: 'Cy', lastName: 'Policy', email: `cy-${Date.now()}@example.com`, company: 'Policy Works', password: 'Passw0rdOK' });
      for (const path of ['/dashboard', '/transactions', '/receipts', '/matches', '/import', '/profile', '/company-settings', '/master-data-settings']) {
        await page.goto(`${server.url}${path}`);
        await page.waitForLoadState('networkidle');
      }
      expect(violations).toEqual([]);
    });

    it('a receipt shows its preview and opens in a new tab under the policy', async () => {
      const l = labels[0]!;
      await page.goto(`${server.url}/receipts`);
      await page.getByTestId('receipt-input').setInputFiles(join(RECEIPTS_DEV, `${l.id}.jpg`));
      await expect.poll(() => page.getByTestId('processing-status').allTextContents(), { timeout: 90_000, interval: 500 }).toEqual(['completed']);
      await page.getByRole('button', { name: `View ${l.id}.jpg` }).click();
      const dialog = page.getByRole('dialog');
      await expect.poll(() => dialog.getByRole('img').isVisible()).toBe(true);
      const popup = page.waitForEvent('popup');
      await dialog.getByRole('button', { name: 'Open in New Tab' }).click();
      const tab = await popup;
      await tab.waitForLoadState();
      expect(tab.url()).toMatch(/^blob:/);
      await expect.poll(() => tab.evaluate<number>("document.querySelector('img')?.naturalWidth ?? 0")).toBeGreaterThan(0);
      await tab.close();
      expect(violations).toEqual([]);
    }, 120_000);

    it('a PDF receipt shows its thumbnail and opens in a new tab under the policy', async () => {
      const PDFDocument = (await import('pdfkit')).default;
      const doc = new PDFDocument({ size: 'A6' });
      const chunks: Buffer[] = [];
      doc.on('data', (c: Buffer) => chunks.push(c));
      const done = new Promise<void>((r) => doc.on('end', () => r()));
      doc.text('CORNER CAFE\n2024-03-01\nTOTAL 4.50');
      doc.end();
      await done;
      const file = join(dir, 'cafe.pdf');
      writeFileSync(file, Buffer.concat(chunks));
      await page.goto(`${server.url}/receipts`);
      await page.getByTestId('receipt-input').setInputFiles(file);
      await expect.poll(() => page.getByRole('button', { name: 'View cafe.pdf' }).isVisible(), { timeout: 30_000 }).toBe(true);
      await page.getByRole('button', { name: 'View cafe.pdf' }).click();
      const dialog = page.getByRole('dialog');
      await expect.poll(() => dialog.getByRole('img').isVisible(), { timeout: 30_000 }).toBe(true);
      const popup = page.waitForEvent('popup');
      await dialog.getByRole('button', { name: 'Open in New Tab' }).click();
      const tab = await popup;
      await tab.waitForLoadState();
      expect(tab.url()).toMatch(/^blob:/);
      await tab.close();
      expect(violations).toEqual([]);
    }, 120_000);
  });
});
