/**
 * The product on its EventStoreDB adapter, against a fake server (infra esdb-fake.ts) that keeps
 * the rules ADR 0016 is about: a 1 MiB append limit, positions that are byte offsets (a read from
 * any other offset is refused), subscriptions that a restart drops. EventStoreDB itself cannot run
 * here; its own contract suite (infra esdb.int.spec.ts) runs wherever EVENTSTORE_URL names one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importStream } from '@paperlink/domain';
import { EsdbEventStore, type EsdbClient } from '../../infra/src/eventstore/esdb';
import { FakeEsdb } from '../../infra/src/eventstore/esdb-fake';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';

const server = new FakeEsdb();
let api: Api;
let me: Account;

beforeAll(async () => {
  const store = new EsdbEventStore(server as unknown as EsdbClient, {
    maxAppendBytes: 1024 * 1024,
    appendRetry: { attempts: 3, baseMs: 1, maxMs: 1 },
    resubscribe: { baseMs: 20, maxMs: 100, log: () => {} },
  });
  api = await startApi({}, undefined, { wrapEvents: () => store });
  me = await registerAccount(api);
});
afterAll(async () => api?.close());

const total = async () => (await api.http.get('/api/transactions').query({ limit: 1 }).set(me.headers()).expect(200)).body.pagination.total as number;
async function until(check: () => Promise<boolean>, ms = 60_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the HTTP API on the EventStoreDB adapter (fake server, 1 MiB appends)', () => {
  it('imports a statement whose rows pass the limit, in chunks at consecutive revisions; the same file again adds nothing', async () => {
    const lines = ['Transaction Date,Description,Amount'];
    for (let i = 0; i < 20_000; i++) lines.push(`2026-0${1 + (i % 9)}-${String(1 + (i % 28)).padStart(2, '0')},CARD PAYMENT ${i} AT SOME SHOP,-${1 + (i % 500)}.${String(i % 100).padStart(2, '0')}`);
    const csv = Buffer.from(lines.join('\n'));
    const res = await api.http.post('/api/transactions/import').set(me.headers()).attach('csvFile', csv, 'big.csv');
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    expect(res.body.imported).toBe(20_000);
    const rows = server.appends.filter((a) => a.streamId.startsWith('import-'));
    expect(rows.length).toBeGreaterThan(2);
    expect(rows.every((a) => a.outcome === 'written')).toBe(true);
    expect(rows.map((a) => a.expected)).toEqual(['no_stream', ...rows.slice(1).map((_, i) => String(rows.slice(0, i + 1).reduce((n, a) => n + a.ids.length, 0) - 1))]);
    expect(server.stream(importStream(rows[0]!.streamId.slice('import-'.length))).length).toBe(20);
    await until(async () => (await total()) === 20_000);
    const again = await api.http.post('/api/transactions/import').set(me.headers()).attach('csvFile', csv, 'big.csv');
    expect(again.body).toMatchObject({ imported: 0, alreadyImported: true });
  });

  it('keeps the read models current after the server drops every subscription', async () => {
    const before = await total();
    server.drop();
    const res = await api.http.post('/api/transactions/import').set(me.headers()).attach('csvFile', Buffer.from('Transaction Date,Description,Amount\n2026-03-03,AFTER THE RESTART,-9.99\n'), 'after.csv');
    expect(res.body.imported).toBe(1);
    await until(async () => (await total()) === before + 1, 10_000);
  });

  it('answers an as-of read at a moment between two imports (its position found by real positions)', async () => {
    const moment = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    const res = await api.http.post('/api/transactions/import').set(me.headers()).attach('csvFile', Buffer.from('Transaction Date,Description,Amount\n2026-03-04,LATER STILL,-1.50\n'), 'later.csv');
    expect(res.body.imported).toBe(1);
    await until(async () => (await total()) === 20_002, 10_000);
    const asOf = await api.http.get('/api/transactions').query({ limit: 1, asOf: moment }).set(me.headers());
    expect(asOf.status, JSON.stringify(asOf.body).slice(0, 300)).toBe(200);
    expect(asOf.body.pagination.total).toBe(20_001);
  });
});
