/**
 * ADR 0017: the history of every record (GET /api/history/{kind}/{id}) and reads as
 * of a moment (`asOf` on the transactions, receipts and matches reads). A company imports a
 * statement, uploads receipts that auto-match by themselves, corrects a line (PUT), a person
 * confirms a match and changes a member's role; each record's timeline and the lists as they
 * stood between those steps are checked against what the test saw at the time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invite, registerAccount, startApi, TEST_HASH_PREFIX, type Account, type Api } from '../support/harness';
import { BANK_CSV, imageOf, labelledReader, labels } from '../support/labelled-reader';

interface Entry {
  type: string;
  at: string;
  who: { userId: string; name: string | null; role: string | null } | null;
  system: string | null;
  summary: string;
  changes: Array<{ field: string; before: unknown; after: unknown }>;
  source: Record<string, unknown> | null;
  requestId: string | null;
}
interface History {
  kind: string;
  id: string;
  entries: Entry[];
  current: Record<string, unknown> | null;
}
interface Tx {
  id: string;
  description: string;
  transaction_date: string;
  amount: number;
  receipt_count: number;
  source: { row: number; fileName: string };
}
interface MatchRow {
  id: string;
  receipt_id: string;
  transaction_id: string;
  match_confidence: number;
  status: string;
}

let api: Api;
let ada: Account;
let bo: Account;
let aud: Account;
let eve: Account;
const truth = JSON.parse(readFileSync(join(BANK_CSV, 'chase.truth.json'), 'utf8')) as { receipt_to_transaction: Record<string, unknown> };
const withLine = labels.filter((l) => truth.receipt_to_transaction[l.id]).slice(0, 2);
/** A receipt paid cash: no card line matches it. */
const cash = labels.find((l) => truth.receipt_to_transaction[l.id] === null)!;

/** Moments between the steps, and what the live reads answered at each. */
const moments: Record<'beforeImport' | 'afterMatching' | 'afterConfirm', string> = { beforeImport: '', afterMatching: '', afterConfirm: '' };
let liveAfterMatching: { transactions: unknown; receipts: unknown; matches: unknown };
let liveAfterConfirm: { transactions: unknown; record: unknown };
let edited: Tx;
let match: MatchRow;
let boReceipt: string;
const ORIGINAL = new Map<string, string>();

const now = async () => {
  await new Promise((r) => setTimeout(r, 5));
  const t = new Date().toISOString();
  await new Promise((r) => setTimeout(r, 5));
  return t;
};
const history = (who: Account, kind: string, id: string) => api.http.get(`/api/history/${kind}/${id}`).set(who.headers(ada.companyId));
const txList = (who: Account, query: Record<string, string | number> = {}) => api.http.get('/api/transactions').query({ limit: 500, sortBy: 'description', sortOrder: 'asc', ...query }).set(who.headers(ada.companyId));

beforeAll(async () => {
  api = await startApi({}, undefined, { reader: labelledReader() });
  ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
  bo = await registerAccount(api, { firstName: 'Bo', lastName: 'User' });
  aud = await registerAccount(api, { firstName: 'Aud', lastName: 'Itor', companyName: 'Audit Firm' });
  eve = await registerAccount(api, { firstName: 'Eve', lastName: 'Else' });
  await invite(api, ada, bo, 'user');
  await invite(api, ada, aud, 'auditor');
  moments.beforeImport = await now();

  const imp = await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', readFileSync(join(BANK_CSV, 'chase.csv')), 'chase.csv');
  expect(imp.status).toBe(200);
  for (const t of (await txList(ada)).body.transactions as Tx[]) ORIGINAL.set(t.id, t.description);
  const adaReceipts: string[] = [];
  for (const l of withLine) adaReceipts.push((await api.http.post('/api/receipts/upload').set(ada.headers()).attach('receipt', imageOf(l.id), `${l.id}.jpg`).expect(201)).body.receipt.id);
  boReceipt = (await api.http.post('/api/receipts/upload').set(bo.headers(ada.companyId)).attach('receipt', imageOf(cash.id), 'bo.jpg').expect(201)).body.receipt.id;
  // Auto-match runs by itself once the receipts are read.
  let pending: MatchRow[] = [];
  const suggestedFor = () => adaReceipts.filter((id) => pending.some((m) => m.receipt_id === id));
  for (let i = 0; i < 200 && suggestedFor().length < adaReceipts.length; i++) {
    await new Promise((r) => setTimeout(r, 50));
    pending = (await api.http.get('/api/matches/pending').set(ada.headers())).body;
  }
  expect(suggestedFor()).toEqual(adaReceipts);
  for (let i = 0; i < 200; i++) {
    const rs = (await api.http.get('/api/receipts').query({ limit: 100 }).set(ada.headers())).body.receipts as Array<{ processing_status: string }>;
    if (rs.every((r) => r.processing_status === 'completed')) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 200));
  liveAfterMatching = {
    transactions: (await txList(ada)).body,
    receipts: (await api.http.get('/api/receipts').query({ limit: 100 }).set(ada.headers())).body,
    matches: (await api.http.get('/api/matches').set(ada.headers())).body,
  };
  moments.afterMatching = await now();

  // A person confirms the suggestion, then corrects the line (PUT) and changes a member's role.
  pending = (await api.http.get('/api/matches/pending').set(ada.headers())).body;
  match = pending.find((m) => m.receipt_id === adaReceipts[0])!;
  await api.http.put(`/api/matches/${match.id}/confirm`).set(ada.headers()).expect(200);
  edited = (await api.http.get(`/api/transactions/${match.transaction_id}`).set(ada.headers())).body.transaction;
  liveAfterConfirm = { transactions: (await txList(ada)).body, record: (await api.http.get(`/api/transactions/${edited.id}`).set(ada.headers())).body };
  moments.afterConfirm = await now();
  const put = await api.http.put(`/api/transactions/${edited.id}`).set(ada.headers()).send({ description: 'Corrected by Ada', category: 'Travel', job_number: 'J-1', cost_code: 'C-1', amount: edited.amount });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  await api.http.put(`/api/companies/current/users/${bo.userId}/role`).set(ada.headers()).send({ role: 'manager' }).expect(200);
}, 60_000);
afterAll(() => api?.close());

