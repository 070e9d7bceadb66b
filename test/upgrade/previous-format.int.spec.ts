import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type Api } from '../support/harness';
import { labelledReader } from '../support/labelled-reader';

/**
 * A data folder written by the previous landing's code (b401118, before request fingerprints were keyed; made by
 * test/fixtures/previous-format/make.ts) keeps working after the upgrade: its sign-in records
 * lose the unkeyed digests of passwords, its read models rebuild to the new formats, and every
 * record, password and decision it held is still there.
 */
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'previous-format');
const facts = JSON.parse(readFileSync(join(FIXTURE, 'facts.json'), 'utf8')) as {
  companyId: string;
  ada: { email: string; password: string; oldPassword: string; userId: string };
  bo: { email: string; password: string; userId: string };
  wrongPassword: string;
  transactions: Array<{ id: string; description: string; amount: number }>;
  receipts: string[];
  confirmedMatch: string;
};
const JWT_SECRET = 'previous-format-fixture-secret-0123456789abcdef';

/** Every encoding of the digest the old bus stored for a sign-in body. */
function oldDigests(body: unknown, path = '/api/auth/login'): string[] {
  const d = createHash('sha256').update(JSON.stringify(['POST', path, null, null, body])).digest();
  return [d.toString('base64url'), d.toString('base64'), d.toString('hex')];
}

function rawBytes(dir: string): string {
  return ['events.sqlite', 'events.sqlite-wal']
    .map((f) => join(dir, f))
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f).toString('latin1'))
    .join('\n');
}

let dir: string;
let api: Api;
const wrongLogin = { email: facts.ada.email, password: facts.wrongPassword };
const goodLogin = { email: facts.ada.email, password: facts.ada.oldPassword };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paperlink-previous-'));
  cpSync(join(FIXTURE, 'data-b401118'), dir, { recursive: true });
  // The fixture really holds the defect this upgrade repairs.
  const before = rawBytes(dir);
  expect(oldDigests(wrongLogin).some((d) => before.includes(d))).toBe(true);
  expect(oldDigests(goodLogin).some((d) => before.includes(d))).toBe(true);
  api = await startApi({ JWT_SECRET }, dir, { reader: labelledReader() });
});

afterAll(async () => {
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

const signIn = async (email: string, password: string) =>
  api.http.post('/api/auth/login').set('x-company-id', facts.companyId).send({ email, password });

describe('a data folder made by the previous landing (b401118)', () => {
  it('no longer holds an unkeyed digest of any sign-in body, in the file or its WAL', () => {
    const after = rawBytes(dir);
    for (const body of [wrongLogin, goodLogin]) {
      for (const d of oldDigests(body)) expect(after.includes(d), `digest of ${JSON.stringify(body)}`).toBe(false);
    }
  });

  it('keeps every account: the changed password signs in, the old one does not, the member too', async () => {
    expect((await signIn(facts.ada.email, facts.ada.password)).status).toBe(200);
    expect((await signIn(facts.ada.email, facts.ada.oldPassword)).status).toBe(401);
    const bo = await signIn(facts.bo.email, facts.bo.password);
    expect(bo.status).toBe(200);
    expect(bo.body.user.companies.map((c: { id: string }) => c.id)).toContain(facts.companyId);
  });

  it('never replays an old sign-in answer for its request id', async () => {
    const replay = await api.http.post('/api/auth/login').set('x-request-id', 'fixture-login-ada-0001').set('x-company-id', facts.companyId).send(goodLogin);
    expect(replay.status).not.toBe(200);
    expect(replay.body.accessToken).toBeUndefined();
  });

  it('keeps every transaction, receipt and confirmed match, in the new read-model formats', async () => {
    const ada = await signIn(facts.ada.email, facts.ada.password);
    const h = { authorization: `Bearer ${ada.body.accessToken}`, 'x-company-id': facts.companyId };
    const list = await api.http.get('/api/transactions').query({ limit: 100 }).set(h);
    expect(list.status).toBe(200);
    const rows = (list.body.transactions as Array<{ id: string; description: string; amount: number }>).map((t) => ({ id: t.id, description: t.description, amount: t.amount }));
    expect(rows.sort((a, b) => a.id.localeCompare(b.id))).toEqual(facts.transactions);
    for (const id of facts.receipts) {
      const r = await api.http.get(`/api/receipts/${id}`).set(h);
      expect(r.status).toBe(200);
      expect(r.body.receipt.processing_status).toBe('completed');
      expect((await api.http.get(`/api/receipts/${id}/view`).set(h)).status).toBe(200);
    }
    const matches = await api.http.get('/api/matches').set(h);
    const confirmed = (matches.body as Array<{ id: string; status: string }>).find((m) => m.id === facts.confirmedMatch);
    expect(confirmed?.status).toBe('confirmed');
    // The match figures (a projection newer than the folder) were built from its log on this start.
    const all = matches.body as Array<{ status: string }>;
    const stats = (await api.http.get('/api/ai/matching/stats').set(h)).body as { total_matches: number; confirmed_matches: number };
    expect(stats).toMatchObject({ total_matches: all.length, confirmed_matches: all.filter((m) => m.status === 'confirmed').length });
    expect(stats.confirmed_matches).toBeGreaterThan(0);
  });

  it('re-importing the statement it imported adds nothing (the duplicate counts were rebuilt)', async () => {
    const ada = await signIn(facts.ada.email, facts.ada.password);
    const h = { authorization: `Bearer ${ada.body.accessToken}`, 'x-company-id': facts.companyId };
    const csv = readFileSync(join(FIXTURE, 'statement.csv'));
    const again = await api.http.post('/api/transactions/import').set(h).attach('csvFile', csv, 'statement.csv');
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.imported).toBe(0);
    const list = await api.http.get('/api/transactions').query({ limit: 100 }).set(h);
    expect(list.body.transactions).toHaveLength(facts.transactions.length);
  });

  it('scopes the old records as today: the plain member sees only his own receipt', async () => {
    const bo = await signIn(facts.bo.email, facts.bo.password);
    const h = { authorization: `Bearer ${bo.body.accessToken}`, 'x-company-id': facts.companyId };
    const list = await api.http.get('/api/receipts').set(h);
    expect(list.status).toBe(200);
    const ids = (list.body.receipts as Array<{ id: string }>).map((r) => r.id);
    expect(ids).toEqual([facts.receipts[1]]);
    expect((await api.http.get(`/api/receipts/${facts.receipts[0]}`).set(h)).status).toBe(404);
  });
});
