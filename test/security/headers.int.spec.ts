import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/src/app';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';
import { labelledReader } from '../support/labelled-reader';

/**
 * ADR 0006: security headers on every response, receipts that cannot run script in the
 * app's origin, no stream names in error bodies, a public health answer with status and version
 * only, and no waiting for X-Min-Position before authentication.
 */
let api: Api;
let admin: Account;
let user: Account;
let web: string;
const BUILT_INDEX = join(REPO_ROOT, 'web', 'dist', 'index.html');
const INDEX = '<!doctype html><html><head><title>Paperlink</title><script type="module" src="/assets/app.js"></script></head><body><div id="root"></div></body></html>';

beforeAll(async () => {
  // The web app: a small folder of our own (the real build is checked separately below).
  web = mkdtempSync(join(tmpdir(), 'paperlink-web-'));
  mkdirSync(join(web, 'assets'), { recursive: true });
  writeFileSync(join(web, 'index.html'), INDEX);
  writeFileSync(join(web, 'assets', 'app.js'), 'console.log(1)');
  api = await startApi({ WEB_DIST: web }, undefined, { reader: labelledReader() });
  admin = await registerAccount(api);
  user = await registerAccount(api);
  await invite(api, admin, user, 'user');
});
afterAll(async () => {
  await api.close();
  rmSync(web, { recursive: true, force: true });
});

function directives(csp: string | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of (csp ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) out.set(name.toLowerCase(), values);
  }
  return out;
}

function expectSecurityHeaders(headers: Record<string, string>): void {
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toMatch(/no-referrer|strict-origin|same-origin/);
  expect(headers['x-frame-options']).toBe('DENY');
  const csp = directives(headers['content-security-policy']);
  expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
  expect(csp.get('object-src')).toEqual(["'none'"]);
  const scripts = csp.get('script-src') ?? csp.get('default-src');
  expect(scripts).toEqual(["'self'"]);
  expect(csp.get('style-src')).not.toContain("'unsafe-inline'");
  expect(headers['x-powered-by']).toBeUndefined();
}

async function pdfWithJavaScript(): Promise<Buffer> {
  const PDFDocument = (await import('pdfkit')).default;
  const doc = new PDFDocument({ size: 'A6' });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((r) => doc.on('end', () => r()));
  doc.text('COFFEE SHOP\nTOTAL 4.50\n2024-03-01');
  doc.end();
  await done;
  // An OpenAction with JavaScript, as an attacker's receipt would carry.
  const bytes = Buffer.concat(chunks).toString('latin1').replace('/Type /Catalog', '/Type /Catalog /OpenAction << /S /JavaScript /JS (app.alert(document.cookie)) >>');
  return Buffer.from(bytes, 'latin1');
}

describe('security headers', () => {
  it('every API answer carries them (ok, 401, 404, 400)', async () => {
    for (const res of [
      await api.http.get('/api/health'),
      await api.http.get('/api/transactions'),
      await api.http.get('/api/transactions').set(admin.headers()),
      await api.http.get('/api/no-such-thing').set(admin.headers()),
      await api.http.post('/api/auth/login').send({}),
    ]) expectSecurityHeaders(res.headers as Record<string, string>);
  });

  it('the web app index and its assets carry them', async () => {
    const index = await api.http.get('/');
    expect(index.status).toBe(200);
    expect(index.text).toContain('<div id="root">');
    expectSecurityHeaders(index.headers as Record<string, string>);
    const route = await api.http.get('/transactions');
    expectSecurityHeaders(route.headers as Record<string, string>);
    const asset = await api.http.get('/assets/app.js');
    expect(asset.status).toBe(200);
    expectSecurityHeaders(asset.headers as Record<string, string>);
  });

  const built = existsSync(BUILT_INDEX);
  it.runIf(built)(`the built web app needs no inline script or style element, so the CSP lets it run${built ? '' : ' (skipped: web/dist is not built; make build-web)'}`, () => {
    const html = readFileSync(BUILT_INDEX, 'utf8');
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/\bsrc="\/assets\//);
      expect(body!.trim()).toBe('');
    }
    expect(html).not.toMatch(/<style\b/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/\sstyle=/i);
  });
});