describe('GET /api/history/{kind}/{id}', () => {
  it("a transaction: its statement row, the auto-match run with its evidence, the correction and the confirm, with who and their role then", async () => {
    const res = await history(ada, 'transaction', edited.id);
    expect(res.status).toBe(200);
    const h = res.body as History;
    expect(h.entries.map((e) => e.type)).toEqual(['TransactionsImported', 'MatchesSuggested', 'MatchConfirmed', 'TransactionUpdated']);
    const [imported, suggested, confirmed, updated] = h.entries as [Entry, Entry, Entry, Entry];
    expect(imported.source).toMatchObject({ kind: 'statement', fileName: 'chase.csv', row: edited.source.row });
    expect(imported.who).toEqual({ userId: ada.userId, name: 'Ada Admin', role: 'admin' });
    expect(imported.changes).toContainEqual({ field: 'description', before: null, after: ORIGINAL.get(edited.id) });
    expect(imported.changes).toContainEqual({ field: 'owner', before: null, after: `Ada Admin (${ada.userId})` });
    expect(imported.requestId).toEqual(expect.any(String));
    expect(suggested.source).toMatchObject({ kind: 'match-run', origin: 'auto', matchId: match.id, confidence: match.match_confidence });
    expect((suggested.source!.evidence as { reasons: string[] }).reasons.length).toBeGreaterThan(0);
    expect(suggested.changes).toEqual([]);
    expect(updated.changes).toEqual(expect.arrayContaining([
      { field: 'description', before: ORIGINAL.get(edited.id), after: 'Corrected by Ada' },
      { field: 'category', before: expect.anything(), after: 'Travel' },
      { field: 'job_number', before: null, after: 'J-1' },
    ]));
    expect(updated.changes.some((c) => c.field === 'amount')).toBe(false);
    expect(updated.who).toMatchObject({ name: 'Ada Admin', role: 'admin' });
    expect(confirmed.changes).toEqual([{ field: 'receipts', before: null, after: expect.stringMatching(/\.jpg$/) }]);
    expect(h.current).toMatchObject({ description: 'Corrected by Ada', category: 'Travel' });
  });

  it('a receipt: the upload, the reading, the suggestion and the confirm', async () => {
    const h = (await history(ada, 'receipt', match.receipt_id).expect(200)).body as History;
    const types = h.entries.map((e) => e.type);
    expect(types[0]).toBe('ReceiptUploaded');
    expect(types).toEqual(expect.arrayContaining(['ReceiptRead', 'MatchesSuggested', 'MatchConfirmed']));
    expect(h.entries[0]!.source).toMatchObject({ kind: 'upload', fileName: expect.stringMatching(/\.jpg$/), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const read = h.entries.find((e) => e.type === 'ReceiptRead')!;
    expect(read.who).toBeNull();
    expect(read.system).toBe('ocr');
    expect(read.changes).toContainEqual({ field: 'processing_status', before: expect.any(String), after: 'completed' });
    expect(read.changes.some((c) => c.field === 'amount' && c.after !== null)).toBe(true);
    expect(h.entries.find((e) => e.type === 'MatchConfirmed')!.changes).toEqual([{ field: 'matches', before: 0, after: 1 }]);
  });

  it('a match: suggested by the auto-match run, then confirmed by a person', async () => {
    const h = (await history(ada, 'match', match.id).expect(200)).body as History;
    expect(h.entries.map((e) => e.type)).toEqual(['MatchesSuggested', 'MatchConfirmed']);
    expect(h.entries[0]!.changes).toContainEqual({ field: 'status', before: null, after: 'pending' });
    expect(h.entries[1]!.changes).toEqual(expect.arrayContaining([{ field: 'status', before: 'pending', after: 'confirmed' }, { field: 'decided_by', before: null, after: ada.userId }]));
    expect(h.entries[1]!.who).toMatchObject({ name: 'Ada Admin', role: 'admin' });
  });

  it("a member (a person): joined, then the role changed, each with who did it and their role then", async () => {
    const h = (await history(ada, 'member', bo.userId).expect(200)).body as History;
    expect(h.entries.map((e) => e.type)).toEqual(['UserRegistered', 'MemberJoined', 'MemberRoleChanged']);
    expect(h.entries[1]!.changes).toEqual(expect.arrayContaining([{ field: 'member', before: false, after: true }, { field: 'role', before: null, after: 'user' }]));
    expect(h.entries[2]!.changes).toEqual([{ field: 'role', before: 'user', after: 'manager' }]);
    expect(h.entries[2]!.who).toMatchObject({ userId: ada.userId, name: 'Ada Admin', role: 'admin' });
    expect(JSON.stringify(h)).not.toMatch(/passwordHash|argon2/);
    expect(JSON.stringify(h)).not.toContain(TEST_HASH_PREFIX);
    expect(h.current).toMatchObject({ role: 'manager', first_name: 'Bo' });
  });

  it("the company: its registration; admins also see who joined", async () => {
    const admin = (await history(ada, 'company', ada.companyId).expect(200)).body as History;
    expect(admin.entries[0]).toMatchObject({ type: 'CompanyRegistered', who: { name: 'Ada Admin' } });
    expect(admin.entries.filter((e) => e.type === 'MemberJoined')).toHaveLength(3);
    const member = (await history(bo, 'company', ada.companyId).expect(200)).body as History;
    expect(member.entries.map((e) => e.type)).toEqual(['CompanyRegistered']);
  });

  it('is scoped like the record: a member sees their own, others get 404 as on the record read; auditors see the company', async () => {
    expect((await history(bo, 'receipt', boReceipt)).status).toBe(200);
    expect((await history(bo, 'transaction', edited.id)).status).toBe(404);
    expect((await api.http.get(`/api/transactions/${edited.id}`).set(bo.headers(ada.companyId))).status).toBe(404);
    expect((await history(bo, 'receipt', match.receipt_id)).status).toBe(404);
    expect((await history(bo, 'match', match.id)).status).toBe(404);
    expect((await history(bo, 'member', ada.userId)).status).toBe(404);
    expect((await history(bo, 'member', bo.userId)).status).toBe(200);
    for (const [kind, id] of [['transaction', edited.id], ['receipt', boReceipt], ['match', match.id], ['member', bo.userId], ['company', ada.companyId]] as const) {
      expect((await history(aud, kind, id)).status, kind).toBe(200);
    }
    // Another company's member: not a member here (403), and their own company knows no such ids (404).
    expect((await history(eve, 'transaction', edited.id)).status).toBe(403);
    expect((await api.http.get(`/api/history/transaction/${edited.id}`).set(eve.headers())).status).toBe(404);
    expect((await api.http.get(`/api/history/company/${ada.companyId}`).set(eve.headers())).status).toBe(404);
    expect((await history(ada, 'invoice', edited.id)).status).toBe(400);
    expect((await history(ada, 'transaction', '00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});

describe('asOf on the list and record reads', () => {
  const asOf = (who: Account, path: string, at: string, query: Record<string, string | number> = {}) => api.http.get(path).query({ ...query, asOf: at }).set(who.headers(ada.companyId));

  it('answers the lists as they stood: nothing before the import, exactly the live answers of the moment after matching', async () => {
    const before = await asOf(ada, '/api/transactions', moments.beforeImport);
    expect(before.status).toBe(200);
    expect(before.body.pagination.total).toBe(0);
    expect(before.headers['x-as-of']).toBe(moments.beforeImport);
    expect((await asOf(ada, '/api/receipts', moments.beforeImport)).body.pagination.total).toBe(0);

    const tx = await asOf(ada, '/api/transactions', moments.afterMatching, { limit: 500, sortBy: 'description', sortOrder: 'asc' });
    expect(tx.body).toEqual(liveAfterMatching.transactions);
    expect((tx.body.transactions as Tx[]).find((t) => t.id === edited.id)!.description).toBe(ORIGINAL.get(edited.id));
    expect((await asOf(ada, '/api/receipts', moments.afterMatching, { limit: 100 })).body).toEqual(liveAfterMatching.receipts);
    expect((await asOf(ada, '/api/matches', moments.afterMatching)).body).toEqual(liveAfterMatching.matches);
  });

  it('answers a record, and filters and pages as the live list does', async () => {
    const record = await asOf(ada, `/api/transactions/${edited.id}`, moments.afterConfirm);
    expect(record.body).toEqual(liveAfterConfirm.record);
    expect(record.body.transaction).toMatchObject({ description: ORIGINAL.get(edited.id), receipt_count: 1 });
    expect((await api.http.get(`/api/transactions/${edited.id}`).set(ada.headers())).body.transaction.description).toBe('Corrected by Ada');
    expect((await asOf(ada, '/api/transactions', moments.afterConfirm, { limit: 500, sortBy: 'description', sortOrder: 'asc' })).body).toEqual(liveAfterConfirm.transactions);
    // Matched lines: none before the confirm, one after.
    expect((await asOf(ada, '/api/transactions', moments.afterMatching, { status: 'matched' })).body.pagination.total).toBe(0);
    expect((await asOf(ada, '/api/transactions', moments.afterConfirm, { status: 'matched' })).body.pagination.total).toBe(1);
    expect((await txList(ada, { status: 'matched' })).body.pagination.total).toBe(1);
    const page2 = await asOf(ada, '/api/transactions', moments.afterMatching, { limit: 3, page: 2, sortBy: 'description', sortOrder: 'asc' });
    const all = (liveAfterMatching.transactions as { transactions: Tx[] }).transactions;
    expect((page2.body.transactions as Tx[]).map((t) => t.id)).toEqual(all.slice(3, 6).map((t) => t.id));
    // The match as it stood before the confirm.
    const matches = (await asOf(ada, '/api/matches/pending', moments.afterMatching)).body as MatchRow[];
    expect(matches.map((m) => m.id)).toContain(match.id);
    // A receipt before it existed: 404, like any unknown id.
    expect((await asOf(ada, `/api/receipts/${match.receipt_id}`, moments.beforeImport)).status).toBe(404);
  });

  it('keeps scoping (a member: their own; an auditor: the company) and refuses a bad moment', async () => {
    const mine = await asOf(bo, '/api/transactions', moments.afterConfirm);
    expect(mine.body.pagination.total).toBe(0);
    expect((await asOf(bo, `/api/transactions/${edited.id}`, moments.afterConfirm)).status).toBe(404);
    expect(((await asOf(bo, '/api/receipts', moments.afterConfirm)).body.receipts as Array<{ id: string }>).map((r) => r.id)).toEqual([boReceipt]);
    expect((await asOf(aud, '/api/transactions', moments.afterMatching, { limit: 500, sortBy: 'description', sortOrder: 'asc' })).body).toEqual(liveAfterMatching.transactions);
    for (const bad of ['yesterday', '2026-11-23', '2026-13-40T00:00:00Z', '2026-11-23T10:00:00']) {
      const res = await asOf(ada, '/api/transactions', bad);
      expect(res.status, bad).toBe(400);
    }
  });
});

describe('history across members', () => {
  it("a member's line (not an admin) matched by the admin to someone else's receipt: the member's history does not show that receipt", async () => {
    const csv = Buffer.from('Transaction Date,Description,Amount\n2024-03-09,BO TAXI RIDE,-23.40\n');
    expect((await api.http.post('/api/transactions/import').set(bo.headers(ada.companyId)).attach('csvFile', csv, 'bo.csv')).status).toBe(200);
    const boTx = ((await txList(bo)).body.transactions as Tx[]).find((t) => t.description === 'BO TAXI RIDE')!;
    const receipts = (await api.http.get('/api/receipts').query({ limit: 100 }).set(ada.headers())).body.receipts as Array<{ id: string }>;
    const adas = receipts.find((r) => r.id !== match.receipt_id && r.id !== boReceipt)!;
    const manual = await api.http.post('/api/matches').set(ada.headers()).send({ receiptId: adas.id, transactionId: boTx.id });
    expect(manual.status, JSON.stringify(manual.body)).toBeLessThan(300);
    // The admin sees the match in the line's history; Bo, whose line it is, does not see Ada's receipt through it.
    const forAda = await history(ada, 'transaction', boTx.id);
    expect(forAda.status).toBe(200);
    const entries = (forAda.body as { entries: Array<{ changes: Array<{ field: string; after: unknown }> }> }).entries;
    const shown = entries.flatMap((e) => e.changes).find((c) => c.field === 'receipts')?.after as string;
    expect(shown).toMatch(/\.jpg$/);
    const forBo = await history(bo, 'transaction', boTx.id);
    expect(forBo.status).toBe(200);
    expect(JSON.stringify(forBo.body)).not.toContain(shown);
  });
});
