import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiptStream } from '@paperlink/domain';
import { autoMatchJobsFrom } from '../../infra/src/matches/matching-job';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';
import { BANK_CSV, imageOf, labelledReader, labels } from '../support/labelled-reader';

interface Truth {
  receipt_to_transaction: Record<string, { date: string; description: string; amount: number } | null>;
}
interface MatchRow {
  id: string;
  receipt_id: string;
  transaction_id: string;
  original_filename: string;
  description: string;
  transaction_date: string;
  transaction_amount: number;
  extracted_amount: number;
  match_confidence: number;
  user_confirmed: boolean;
  evidence: { reasons: string[]; amountKind: string; daysBetween: number | null; merchantSimilarity: number | null };
}

let api: Api;
/** The confirmed match a test deleted (the next test runs a late job over its pair). */
let deletedPair: MatchRow | undefined;
let ada: Account;
let bo: Account;
const truth = JSON.parse(readFileSync(join(BANK_CSV, 'chase.truth.json'), 'utf8')) as Truth;
/** Receipts with a card line, and one without (paid cash). */
const withLine = labels.filter((l) => truth.receipt_to_transaction[l.id]).slice(0, 6);
const cash = labels.find((l) => truth.receipt_to_transaction[l.id] === null)!;
const receiptIds = new Map<string, string>();
const txByKey = new Map<string, string>();