describe('receipt files', () => {
  it("a PDF's view and download are sandboxed documents (its JavaScript gets no origin), never sniffed, never framed", async () => {
    const up = await api.http.post('/api/receipts/upload').set(admin.headers()).attach('receipt', await pdfWithJavaScript(), 'evil"; name=x.pdf');
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    const id = up.body.receipt?.id ?? up.body.id;
    for (const kind of ['view', 'download']) {
      const res = await api.http.get(`/api/receipts/${id}/${kind}`).set(admin.headers());
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/pdf/);
      const csp = directives(res.headers['content-security-policy']);
      expect(csp.has('sandbox')).toBe(true);
      expect(csp.get('sandbox')).toEqual([]);
      expect(csp.get('default-src')).toEqual(["'none'"]);
      expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-disposition']).toMatch(kind === 'view' ? /^inline;/ : /^attachment;/);
      expect(res.headers['content-disposition']).toMatch(/filename="evil_; name=x\.pdf"/);
    }
  });
});

describe('public health answer', () => {
  it('shows status and version only', async () => {
    const res = await api.http.get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', version: expect.any(String) });
  });

  it('details (profile, stores, projection lag) are for admins', async () => {
    expect((await api.http.get('/api/health/details')).status).toBe(401);
    expect((await api.http.get('/api/health/details').set(user.headers(admin.companyId))).status).toBe(403);
    const res = await api.http.get('/api/health/details').set(admin.headers());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', profile: expect.any(String), eventStore: expect.any(String), readStore: expect.any(String), projections: { lag: expect.any(Number) } });
  });
});

describe('X-Min-Position', () => {
  it('an unauthenticated request is refused at once, never held for 5 s', async () => {
    const t = performance.now();
    const res = await api.http.get('/api/transactions').set('x-min-position', '999999999');
    expect(res.status).toBe(401);
    expect(performance.now() - t).toBeLessThan(1000);
    const forged = await api.http.get('/api/receipts').set('x-min-position', '999999999').set('authorization', 'Bearer forged.token.here');
    expect(forged.status).toBe(401);
    expect(performance.now() - t).toBeLessThan(2000);
  });

  it('an authenticated request still reads its own writes', async () => {
    const add = await api.http.post('/api/masterdata/categories').set(admin.headers()).send({ name: 'Fuel' });
    expect(add.status).toBe(201);
    const position = Number(add.headers['x-position'] ?? 1);
    const list = await api.http.get('/api/masterdata/categories').set(admin.headers()).set('x-min-position', String(position));
    expect(list.body.map((c: { name: string }) => c.name)).toContain('Fuel');
  });
});

describe('conflict answers', () => {
  it('a 409 from the store names no stream, revision or id', async () => {
    const add = await api.http.post('/api/masterdata/categories').set(admin.headers()).send({ name: 'Travel' });
    expect(add.status).toBe(201);
    // Every append arrives one revision late, as if another writer always got there first:
    // the store's own ConcurrencyError reaches the client once the bus gives up.
    const events = api.paperlink.adapters.events;
    const original = events.appendMany.bind(events);
    events.appendMany = (appends) => original(appends.map((a) => ({ ...a, expectedRevision: typeof a.expectedRevision === 'number' ? a.expectedRevision - 1 : 0 })));
    try {
      const res = await api.http.put(`/api/masterdata/categories/${add.body.id}`).set(admin.headers()).send({ name: 'Trips' });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('concurrency_conflict');
      const text = JSON.stringify(res.body);
      expect(text).not.toContain(admin.companyId);
      expect(text).not.toContain('masterdata-');
      expect(text).not.toMatch(/stream|revision|expected|actual/i);
      expect(res.body.details).toBeUndefined();
    } finally {
      events.appendMany = original;
    }
  });
});
