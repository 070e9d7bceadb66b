import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO_ROOT } from '../support/process';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);
export const SCREENSHOTS = join(REPO_ROOT, '.artifacts', 'screenshots');

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Keeps a screenshot of the screen as a test artifact (not committed). */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * A browser suite, or, without chromium, the same suite reported as skipped by name (never
 * silently): `make test-e2e` installs chromium with apt.
 */
export function browserSuite(name: string, body: () => void): void {
  if (!chromiumAvailable) {
    console.warn(`SKIPPED ${name}: ${CHROMIUM} is not installed (make test-e2e installs it with apt)`);
    describe.skip(`${name} (skipped: no chromium at ${CHROMIUM})`, () => {
      it('runs the browser tests', () => {});
    });
    return;
  }
  body();
}

/** Creates an account through the sign-up screen and waits for the dashboard. */
export async function registerInBrowser(page: Page, baseUrl: string, who: { firstName: string; lastName: string; email: string; company: string; password: string }): Promise<void> {
  await page.goto(`${baseUrl}/auth`);
  await page.getByRole('tab', { name: 'Create Account' }).click();
  await page.getByLabel('First name').fill(who.firstName);
  await page.getByLabel('Last name').fill(who.lastName);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Company name').fill(who.company);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByLabel('Confirm password').fill(who.password);
  await page.getByRole('button', { name: 'Create Account' }).click();
  await page.waitForURL('**/dashboard');
}
