/**
 * The HTTP API on the distributed profile, run as separate processes (a projector, two command
 * processes, a query process and job workers) on a real Kafka broker and FerretDB, behind a
 * router that sends reads to the query process and writes to the command processes in turn.
 * Each step is what a client of the product does, read back the way the web app reads.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BANK_CSV, imageOf } from '../support/labelled-reader';
import { Client, skipReason, startTopology, type Role, type Topology } from './topology';

const skip = skipReason();
const ROLES: Role[] = ['projector', 'command', 'command', 'query', 'worker'];
const RECEIPTS = ['X00016469619', 'X00016469623', 'X51005306399'];

let topology: Topology;
const admin = new Client();
const member = new Client();
let companyId = '';
let memberEmail = '';

function csvForm(file: string, name = file): FormData {
  const form = new FormData();
  form.append('csvFile', new Blob([readFileSync(join(BANK_CSV, file))], { type: 'text/csv' }), name);
  return form;
}

async function register(client: Client, companyName: string): Promise<{ email: string; companyId: string }> {
  const email = `dist-${randomUUID().slice(0, 8)}@example.com`;
  const res = await client.call('POST', '/auth/register', { firstName: 'Dee', lastName: 'Stributed', email, password: 'Passw0rdOK', companyName });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  client.headers = { authorization: `Bearer ${res.body.accessToken}`, 'x-company-id': res.body.company.id };
  return { email, companyId: res.body.company.id };
}

describe.skipIf(skip !== undefined)(`the API on separate processes over Kafka and FerretDB${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(async () => {
    topology = await startTopology(ROLES);
    admin.base = member.base = topology.url;
    ({ companyId } = await register(admin, 'Distributed Ltd'));
    ({ email: memberEmail } = await register(member, 'Member Own Ltd'));
  }, 240_000);
  afterAll(async () => {
    await topology?.stop();
  });

  it('answers health on every process; each refuses what is not its role', async () => {
    for (const { server } of topology.processes) expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    const query = topology.of('query')[0]!;
    const write = await fetch(`${query.url}/api/transactions/import`, { method: 'POST', headers: admin.headers });
    expect(write.status).toBe(421);
    const details = await admin.call('GET', '/health/details');
    expect(details.status).toBe(200);
    expect(details.body).toMatchObject({ readStore: expect.stringContaining('mongo') });
  });

  it('imports a statement through one command process and lists it from the query process; the same file again imports nothing', async () => {
    const first = await admin.call('POST', '/transactions/import', csvForm('chase.csv'));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const imported = Number(first.body.imported);
    expect(imported).toBeGreaterThan(100);
    const list = await admin.call('GET', '/transactions?limit=20');
    expect(list.body.pagination.total).toBe(imported);
    // The router sends this one to the other command process: it decides on the same read models.
    const again = await admin.call('POST', '/transactions/import', csvForm('chase.csv', 'chase-again.csv'));
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(Number(again.body.imported)).toBe(0);
    expect((await admin.call('GET', '/transactions?limit=1')).body.pagination.total).toBe(imported);
  });

  it('pages a list to its end without a row twice (keyset pages on the read store)', async () => {
    const seen = new Set<string>();
    let page = 1;
    for (;;) {
      const res = await admin.call('GET', `/transactions?limit=25&page=${page}&sortBy=transaction_date&sortOrder=desc`);
      expect(res.status).toBe(200);
      for (const t of res.body.transactions as Array<{ id: string }>) {
        expect(seen.has(t.id)).toBe(false);
        seen.add(t.id);
      }
      if (page >= res.body.pagination.pages) break;
      page++;
    }
    expect(seen.size).toBe((await admin.call('GET', '/transactions?limit=1')).body.pagination.total);
  });

  it('reads uploaded receipts in the worker process, keeps their files in GridFS and suggests their matches', async () => {
    const ids: string[] = [];
    for (const id of RECEIPTS) {
      const form = new FormData();
      form.append('receipt', new Blob([imageOf(id)], { type: 'image/jpeg' }), `${id}.jpg`);
      const up = await admin.call('POST', '/receipts/upload', form);
      expect(up.status, JSON.stringify(up.body)).toBe(201);
      ids.push(up.body.receipt.id);
    }
    for (const id of ids) {
      const done = await admin.until(`/receipts/${id}`, (b) => ['completed', 'failed'].includes(b.receipt?.processing_status), 120_000);
      expect(done.receipt.processing_status).toBe('completed');
      const file = await fetch(`${topology.url}/api/receipts/${id}/download`, { headers: admin.headers });
      expect(file.status).toBe(200);
      expect(Buffer.from(await file.arrayBuffer()).subarray(0, 2).toString('hex')).toBe('ffd8');
    }
    const pending = await admin.until('/matches/pending', (b) => (Array.isArray(b) ? b : b.matches ?? []).length > 0, 60_000);
    const rows = (Array.isArray(pending) ? pending : pending.matches) as Array<{ id: string }>;
    const confirmed = await admin.call('PUT', `/matches/${rows[0]!.id}/confirm`);
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    const after = await admin.call('GET', `/matches?status=confirmed`);
    expect(JSON.stringify(after.body)).toContain(rows[0]!.id);
  }, 300_000);

  it('keeps a member to their own records across processes', async () => {
    const invited = await admin.call('POST', '/companies/current/invite', { email: memberEmail, role: 'user' });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    member.headers = { ...member.headers, 'x-company-id': companyId };
    const own = await member.call('GET', '/transactions?limit=5');
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body.pagination.total).toBe(0);
    const someone = (await admin.call('GET', '/transactions?limit=1')).body.transactions[0] as { id: string };
    expect((await member.call('GET', `/transactions/${someone.id}`)).status).toBe(404);
  });

  it('renders a PDF report through a command process', async () => {
    const res = await fetch(`${topology.url}/api/exports/pdf/transactions`, { method: 'POST', headers: { ...admin.headers, 'content-type': 'application/json' }, body: JSON.stringify({}) });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
  });
});
