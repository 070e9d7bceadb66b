/**
 * An auditor is invited like any member, reads the whole company as an admin
 * does (every member's records, admin figures, the audit chain and export), and is refused every
 * write with 403: each write route of the command side (command-api/src/operations.ts) is called
 * here with real ids, and the event log does not grow. The tenancy matrix's counterpart: there a
 * stranger gets nothing; here an insider gets everything to read and nothing to change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_SIDE_READS, commandOperations } from '@paperlink/command-api';
import { queryOperations } from '@paperlink/query-api';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';

let api: Api;
let admin: Account;
let member: Account;
let auditor: Account;
const ids: Record<string, string> = {};

beforeAll(async () => {
  api = await startApi({}, undefined, { noJobs: true });
  admin = await registerAccount(api, { companyName: 'Audited Co' });
  member = await registerAccount(api, { companyName: 'Member Home Co' });
  auditor = await registerAccount(api, { companyName: 'Auditor Firm' });
  await invite(api, admin, member, 'user');
  await invite(api, admin, auditor, 'auditor');
  const csv = 'Transaction Date,Description,Amount\n2024-02-01,MEMBER LUNCH,-12.50\n';
  await api.http.post('/api/transactions/import').set(member.headers(admin.companyId)).attach('csvFile', Buffer.from(csv), 'm.csv').expect(200);
  const cat = await api.http.post('/api/masterdata/categories').set(admin.headers()).send({ name: 'Audit Category' }).expect(201);
  const tx = await api.http.get('/api/transactions').set(member.headers(admin.companyId)).expect(200);
  Object.assign(ids, { id: tx.body.transactions[0].id as string, categoryId: cat.body.id as string });
});
afterAll(() => api?.close());

/** A path of the operation table with real values for its parameters. */
function pathOf(path: string): string {
  return `/api${path}`
    .replace('/companies/:id', `/companies/${admin.companyId}`)
    .replace(':userId', member.userId)
    .replace(':kind', 'categories')
    .replace(':key', 'autoMatchThreshold')
    .replace(':reportType', 'transactions')
    .replace(/:id\b/, path.startsWith('/masterdata') ? ids.categoryId! : ids.id!)
    .replace(/:[A-Za-z]+/g, 'x');
}

const computes = (op: { method: string; path: string }) => COMMAND_SIDE_READS.some((r) => r.method === op.method && r.path === op.path);
const writes = commandOperations.filter((op) => op.method !== 'get' && (op.auth === 'company' || op.auth === 'company-path') && !computes(op));

describe('an auditor is refused every write', () => {
  it('the role is chosen like any other: invited as auditor, shown as such, and changeable', async () => {
    const users = await api.http.get('/api/companies/current/users').set(admin.headers()).expect(200);
    expect(JSON.stringify(users.body)).toContain('"auditor"');
    const profile = await api.http.get('/api/auth/profile').set(auditor.headers(admin.companyId)).expect(200);
    expect(JSON.stringify(profile.body)).toContain('auditor');
    expect(writes.length).toBeGreaterThan(30);
  });

  it.each(writes.map((op) => [op.method.toUpperCase(), op.path] as const))('%s %s → 403', async (method, path) => {
    const head = await api.paperlink.adapters.events.headPosition();
    const url = pathOf(path);
    const res = await api.http[method.toLowerCase() as 'post'](url).set(auditor.headers(admin.companyId)).send({ name: 'Changed', role: 'admin', email: auditor.email, description: 'x', amount: 1 });
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBe(403);
    expect(res.body.code).toBe('read_only_role');
    expect(await api.paperlink.adapters.events.headPosition()).toBe(head);
  });

  it('an admin may change the role; a former auditor made user writes their own records again', async () => {
    const other = await registerAccount(api, { companyName: 'Other Firm' });
    await invite(api, admin, other, 'auditor');
    expect((await api.http.post('/api/masterdata/categories').set(other.headers(admin.companyId)).send({ name: 'By auditor' })).status).toBe(403);
    await api.http.put(`/api/companies/current/users/${other.userId}/role`).set(admin.headers()).send({ role: 'user' }).expect(200);
    const csv = 'Transaction Date,Description,Amount\n2024-03-01,OTHER COFFEE,-3.00\n';
    await api.http.post('/api/transactions/import').set(other.headers(admin.companyId)).attach('csvFile', Buffer.from(csv), 'o.csv').expect(200);
    await api.http.put(`/api/companies/current/users/${other.userId}/role`).set(admin.headers()).send({ role: 'auditor' }).expect(200);
    expect((await api.http.delete(`/api/transactions/${ids.id}`).set(other.headers(admin.companyId))).status).toBe(403);
  });

  it('still manages their own account (name; signing out) with the company header set', async () => {
    await api.http.put('/api/auth/profile').set(auditor.headers(admin.companyId)).send({ firstName: 'Ada', lastName: 'Auditor' }).expect(200);
  });
});

