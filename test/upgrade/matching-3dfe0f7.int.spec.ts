import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmedOf, matchingCarriedStream, matchingStream, receiptMatchesStream, transactionMatchesStream, type EventStore, type RecordedEvent } from '@paperlink/domain';
import { LoadedBook } from '../../command-api/src/matches/book';
import { carryLegacyMatches } from '../../infra/src/eventstore/carry-legacy-matches';
import { SqliteEventStore } from '../../infra/src/eventstore/sqlite';
import { settle, startApi, type Api } from '../support/harness';
import { labelledReader } from '../support/labelled-reader';

/**
 * A data folder written by 3dfe0f7 (before ADR 0021; made by
 * test/fixtures/matching-3dfe0f7/make.ts), whose matches all live in `matching-<company>`,
 * keeps every guarantee once its matches are carried into the streams of their sides (ADR 0021).
 */
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'matching-3dfe0f7');
interface Pair {
  id: string;
  receiptId: string;
  transactionId: string;
}
const facts = JSON.parse(readFileSync(join(FIXTURE, 'facts.json'), 'utf8')) as {
  companyId: string;
  jwtSecret: string;
  ada: { email: string; password: string };
  confirmed: Pair;
  rejected: Pair;
  manual: Pair;
  withdrawn: string[];
  pending: string[];
  matches: Array<{ id: string; receipt_id: string; transaction_id: string; status: string }>;
  stats: Record<string, number>;
};

const copy = () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-matching-3dfe0f7-'));
  cpSync(join(FIXTURE, 'data-3dfe0f7'), dir, { recursive: true });
  return dir;
};
const carriedNotes = (events: RecordedEvent[]) => events.filter((e) => e.type === 'MatchesNoted' && (e.data as { reason: string }).reason === 'carried');
const sideStreams = () => {
  const pairs = facts.matches.map((m) => ({ receiptId: m.receipt_id, transactionId: m.transaction_id })).concat([facts.rejected]);
  return [...new Set(pairs.flatMap((p) => [receiptMatchesStream(p.receiptId), transactionMatchesStream(p.transactionId)]))];
};

let dir: string;
let api: Api;
let legacyLength: number;
let h: Record<string, string>;

beforeAll(async () => {
  dir = copy();
  // The fixture really is the old format: every match in the company's one stream, nothing in side streams.
  const old = new SqliteEventStore(join(dir, 'events.sqlite'));
  legacyLength = (await old.readStream(matchingStream(facts.companyId))).length;
  expect(legacyLength).toBeGreaterThan(4);
  for (const s of sideStreams()) expect(await old.readStream(s)).toEqual([]);
  await old.close();
  api = await startApi({ JWT_SECRET: facts.jwtSecret }, dir, { reader: labelledReader() });
  h = await signIn();
});

/**
 * Ada's headers. Right after a start on an old folder the account read models may still be
 * rebuilding (other projections changed version): a 401 there is retried for a few seconds.
 */
async function signIn(): Promise<Record<string, string>> {
  let login = await api.http.post('/api/auth/login').set('x-company-id', facts.companyId).send({ email: facts.ada.email, password: facts.ada.password });
  for (let i = 0; i < 100 && login.status === 401; i++) {
    await new Promise((r) => setTimeout(r, 50));
    login = await api.http.post('/api/auth/login').set('x-company-id', facts.companyId).send({ email: facts.ada.email, password: facts.ada.password });
  }
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  return { authorization: `Bearer ${login.body.accessToken}`, 'x-company-id': facts.companyId };
}

