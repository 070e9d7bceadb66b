/**
 * ADR 0025: the same code as three processes on one data folder
 * (PAPERLINK_ROLE=projector, command, query; the embedded SQLite event store and read models in
 * WAL mode, shared). The command process appends, the projector process alone builds the read
 * models, the query process answers reads from them and refuses writes; each answers 421 to what
 * is not its role. The distributed profile (EventStoreDB, MongoDB, Kafka) runs the same roles
 * (infra/compose.yaml); it cannot run here.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../support/process';
import { BANK_CSV } from '../support/labelled-reader';

const dir = mkdtempSync(join(tmpdir(), 'paperlink-roles-'));
const shared = { DATA_DIR: dir, READ_STORE: 'sqlite', JWT_SECRET: 'roles-test-secret-roles-test-secret-0123456789', READ_SIDE_WAIT_MS: '1000' };
let projector: ServerProcess;
let command: ServerProcess;
let query: ServerProcess;
let headers: Record<string, string>;

async function call(server: ServerProcess, method: string, path: string, body?: unknown, extra: Record<string, string> = {}) {
  const isForm = body instanceof FormData;
  const res = await fetch(`${server.url}/api${path}`, {
    method,
    headers: { ...headers, ...extra, ...(body !== undefined && !isForm ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: isForm ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> & { code?: string }, headers: res.headers };
}

/** Polls the query process until `check` holds (it reads what the projector process commits). */
async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (check(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  // The projector first: it creates the files and owns the folder's lock.
  projector = await startServerProcess({ ...shared, PAPERLINK_ROLE: 'projector' });
  [command, query] = await Promise.all([startServerProcess({ ...shared, PAPERLINK_ROLE: 'command' }), startServerProcess({ ...shared, PAPERLINK_ROLE: 'query' })]);
  headers = {};
}, 90_000);
afterAll(async () => {
  await Promise.all([command?.stop(), query?.stop(), projector?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('command, query and projector as three processes on one data folder', () => {
  it('each answers its health; the projector takes no request, the query process no write', async () => {
    for (const s of [projector, command, query]) expect((await call(s, 'GET', '/health')).status).toBe(200);
    const onProjector = await call(projector, 'POST', '/auth/register', { firstName: 'A', lastName: 'B', email: 'x@example.com', password: 'Passw0rdOK', companyName: 'X' });
    expect(onProjector.status).toBe(421);
    expect(onProjector.body.code).toBe('wrong_process');
    const onQuery = await call(query, 'POST', '/auth/register', { firstName: 'A', lastName: 'B', email: 'x@example.com', password: 'Passw0rdOK', companyName: 'X' });
    expect(onQuery.status).toBe(421);
    expect(String(onQuery.body.error)).toContain('reads only');
    expect((await call(projector, 'GET', '/transactions')).status).toBe(421);
  });

  it('the command process appends (registration, an import, a correction); the query process reads them once the projector has', async () => {
    const reg = await call(command, 'POST', '/auth/register', { firstName: 'Rita', lastName: 'Roles', email: `rita-${Date.now()}@example.com`, password: 'Passw0rdOK', companyName: 'Roles Ltd' });
    expect(reg.status, JSON.stringify(reg.body)).toBe(201);
    const company = (reg.body.company as { id: string }).id;
    headers = { authorization: `Bearer ${String(reg.body.accessToken)}`, 'x-company-id': company };

    // A token the command process signed is good on the query process (one key, in the folder or JWT_SECRET).
    const profile = await eventually(() => call(query, 'GET', '/auth/profile'), (r) => r.status === 200);
    expect(profile.status, JSON.stringify(profile.body)).toBe(200);

    const form = new FormData();
    form.append('csvFile', new Blob([readFileSync(join(BANK_CSV, 'chase.csv'))], { type: 'text/csv' }), 'chase.csv');
    const imported = await call(command, 'POST', '/transactions/import', form);
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const count = Number(imported.body.imported);
    expect(count).toBeGreaterThan(10);

    const list = await eventually(() => call(query, 'GET', '/transactions?limit=100'), (r) => r.status === 200 && (r.body.pagination as { total: number }).total === count);
    expect((list.body.pagination as { total: number }).total).toBe(count);
    const first = (list.body.transactions as Array<{ id: string; description: string; amount: number }>)[0]!;

    // Writes are refused by the query process, whatever the route; reads that are POSTs are answered.
    const refused = await call(query, 'PUT', `/transactions/${first.id}`, { description: 'On the wrong process', category: 'Travel', job_number: 'J', cost_code: 'C', amount: first.amount });
    expect(refused.status).toBe(421);
    expect((await call(query, 'POST', '/exports/preview/transactions', { limit: 5, preview: true })).status).toBe(200);

    const fixed = await call(command, 'PUT', `/transactions/${first.id}`, { description: 'Corrected via the command process', category: 'Travel', job_number: 'J-1', cost_code: 'C-1', amount: first.amount });
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200);
    // Read-your-writes across processes (ADR 0025, 0030): one read on the query process, asked to wait for the write's position, holds it.
    const position = fixed.headers.get('x-position');
    expect(Number(position)).toBeGreaterThan(0);
    const direct = await call(query, 'GET', `/transactions/${first.id}`, undefined, { 'x-min-position': position! });
    expect(direct.headers.get('x-read-side')).toBe('current');
    expect((direct.body.transaction as { description: string }).description).toBe('Corrected via the command process');
    const one = await eventually(() => call(query, 'GET', `/transactions/${first.id}`), (r) => (r.body.transaction as { description?: string } | undefined)?.description === 'Corrected via the command process');
    expect((one.body.transaction as { description: string }).description).toBe('Corrected via the command process');
    // Its history is read from the shared event log by the query process.
    const history = await call(query, 'GET', `/history/transaction/${first.id}`);
    expect(history.status).toBe(200);
    expect(JSON.stringify(history.body)).toContain('Corrected via the command process');

    // A receipt uploaded through the command process is taken up by the projector process's job
    // workers (its reactor saw the upload in the shared log): the job's first step, appended from
    // there, shows on the query process (the reading itself is OCR's business, tested elsewhere).
    const PDFDocument = (await import('pdfkit')).default;
    const doc = new PDFDocument({ size: 'A6' });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    const ended = new Promise<void>((r) => doc.on('end', () => r()));
    doc.fontSize(12).text('ROLES HARDWARE\n2024-03-05\nTOTAL 12.34');
    doc.end();
    await ended;
    const upload = new FormData();
    upload.append('receipt', new Blob([Buffer.concat(chunks)], { type: 'application/pdf' }), 'roles.pdf');
    const up = await call(command, 'POST', '/receipts/upload', upload);
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    const receiptId = (up.body.receipt as { id: string }).id;
    const taken = await eventually(() => call(query, 'GET', `/receipts/${receiptId}`), (r) => (r.body.receipt as { processing_status?: string } | undefined)?.processing_status !== 'pending', 15_000);
    expect(['processing', 'completed']).toContain((taken.body.receipt as { processing_status: string }).processing_status);
  }, 40_000);

  it('the projector process alone builds the read models: stopped, the query process sees no new write', async () => {
    await projector.stop();
    const before = await call(query, 'GET', '/transactions?limit=1');
    const form = new FormData();
    form.append('csvFile', new Blob(['Transaction Date,Description,Amount\n2024-05-01,WHILE THE PROJECTOR SLEEPS,-9.99\n']), 'late.csv');
    const imported = await call(command, 'POST', '/transactions/import', form);
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    await new Promise((r) => setTimeout(r, 800));
    const after = await call(query, 'GET', '/transactions?limit=1');
    expect((after.body.pagination as { total: number }).total).toBe((before.body.pagination as { total: number }).total);
  });
});
