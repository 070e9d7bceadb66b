import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../support/process';
import { browserSuite, launch, shot } from '../e2e-support/browser';

const NAME = 'web shell in Debian chromium: sign-in, navigation, profile, company settings';

browserSuite(NAME, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-e2e-'));
  let server: ServerProcess;
  let browser: Browser;
  const ada = { firstName: 'Ada', lastName: 'Admin', email: `ada-${Date.now()}@example.com`, password: 'Passw0rdOK', company: 'Ada Works' };
  const uma = { firstName: 'Uma', lastName: 'User', email: `uma-${Date.now()}@example.com`, password: 'Passw0rdOK', company: 'Uma Studio' };

  beforeAll(async () => {
    server = await startServerProcess({ DATA_DIR: dir });
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function fresh(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    return { context, page };
  }

  async function register(page: Page, who: typeof ada) {
    await page.goto(`${server.url}/auth`);
    await page.getByRole('tab', { name: 'Create Account' }).click();
    await page.getByLabel('First name').fill(who.firstName);
    await page.getByLabel('Last name').fill(who.lastName);
    await page.getByLabel('Email').fill(`  ${who.email.toUpperCase()} `);
    await page.getByLabel('Company name').fill(who.company);
    await page.getByLabel('Password', { exact: true }).fill(who.password);
    await page.getByLabel('Confirm password').fill(who.password);
    await page.getByRole('button', { name: 'Create Account' }).click();
    await page.waitForURL('**/dashboard');
  }

  async function signIn(page: Page, email: string, password: string) {
    await page.goto(`${server.url}/auth`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign In' }).click();
  }

  describe(NAME, () => {
    it('registers, shows the welcome toast, and lands on the dashboard', async () => {
      const { context, page } = await fresh();
      await page.goto(`${server.url}/auth`);
      await shot(page, '01-auth-sign-in');
      await page.getByRole('tab', { name: 'Create Account' }).click();
      await page.getByRole('button', { name: 'Create Account' }).click();
      await expect.poll(() => page.getByText('First name is required').isVisible()).toBe(true);
      await page.getByLabel('First name').fill('A');
      expect(await page.getByText('First name is required').count()).toBe(0);
      await shot(page, '02-auth-register-errors');
      await register(page, ada);
      await expect.poll(() => page.getByText(`Welcome to Paperlink, ${ada.firstName}!`).isVisible()).toBe(true);
      await shot(page, '03-dashboard-after-register');
      await context.close();
    });

    it('signs out with a toast, refuses a wrong password with the message, then signs in', async () => {
      const { context, page } = await fresh();
      await signIn(page, ada.email, ada.password);
      await page.waitForURL('**/dashboard');
      // The welcome toast is up (top-right): the user menu beside it is still reachable.
      await expect.poll(() => page.getByText(`Welcome back, ${ada.firstName}!`).isVisible()).toBe(true);
      await page.getByTestId('user-menu').click({ timeout: 4000 });
      await expect.poll(() => page.getByText('Viewing all company data').isVisible()).toBe(true);
      await page.getByRole('menuitem', { name: 'Logout' }).click();
      await page.waitForURL('**/auth');
      await expect.poll(() => page.getByText('Logged out successfully').isVisible()).toBe(true);
      await signIn(page, ada.email, 'WrongPass1');
      await expect.poll(() => page.getByRole('alert').filter({ hasText: 'Invalid email or password' }).count()).toBeGreaterThan(0);
      await expect.poll(() => page.getByText('Login failed. Please try again.').isVisible()).toBe(true);
      await shot(page, '04-auth-wrong-password');
      await signIn(page, ada.email, ada.password);
      await page.waitForURL('**/dashboard');
      await expect.poll(() => page.getByText(`Welcome back, ${ada.firstName}!`).isVisible()).toBe(true);
      await context.close();
    });

    it('refuses a second account with the same email, with the server message', async () => {
      const { context, page } = await fresh();
      await page.goto(`${server.url}/auth`);
      await page.getByRole('tab', { name: 'Create Account' }).click();
      await page.getByLabel('First name').fill('Copy');
      await page.getByLabel('Last name').fill('Cat');
      await page.getByLabel('Email').fill(ada.email);
      await page.getByLabel('Company name').fill('Copycat Ltd');
      await page.getByLabel('Password', { exact: true }).fill('Passw0rdOK');
      await page.getByLabel('Confirm password').fill('Passw0rdOK');
      await page.getByRole('button', { name: 'Create Account' }).click();
      await expect.poll(() => page.getByText('Registration failed. Please try again.').isVisible()).toBe(true);
      await expect.poll(() => page.getByRole('alert').filter({ hasText: 'An account with this email already exists' }).count()).toBeGreaterThan(0);
      await context.close();
    });

    it('returns to the requested page after sign-in', async () => {
      const { context, page } = await fresh();
      await page.goto(`${server.url}/profile`);
      await page.waitForURL('**/auth');
      await page.getByLabel('Email').fill(ada.email);
      await page.getByLabel('Password').fill(ada.password);
      await page.getByRole('button', { name: 'Sign In' }).click();
      await page.waitForURL('**/profile');
      await context.close();
    });

    it('invites a member, changes their role, removes them; admin and plain user see different menus; two companies switch', async () => {
      // Uma registers her own company, then Ada invites her.
      const umaSide = await fresh();
      await register(umaSide.page, uma);
      const { context, page } = await fresh();
      await signIn(page, ada.email, ada.password);
      await page.waitForURL('**/dashboard');
      await page.goto(`${server.url}/company-settings`);
      await page.getByRole('tab', { name: 'Invite Users' }).click();
      await page.getByRole('button', { name: 'Send Invitation' }).click();
      await expect.poll(() => page.getByText('Email address is required').isVisible()).toBe(true);
      await page.getByLabel('Email address').fill('not-an-email');
      await page.getByRole('button', { name: 'Send Invitation' }).click();
      await expect.poll(() => page.getByText('Please enter a valid email address').isVisible()).toBe(true);
      await page.getByLabel('Email address').fill(uma.email);
      await page.getByRole('button', { name: 'Send Invitation' }).click();
      await expect.poll(() => page.getByText(`Invitation sent to ${uma.email}`).isVisible()).toBe(true);
      await page.getByRole('tab', { name: 'Team Members' }).click();
      const row = page.getByTestId(`member-${uma.email}`);
      await expect.poll(() => row.isVisible()).toBe(true);
      await shot(page, '05-company-team');

      // Uma now belongs to two companies: the selector appears; as a plain user in Ada's company her menu has no admin entries.
      await umaSide.page.reload();
      await umaSide.page.getByTestId('company-selector').click();
      await shot(umaSide.page, '06-company-selector');
      await umaSide.page.getByRole('menuitem', { name: /Ada Works/ }).click();
      await expect.poll(() => umaSide.page.getByTestId('company-selector').textContent()).toContain('Ada Works');
      await umaSide.page.getByTestId('user-menu').click();
      await expect.poll(() => umaSide.page.getByText('Viewing your personal data').isVisible()).toBe(true);
      expect(await umaSide.page.getByRole('menuitem', { name: 'Company Settings' }).count()).toBe(0);
      await shot(umaSide.page, '07-user-menu-plain-user');
      await page.getByTestId('user-menu').click();
      expect(await page.getByRole('menuitem', { name: 'Company Settings' }).count()).toBe(1);
      expect(await page.getByRole('menuitem', { name: 'Advanced Settings' }).count()).toBe(1);
      await page.keyboard.press('Escape');

      // Role change and removal.
      await row.getByRole('combobox').selectOption('manager');
      await expect.poll(() => page.getByText(`${uma.firstName} is now manager`).isVisible()).toBe(true);
      page.once('dialog', (d) => void d.accept());
      await row.getByRole('button', { name: 'Remove' }).click();
      await expect.poll(() => page.getByText(`${uma.firstName} ${uma.lastName} was removed`).isVisible()).toBe(true);
      await expect.poll(() => row.count()).toBe(0);
      await context.close();
      await umaSide.context.close();
    });

    it('edits the profile and changes the password', async () => {
      const { context, page } = await fresh();
      await signIn(page, ada.email, ada.password);
      await page.waitForURL('**/dashboard');
      await page.goto(`${server.url}/profile`);
      await page.getByLabel('First name').fill(' ');
      await page.getByRole('button', { name: 'Save Changes' }).click();
      await expect.poll(() => page.getByText('First name and last name are required').isVisible()).toBe(true);
      await page.getByLabel('First name').fill('Adela');
      await page.getByRole('button', { name: 'Save Changes' }).click();
      await expect.poll(() => page.getByText('Profile updated successfully').isVisible()).toBe(true);
      await expect.poll(() => page.getByTestId('user-menu').textContent()).toContain('Adela');
      await shot(page, '08-profile');
      await page.getByRole('tab', { name: 'Change Password' }).click();
      await page.getByLabel('Current password').fill(ada.password);
      await page.getByLabel('New password', { exact: true }).fill('NewPassw0rd');
      await page.getByLabel('Confirm new password').fill('Different1');
      await page.getByRole('button', { name: 'Change Password' }).click();
      await expect.poll(() => page.getByText('New passwords do not match').isVisible()).toBe(true);
      await page.getByLabel('Confirm new password').fill('NewPassw0rd');
      await page.getByRole('button', { name: 'Change Password' }).click();
      await expect.poll(() => page.getByText('Password changed successfully').isVisible()).toBe(true);
      await page.getByRole('tab', { name: 'Account Details' }).click();
      await shot(page, '09-account-details');
      await context.close();
      const again = await fresh();
      await signIn(again.page, ada.email, 'NewPassw0rd');
      await again.page.waitForURL('**/dashboard');
      await again.context.close();
    });
  });
});