async function settledAll(ids: string[]) {
  for (let i = 0; i < 200; i++) {
    const list = (await api.http.get('/api/receipts').query({ limit: 100 }).set(ada.headers())).body.receipts as Array<{ id: string; processing_status: string }>;
    if (ids.every((id) => list.find((r) => r.id === id)?.processing_status === 'completed')) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('receipts never completed');
}

const pending = async (who = ada, companyId?: string) => (await api.http.get('/api/matches/pending').set(who.headers(companyId))).body as MatchRow[];
const all = async (who = ada, companyId?: string) => (await api.http.get('/api/matches').set(who.headers(companyId))).body as MatchRow[];
const truthTx = (receiptLabelId: string) => {
  const t = truth.receipt_to_transaction[receiptLabelId]!;
  return txByKey.get(`${t.date}|${t.description}|${t.amount}`);
};

beforeAll(async () => {
  api = await startApi({}, undefined, { reader: labelledReader() });
  ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
  bo = await registerAccount(api, { firstName: 'Bo', lastName: 'User' });
  await invite(api, ada, bo, 'user');
  const imp = await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', readFileSync(join(BANK_CSV, 'chase.csv')), 'chase.csv');
  expect(imp.status).toBe(200);
  const txs = (await api.http.get('/api/transactions').query({ limit: 500 }).set(ada.headers())).body.transactions as Array<{ id: string; transaction_date: string; description: string; amount: number }>;
  for (const t of txs) txByKey.set(`${t.transaction_date}|${t.description}|${t.amount}`, t.id);
  for (const l of [...withLine, cash]) {
    const res = await api.http.post('/api/receipts/upload').set(ada.headers()).attach('receipt', imageOf(l.id), `${l.id}.jpg`);
    receiptIds.set(l.id, res.body.receipt.id);
  }
  await settledAll([...receiptIds.values()]);
});
afterAll(() => api?.close());

describe('matches API', () => {
  it('suggests matches by itself once receipts are read, each with its evidence, and none for the cash receipt', async () => {
    let rows: MatchRow[] = [];
    for (let i = 0; i < 100 && rows.length < withLine.length; i++) {
      rows = await pending();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(rows).toHaveLength(withLine.length);
    for (const l of withLine) {
      const row = rows.find((r) => r.receipt_id === receiptIds.get(l.id))!;
      expect(row.transaction_id).toBe(truthTx(l.id));
      expect(row.match_confidence).toBeGreaterThanOrEqual(75);
      expect(row.evidence.reasons.length).toBeGreaterThan(0);
      expect(row).toMatchObject({ user_confirmed: false, original_filename: `${l.id}.jpg`, extracted_amount: l.total });
    }
    expect(rows.some((r) => r.receipt_id === receiptIds.get(cash.id))).toBe(false);
    const stats = (await api.http.get('/api/matches/stats').set(ada.headers())).body;
    expect(stats).toMatchObject({ total_matches: withLine.length, confirmed_matches: 0, pending_matches: withLine.length, unmatched_receipts: withLine.length + 1 });
  });

  it('gives a slice of a list, best first, with limit and offset (the dashboard reads ten, not every match)', async () => {
    const whole = await pending();
    expect(whole.length).toBeGreaterThan(3);
    const slice = async (q: Record<string, number | string | undefined>, who = ada) => api.http.get('/api/matches/pending').query(q).set(who.headers());
    expect((await slice({ limit: 2 })).body).toEqual(whole.slice(0, 2));
    expect((await slice({ limit: 2, offset: 1 })).body).toEqual(whole.slice(1, 3));
    expect((await slice({ offset: whole.length })).body).toEqual([]);
    const both = await all();
    expect((await api.http.get('/api/matches').query({ limit: 3 }).set(ada.headers())).body).toEqual(both.slice(0, 3));
    // One list by status (the matches screen's tabs), paged the same way.
    for (const status of ['pending', 'confirmed'] as const) {
      const wanted = both.filter((m) => m.user_confirmed === (status === 'confirmed'));
      expect((await api.http.get('/api/matches').query({ status }).set(ada.headers())).body).toEqual(wanted);
      expect((await api.http.get('/api/matches').query({ status, limit: 2, offset: 1 }).set(ada.headers())).body).toEqual(wanted.slice(1, 3));
    }
    const badStatus = await api.http.get('/api/matches').query({ status: 'rejected' }).set(ada.headers());
    expect(badStatus.status).toBe(400);
    expect(JSON.stringify(badStatus.body)).toContain("status must be 'pending' or 'confirmed'");
    // A member's slice is of their own list only.
    expect((await slice({ limit: 5 }, bo)).body).toEqual((await pending(bo)).slice(0, 5));
    for (const bad of [{ limit: 0 }, { limit: 1001 }, { limit: 'ten' }, { offset: -1 }]) {
      const r = await slice(bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(JSON.stringify(r.body)).toMatch(/limit must be a whole number from 1 to 1000|offset must be a whole number of 0 or more/);
    }
  });

  it('confirms: the receipt and transaction count it, and a re-run never undoes it', async () => {
    const [row] = await pending();
    expect((await api.http.put(`/api/matches/${row!.id}/confirm`).set(ada.headers())).body).toMatchObject({ message: 'Match confirmed' });
    const tx = (await api.http.get(`/api/transactions/${row!.transaction_id}`).set(ada.headers())).body.transaction;
    expect(tx).toMatchObject({ receipt_count: 1, receipts: row!.original_filename, status: 'matched' });
    expect((await api.http.get(`/api/receipts/${row!.receipt_id}`).set(ada.headers())).body.receipt).toMatchObject({ match_count: 1, match_status: 'matched' });
    const run = await api.http.post('/api/matches/auto-match').set(ada.headers()).send({ threshold: 70 });
    expect(run.body).toMatchObject({ message: `Auto-matched ${run.body.matched} receipts!` });
    const after = await all();
    expect(after.find((m) => m.id === row!.id)).toMatchObject({ user_confirmed: true });
    expect(after.filter((m) => m.receipt_id === row!.receipt_id)).toHaveLength(1);
    expect((await api.http.put(`/api/matches/${row!.id}/reject`).set(ada.headers())).status).toBe(409);
  });

  it('rejects: the pair is never proposed again, by auto-match or by find', async () => {
    const [row] = await pending();
    expect((await api.http.put(`/api/matches/${row!.id}/reject`).set(ada.headers())).body).toMatchObject({ message: 'Match rejected' });
    await api.http.post('/api/matches/auto-match').set(ada.headers()).send({ threshold: 0 }).expect(200);
    expect((await all()).some((m) => m.receipt_id === row!.receipt_id && m.transaction_id === row!.transaction_id)).toBe(false);
    const find = await api.http.post(`/api/matches/find/${row!.receipt_id}`).set(ada.headers()).send({});
    expect(find.status).toBe(200);
    expect(find.body.candidates[0].transaction_id).toBe(row!.transaction_id);
    expect((await pending()).some((m) => m.receipt_id === row!.receipt_id && m.transaction_id === row!.transaction_id)).toBe(false);
  });

  it('matches by hand, one to one, and deletes a confirmed match with the counts restored', async () => {
    const free = (await pending())[0]!;
    const taken = (await all()).find((m) => m.user_confirmed)!;
    // The transaction of a confirmed match cannot take a second receipt.
    const clash = await api.http.post('/api/matches').set(ada.headers()).send({ receiptId: free.receipt_id, transactionId: taken.transaction_id });
    expect(clash.status).toBe(409);
    const manual = await api.http.post('/api/matches').set(ada.headers()).send({ receiptId: free.receipt_id, transactionId: free.transaction_id });
    expect(manual.status).toBe(200);
    expect(manual.body.match).toMatchObject({ user_confirmed: true });
    expect((await pending()).some((m) => m.receipt_id === free.receipt_id)).toBe(false);
    const del = await api.http.delete(`/api/matches/${taken.id}`).set(ada.headers());
    expect(del.body).toMatchObject({ message: 'Match deleted' });
    expect((await api.http.get(`/api/transactions/${taken.transaction_id}`).set(ada.headers())).body.transaction).toMatchObject({ receipt_count: 0, receipts: '' });
    expect((await api.http.get(`/api/receipts/${taken.receipt_id}`).set(ada.headers())).body.receipt.match_count).toBe(0);
    expect((await api.http.delete(`/api/matches/${taken.id}`).set(ada.headers())).status).toBe(404);
    deletedPair = taken;
  });

  it('a late auto-match job (retried, or run behind under load) does not propose a pair a person deleted after its evidence', async () => {
    const { receipt_id: receiptId, transaction_id: transactionId } = deletedPair!;
    // The job the receipt's reading set off, run again now: its evidence is older than the deletion.
    const read = (await api.paperlink.adapters.events.readStream(receiptStream(receiptId))).find((e) => e.type === 'ReceiptRead')!;
    const [job] = autoMatchJobsFrom(read);
    expect(await api.paperlink.adapters.jobs.submit({ ...job!, id: `${job!.id}-late` })).toBe('done');
    const pair = async () => (await all()).filter((m) => m.receipt_id === receiptId && m.transaction_id === transactionId);
    expect(await pair()).toEqual([]);
    // New evidence after the deletion (here: the same seed at the log's head) proposes it again.
    const head = await api.paperlink.adapters.events.headPosition();
    expect(await api.paperlink.adapters.jobs.submit({ ...job!, id: `${job!.id}-new`, payload: { ...(job!.payload as object), position: head } })).toBe('done');
    expect(await pair()).toHaveLength(1);
    // Deleted by a person again, so the tests after this one see the company as before.
    const again = (await pair())[0]!;
    await api.http.delete(`/api/matches/${again.id}`).set(ada.headers()).expect(200);
  });

  it('keeps members to matches of their own receipts or transactions and refuses bad input', async () => {
    expect(await all(bo, ada.companyId)).toEqual([]);
    const some = (await all())[0]!;
    expect((await api.http.put(`/api/matches/${some.id}/confirm`).set(bo.headers(ada.companyId))).status).toBe(404);
    expect((await api.http.post(`/api/matches/find/${some.receipt_id}`).set(bo.headers(ada.companyId)).send({})).status).toBe(404);
    expect((await api.http.post('/api/matches/auto-match').set(ada.headers()).send({ threshold: 101 })).status).toBe(400);
    expect((await api.http.post('/api/matches').set(ada.headers()).send({ receiptId: 'nope', transactionId: some.transaction_id })).status).toBe(404);
    const eve = await registerAccount(api);
    expect((await api.http.get('/api/matches').set(eve.headers(ada.companyId))).status).toBe(403);
  });

  it('drops a receipt’s matches when the receipt is deleted', async () => {
    const confirmed = (await all()).find((m) => m.user_confirmed)!;
    await api.http.delete(`/api/receipts/${confirmed.receipt_id}`).set(ada.headers()).expect(200);
    expect((await all()).some((m) => m.receipt_id === confirmed.receipt_id)).toBe(false);
    expect((await api.http.get(`/api/transactions/${confirmed.transaction_id}`).set(ada.headers())).body.transaction.receipt_count).toBe(0);
  });

  it('runs auto-match by itself when a statement arrives after the receipts', async () => {
    const cy = await registerAccount(api, { firstName: 'Cy', lastName: 'Later' });
    const l = withLine[0]!;
    const up = await api.http.post('/api/receipts/upload').set(cy.headers()).attach('receipt', imageOf(l.id), 'early.jpg');
    for (let i = 0; i < 100; i++) {
      if ((await api.http.get(`/api/receipts/${up.body.receipt.id}`).set(cy.headers())).body.receipt.processing_status === 'completed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await pending(cy)).toEqual([]);
    await api.http.post('/api/transactions/import').set(cy.headers()).attach('csvFile', readFileSync(join(BANK_CSV, 'chase.csv')), 'chase.csv').expect(200);
    let rows: MatchRow[] = [];
    for (let i = 0; i < 100 && rows.length === 0; i++) {
      rows = await pending(cy);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(rows.map((r) => [r.receipt_id, r.description])).toEqual([[up.body.receipt.id, truth.receipt_to_transaction[l.id]!.description]]);
  });
});