describe('an auditor reads the whole company', () => {
  it("sees every member's transactions, as the admin does", async () => {
    const mine = await api.http.get('/api/transactions').set(auditor.headers(admin.companyId)).expect(200);
    const asAdmin = await api.http.get('/api/transactions').set(admin.headers()).expect(200);
    expect(mine.body.transactions.map((t: { id: string }) => t.id).sort()).toEqual(asAdmin.body.transactions.map((t: { id: string }) => t.id).sort());
    expect(JSON.stringify(mine.body)).toContain('MEMBER LUNCH');
    const one = await api.http.get(`/api/transactions/${ids.id}`).set(auditor.headers(admin.companyId)).expect(200);
    expect(one.body.transaction.description).toBe('MEMBER LUNCH');
  });

  it('every read route of the query side answers (none refuses the auditor)', async () => {
    const reads = queryOperations.filter((op) => op.method === 'get' && (op.auth === 'company' || op.auth === 'company-path'));
    expect(reads.length).toBeGreaterThan(20);
    const refused: string[] = [];
    for (const op of reads) {
      const url = pathOf(op.path);
      const res = await api.http.get(url).set(auditor.headers(admin.companyId));
      if (res.status === 403 || res.status === 401 || res.status >= 500) refused.push(`${url} ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(refused).toEqual([]);
  });

  it('reads the members, admin figures, the audit chain and the export', async () => {
    const users = await api.http.get('/api/companies/current/users').set(auditor.headers(admin.companyId)).expect(200);
    expect(JSON.stringify(users.body)).toContain(member.email);
    await api.http.get('/api/audit/verify').set(auditor.headers(admin.companyId)).expect(200);
    const exp = await api.http.get('/api/audit/export').set(auditor.headers(admin.companyId)).buffer(true).parse((r, done) => {
      let s = '';
      r.on('data', (c: Buffer) => (s += c.toString('utf8')));
      r.on('end', () => done(null, s));
    }).expect(200);
    expect(String(exp.body)).toContain('MEMBER LUNCH');
    // Report previews are reads, although they are POSTs.
    await api.http.post('/api/exports/preview/transactions').set(auditor.headers(admin.companyId)).send({ limit: 10, preview: true }).expect(200);
  });

  it('the command side\'s computing POSTs answer an auditor and append nothing (the recurring series of a member\'s transaction)', async () => {
    expect(COMMAND_SIDE_READS.length).toBeGreaterThan(0);
    for (const op of COMMAND_SIDE_READS) {
      expect(commandOperations.some((c) => c.method === op.method && c.path === op.path), `${op.path} is a command-side operation`).toBe(true);
      const head = await api.paperlink.adapters.events.headPosition();
      const res = await api.http.post(pathOf(op.path)).set(auditor.headers(admin.companyId)).send({});
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(await api.paperlink.adapters.events.headPosition()).toBe(head);
    }
    const res = await api.http.post(`/api/ai/recurring/detect/${ids.id}`).set(auditor.headers(admin.companyId)).expect(200);
    expect(res.body).toMatchObject({ hasPattern: false, pattern: null });
  });

  it('in their own company the auditor keeps their own role', async () => {
    const res = await api.http.post('/api/masterdata/categories').set(auditor.headers()).send({ name: 'Own firm category' });
    expect(res.status).toBe(201);
  });
});
