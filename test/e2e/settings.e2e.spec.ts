import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../support/process';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { imageOf, labels } from '../support/labelled-reader';
import { browserSuite, launch, registerInBrowser, shot } from '../e2e-support/browser';

const NAME = '/settings and /llm-test in Debian chromium, as an admin and as a user, against a local server in the Messages API shape';
const KEY = 'sk-ant-e2e-settings-not-a-real-key-42';

browserSuite(NAME, () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-e2e-settings-'));
  let fake: FakeAnthropic;
  let server: ServerProcess;
  let browser: Browser;
  let admin: { context: BrowserContext; page: Page };
  let user: { context: BrowserContext; page: Page };
  const stamp = Date.now();

  const stored = async (page: Page) => {
    const state = await page.context().storageState();
    return new Map(state.origins.flatMap((o) => o.localStorage.map((e) => [e.name, e.value] as const)));
  };
  const call = async (page: Page, method: string, path: string, body?: object) => {
    const s = await stored(page);
    const res = await fetch(`${server.url}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${s.get('accessToken')}`, 'x-company-id': s.get('currentCompanyId') ?? '', ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  const open = async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    return { context, page };
  };
  const dismissToasts = async (page: Page) => {
    for (const button of await page.locator('.Toastify__close-button').all()) await button.click().catch(() => undefined);
    await expect.poll(() => page.locator('.Toastify__toast').count(), { timeout: 5000 }).toBe(0);
  };
  const visible = (page: Page, text: string) => expect.poll(() => page.getByText(text, { exact: true }).first().isVisible(), { timeout: 20_000 }).toBe(true);

  beforeAll(async () => {
    fake = await startFakeAnthropic();
    server = await startServerProcess({ DATA_DIR: dir, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url, LLM_TIMEOUT_MS: '2000', LLM_MAX_RETRIES: '1' });
    browser = await launch();
    admin = await open();
    user = await open();
    await registerInBrowser(admin.page, server.url, { firstName: 'Ana', lastName: 'Admin', email: `ana-settings-${stamp}@example.com`, company: 'Settings Builders', password: 'Passw0rdOK' });
    await registerInBrowser(user.page, server.url, { firstName: 'Bo', lastName: 'User', email: `bo-settings-${stamp}@example.com`, company: 'Bo Own Co', password: 'Passw0rdOK' });
    for (const name of ['Travel', 'Meals', 'Office Supplies']) await call(admin.page, 'POST', '/masterdata/categories', { name });
    await call(admin.page, 'POST', '/companies/current/invite', { email: `bo-settings-${stamp}@example.com`, role: 'user' });
    // Bo works in Ana's company from now on
    const anaCompany = (await stored(admin.page)).get('currentCompanyId')!;
    await user.page.evaluate(`localStorage.setItem('currentCompanyId', ${JSON.stringify(anaCompany)}); localStorage.setItem('companyId', ${JSON.stringify(anaCompany)});`);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('admin: /settings lists the Models API models, Update Model waits for a choice, settings are edited, system info shows', async () => {
    const { page } = admin;
    await page.goto(`${server.url}/settings`);
    await visible(page, 'Connected');
    const update = page.getByRole('button', { name: 'Update Model', exact: true });
    await expect.poll(() => page.getByLabel('Primary model').locator('option').allTextContents()).toEqual(expect.arrayContaining(fake.models.map((m) => expect.stringContaining(m))));
    await page.getByLabel('Primary model').selectOption('');
    expect(await update.isDisabled()).toBe(true);
    await page.getByLabel('Primary model').selectOption('claude-primary-test');
    expect(await update.isDisabled()).toBe(false);
    await update.click();
    await visible(page, 'Primary model updated');
    await page.getByLabel('Fallback model').selectOption('claude-fallback-test');
    await page.getByRole('button', { name: 'Update Fallback Model' }).click();
    await visible(page, 'Fallback model updated');
    expect(await call(page, 'GET', '/settings/llm/model')).toEqual({ model: 'claude-primary-test' });
    await page.getByRole('button', { name: 'Edit Settings' }).click();
    await page.getByLabel('Auto-match threshold (%)').fill('82');
    await page.getByLabel('Duplicate detection').uncheck();
    await page.getByRole('button', { name: 'Save Settings' }).click();
    await visible(page, '82%');
    expect(await page.locator('[data-setting="duplicateDetection"]').textContent()).toBe('Disabled');
    expect(await page.locator('[data-info="version"]').textContent()).toBe('1.0.0');
    expect(await page.locator('[data-info="environment"]').textContent()).toBe('production');
    expect(await page.content()).not.toContain(KEY);
    await dismissToasts(page);
    await shot(page, 'settings-admin');
  });

  it('admin: /llm-test checks health, categorises with the chosen models (falling back when the primary is overloaded), reads a file by OCR', async () => {
    const { page } = admin;
    await page.goto(`${server.url}/llm-test`);
    await page.getByRole('button', { name: 'Check Health' }).click();
    await expect.poll(() => page.locator('[data-result="status"]').textContent()).toBe('ok');
    expect(await page.locator('[data-result="chain"]').textContent()).toBe('claude-primary-test → claude-fallback-test → offline-learned');
    fake.script('claude-primary-test', { kind: 'status', status: 529 });
    fake.script('claude-fallback-test', { kind: 'answer', category: 'Travel', confidence: 0.91 });
    await page.getByLabel('Description').fill('DELTA AIR 0062 ATLANTA');
    await page.getByLabel('Amount').fill('-412.20');
    await page.getByRole('button', { name: 'Categorize' }).click();
    await expect.poll(() => page.locator('[data-result="category"]').textContent()).toBe('Travel');
    await visible(page, 'High 91%');
    await visible(page, 'claude-primary-test: failed (http 529 (overloaded))');
    const l = labels[0]!;
    await page.getByLabel('Receipt file (JPG, PNG or PDF)').setInputFiles({ name: 'lunch.jpg', mimeType: 'image/jpeg', buffer: imageOf(l.id) });
    await page.getByRole('button', { name: 'Run OCR' }).click();
    await expect.poll(() => page.locator('[data-result="filename"]').textContent(), { timeout: 60_000 }).toBe('lunch.jpg');
    expect(((await page.locator('[data-result="ocr-text"]').textContent()) ?? '').length).toBeGreaterThan(20);
    await shot(page, 'llm-test-admin');
  });

  it('user: /settings is read-only and the refused admin calls pass silently; /llm-test works for members', async () => {
    const { page } = user;
    await page.goto(`${server.url}/settings`);
    await visible(page, '82%');
    expect(await page.getByLabel('Primary model').isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Update Model', exact: true }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Edit Settings' }).count()).toBe(0);
    await visible(page, 'Only admins can change the language model.');
    await page.waitForTimeout(500);
    for (const text of ['Failed to load available models', 'Failed to test LLM connection', 'Failed to load settings']) expect(await page.getByText(text).count()).toBe(0);
    await shot(page, 'settings-user');
    await page.goto(`${server.url}/llm-test`);
    await page.getByRole('button', { name: 'Check Health' }).click();
    await expect.poll(() => page.locator('[data-result="status"]').textContent()).toBe('ok');
    fake.script('claude-primary-test', { kind: 'answer', category: 'none', confidence: 0.3 });
    await page.getByLabel('Description').fill('TRANSFER 99812');
    await page.getByRole('button', { name: 'Categorize' }).click();
    await expect.poll(() => page.locator('[data-result="category"]').textContent()).toBe('None of the categories');
    await shot(page, 'llm-test-user');
    expect(server.output()).not.toContain(KEY);
  });
});