afterAll(async () => {
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

const list = async () => ((await api.http.get('/api/matches').set(h)).body as Array<{ id: string; receipt_id: string; transaction_id: string; status: string }>)
  .map((m) => ({ id: m.id, receipt_id: m.receipt_id, transaction_id: m.transaction_id, status: m.status }))
  .sort((a, b) => a.id.localeCompare(b.id));

describe('matches of a data folder made by 3dfe0f7', () => {
  it('are carried into their side streams once, and the lists are the same', async () => {
    // The carry runs in the background after the start: its mark says it is done.
    const events = api.paperlink.adapters.events;
    for (let i = 0; i < 100 && (await events.readStream(matchingCarriedStream(facts.companyId))).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await list()).toEqual(facts.matches);
    expect(((await api.http.get('/api/matches/pending').set(h)).body as Array<{ id: string }>).map((m) => m.id).sort()).toEqual(facts.pending);
    expect((await api.http.get('/api/matches/stats').set(h)).body).toEqual(facts.stats);
    for (const s of sideStreams()) expect(carriedNotes(await events.readStream(s)), s).toHaveLength(1);
    expect(await events.readStream(matchingCarriedStream(facts.companyId))).toHaveLength(1);
  });

  it('keeps one-to-one: a confirmed receipt or transaction (auto or by hand) takes no other', async () => {
    const [pendingId] = facts.pending;
    const pending = facts.matches.find((m) => m.id === pendingId)!;
    for (const taken of [facts.confirmed, facts.manual]) {
      const r = await api.http.post('/api/matches').set(h).send({ receiptId: taken.receiptId, transactionId: pending.transaction_id });
      expect(r.status, JSON.stringify(r.body)).toBe(409);
      expect(r.body.code).toBe('receipt_already_matched');
      const t = await api.http.post('/api/matches').set(h).send({ receiptId: pending.receipt_id, transactionId: taken.transactionId });
      expect(t.status).toBe(409);
      expect(t.body.code).toBe('transaction_already_matched');
      expect((await api.http.put(`/api/matches/${taken.id}/reject`).set(h)).status).toBe(409);
    }
    expect((await api.http.put(`/api/matches/${facts.rejected.id}/confirm`).set(h)).status).toBe(409);
    for (const id of facts.withdrawn) expect((await api.http.put(`/api/matches/${id}/confirm`).set(h)).status).toBe(404);
  });

  it('never proposes the rejected pair again, by auto-match or by find', async () => {
    const run = await api.http.post('/api/matches/auto-match').set(h).send({ threshold: 0 });
    expect(run.status).toBe(200);
    const find = await api.http.post(`/api/matches/find/${facts.rejected.receiptId}`).set(h).send({ threshold: 0 });
    expect(find.status).toBe(200);
    expect(find.body.candidates.map((c: { transaction_id: string }) => c.transaction_id)).toContain(facts.rejected.transactionId);
    const after = await list();
    // The lists show pending and confirmed matches: the rejected pair is in neither.
    expect(after.filter((m) => m.receipt_id === facts.rejected.receiptId && m.transaction_id === facts.rejected.transactionId)).toEqual([]);
    expect(run.body.suggested + after.length).toBeGreaterThan(0);
    // People's decisions stand.
    for (const m of facts.matches.filter((x) => x.status === 'confirmed')) expect(after).toContainEqual(m);
  });

  it('decides on carried pending matches, and never writes the old stream again', async () => {
    const id = facts.pending[1]!;
    expect((await api.http.put(`/api/matches/${id}/confirm`).set(h)).status).toBe(200);
    expect((await api.http.put(`/api/matches/${id}/reject`).set(h)).status).toBe(409);
    expect((await list()).find((m) => m.id === id)?.status).toBe('confirmed');
    expect(await api.paperlink.adapters.events.readStream(matchingStream(facts.companyId))).toHaveLength(legacyLength);
  });

  it('carries nothing twice when the folder is opened again', async () => {
    // The auto-match jobs the earlier steps set off run in the background (giving way to
    // requests): their suggestions are part of the state the folder is closed with.
    await settle(api);
    const before = await list();
    await api.close();
    api = await startApi({ JWT_SECRET: facts.jwtSecret }, dir, { reader: labelledReader() });
    h = await signIn();
    await settle(api);
    expect(await list()).toEqual(before);
    for (const s of sideStreams()) expect(carriedNotes(await api.paperlink.adapters.events.readStream(s)), s).toHaveLength(1);
  });
});

describe('the carry', () => {
  it('holds match decisions of the company until it is done: they never decide on a side not carried yet', async () => {
    const other = copy();
    const store = new SqliteEventStore(join(other, 'events.sqlite'));
    try {
      let loaded = false;
      const loading = new LoadedBook(store, facts.companyId).load([facts.confirmed.receiptId], [facts.confirmed.transactionId]).then((book) => {
        loaded = true;
        return book;
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(loaded).toBe(false);
      await carryLegacyMatches(store, [facts.companyId]);
      const book = await loading;
      expect(confirmedOf(book.receipt(facts.confirmed.receiptId))?.matchId).toBe(facts.confirmed.id);
      expect(confirmedOf(book.transaction(facts.confirmed.transactionId))?.matchId).toBe(facts.confirmed.id);
      // A company without an old stream is not held.
      await new LoadedBook(store, 'a-company-of-today').load(['r'], ['t']);
    } finally {
      await store.close();
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('resumes after a crash before its end mark, carrying no side twice', async () => {
    const other = copy();
    const store = new SqliteEventStore(join(other, 'events.sqlite'));
    try {
      let crash = true;
      const crashing: EventStore = new Proxy(store, {
        get(target, prop) {
          if (prop === 'appendToStream') {
            return async (...args: Parameters<EventStore['appendToStream']>) => {
              if (crash) throw new Error('killed before the mark');
              return target.appendToStream(...args);
            };
          }
          const value = Reflect.get(target, prop, target) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      await expect(carryLegacyMatches(crashing, [facts.companyId])).rejects.toThrow('killed before the mark');
      expect(await store.readStream(matchingCarriedStream(facts.companyId))).toEqual([]);
      crash = false;
      const again = await carryLegacyMatches(crashing, [facts.companyId]);
      expect(again).toEqual({ companies: 1, sides: 0 });
      for (const s of sideStreams()) expect(carriedNotes(await store.readStream(s)), s).toHaveLength(1);
      expect(await carryLegacyMatches(store, [facts.companyId])).toEqual({ companies: 0, sides: 0 });
    } finally {
      await store.close();
      rmSync(other, { recursive: true, force: true });
    }
  });
});
