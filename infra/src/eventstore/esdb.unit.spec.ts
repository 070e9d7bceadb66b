/**
 * The EventStoreDB adapter against a fake server (esdb-fake.ts) that keeps the server's rules the
 * adapter relies on: its append limit, its expected-revision and idempotence checks, positions
 * that are byte offsets, subscriptions that drop.
 */
import { describe, expect, it } from 'vitest';
import { ConcurrencyError, type NewEvent, type RecordedEvent } from '@paperlink/domain';
import { EventTooLargeError } from './esdb-append';
import { EsdbEventStore, type EsdbClient } from './esdb';
import { FakeEsdb } from './esdb-fake';

const noWait = { attempts: 4, baseMs: 1, maxMs: 1, sleep: async () => {} };

function storeOn(server: FakeEsdb, maxAppendBytes = 1024 * 1024, waits: number[] = []) {
  const store = new EsdbEventStore(server as unknown as EsdbClient, {
    maxAppendBytes,
    appendRetry: noWait,
    resubscribe: { baseMs: 100, maxMs: 400, sleep: async (ms) => void waits.push(ms), log: () => {} },
  });
  return store;
}

let n = 0;
const ev = (type: string, data: unknown = {}): NewEvent => ({ id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, type, data, metadata: { occurredAt: '2026-01-01T00:00:00Z', requestId: 'r1' } });
const rows = (count: number, bytes: number) => Array.from({ length: count }, (_, i) => ev('TransactionsImported', { part: i, rows: 'x'.repeat(bytes) }));

describe('EsdbEventStore appends', () => {
  it('writes an append over the server limit in chunks at consecutive revisions; the result is the last event', async () => {
    const server = new FakeEsdb();
    const store = storeOn(server);
    const events = rows(12, 300_000);
    const result = await store.appendToStream('import-1', events, 'no_stream');
    expect(server.stream('import-1').map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(server.appends.map((a) => [a.expected, a.ids.length])).toEqual([['no_stream', 3], ['2', 3], ['5', 3], ['8', 3]]);
    expect(result).toEqual({ nextExpectedRevision: 11, position: server.stream('import-1')[11]!.position });
  });

  it('sends a chunk whose answer was lost again with the same ids: stored once, the next chunk continues after it', async () => {
    const server = new FakeEsdb();
    const store = storeOn(server);
    server.faults.set(2, 'lost-answer'); // the second chunk is committed, the client times out
    const events = rows(9, 300_000);
    const result = await store.appendToStream('import-1', events, 'no_stream');
    expect(server.appends.map((a) => [a.expected, a.outcome])).toEqual([['no_stream', 'written'], ['2', 'written'], ['2', 'idempotent'], ['5', 'written']]);
    expect(server.appends[2]!.ids).toEqual(server.appends[1]!.ids);
    expect(server.stream('import-1').map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(result.nextExpectedRevision).toBe(8);
  });

  it('gives the position of a recognised retry, which the server answers with a revision only', async () => {
    const server = new FakeEsdb();
    const store = storeOn(server);
    const events = [ev('A'), ev('B')];
    const first = await store.appendToStream('s-1', events, 'no_stream');
    const again = await store.appendToStream('s-1', events, 'no_stream');
    expect(server.appends.map((a) => a.outcome)).toEqual(['written', 'idempotent']);
    expect(again).toEqual(first);
    expect(first.position).toBeGreaterThan(0);
  });

  it('completes a plan sent again with the same ids after it stopped half-way: the streams written are recognised, the rest written', async () => {
    const server = new FakeEsdb();
    const store = storeOn(server);
    const plan = [
      { streamId: 'statementfile-1', expectedRevision: 'no_stream' as const, events: [ev('StatementFileTaken')] },
      { streamId: 'import-1', expectedRevision: 'no_stream' as const, events: rows(6, 300_000) },
      { streamId: 'imports-c1', expectedRevision: 'no_stream' as const, events: [ev('StatementImported')] },
    ];
    for (let call = 3; call <= 6; call++) server.faults.set(call, 'unavailable'); // the second chunk of the rows, every send
    await expect(store.appendMany(plan)).rejects.toMatchObject({ type: 'unavailable' });
    expect(server.stream('import-1')).toHaveLength(3);
    server.faults.clear();
    await store.appendMany(plan);
    expect(server.appends.slice(6).map((a) => [a.streamId, a.outcome])).toEqual([
      ['statementfile-1', 'idempotent'], ['import-1', 'idempotent'], ['import-1', 'written'], ['imports-c1', 'written'],
    ]);
    expect(server.stream('import-1').map((e) => e.id)).toEqual(plan[1]!.events.map((e) => e.id));
    expect(server.log.filter((e) => e.type === 'StatementImported')).toHaveLength(1);
  });

  it('answers another writer first with ConcurrencyError', async () => {
    const server = new FakeEsdb();
    const store = storeOn(server);
    server.write('s-1', 'Other');
    await expect(store.appendToStream('s-1', [ev('A')], 'no_stream')).rejects.toBeInstanceOf(ConcurrencyError);
    await expect(store.appendToStream('s-1', [ev('A')], 3)).rejects.toMatchObject({ streamId: 's-1', expected: '3', actual: '0' });
  });

  it('refuses an event larger than one append may be before sending anything', async () => {
    const server = new FakeEsdb();
    const store = storeOn(server, 1000);
    await expect(store.appendToStream('s-1', [ev('A'), ev('Big', { text: 'x'.repeat(2000) })], 'no_stream')).rejects.toBeInstanceOf(EventTooLargeError);
    expect(server.appends).toEqual([]);
  });

  it('says which setting to lower when the server takes less than EVENTSTORE_MAX_APPEND_BYTES', async () => {
    const server = new FakeEsdb();
    server.maxAppendSize = 500_000;
    const store = storeOn(server);
    await expect(store.appendToStream('s-1', rows(3, 300_000), 'no_stream')).rejects.toThrow(/at most 500000 bytes.*EVENTSTORE_MAX_APPEND_BYTES/);
  });
});

describe('EsdbEventStore reads by real positions', () => {
  it('reads all after a position and backwards before one, leaving system events out', async () => {
    const server = new FakeEsdb();
    const store = storeOn(server);
    const a = server.write('a-1', 'A');
    server.write('$stats-1', '$statsCollected');
    const b = server.write('b-1', 'B');
    const c = server.write('c-1', 'C');
    expect((await store.readAll({ after: 0, maxCount: 10 })).map((e) => e.type)).toEqual(['A', 'B', 'C']);
    expect((await store.readAll({ after: a.position, maxCount: 1 })).map((e) => e.type)).toEqual(['B']);
    expect(await store.headPosition()).toBe(c.position);
    expect((await store.readAllBackwards({ maxCount: 10 })).map((e) => e.type)).toEqual(['C', 'B', 'A']);
    expect((await store.readAllBackwards({ before: b.position, maxCount: 1 })).map((e) => e.type)).toEqual(['A']);
    expect((await store.readAllBackwards({ before: a.position, maxCount: 5 }))).toEqual([]);
    // A position between two events is not one: the server refuses to read from it.
    await expect(store.readAll({ after: a.position + 1, maxCount: 1 })).rejects.toThrow('invalid position');
  });
});

describe('EsdbEventStore subscriptions', () => {
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
    expect(check()).toBe(true);
  };

  it('subscribes again from the last handled position when the server drops or ends the subscription, with a capped exponential back-off', async () => {
    const server = new FakeEsdb();
    const waits: number[] = [];
    const store = storeOn(server, undefined, waits);
    for (let i = 0; i < 5; i++) server.write(`s-${i}`, `E${i}`);
    server.subscriptionScript.push({ after: 2, then: 'drop' }, { after: 0, then: 'drop' }, { after: 0, then: 'end' }, { after: 0, then: 'drop' }, { after: 0, then: 'drop' }, { after: 1, then: 'drop' });
    const seen: RecordedEvent[] = [];
    const sub = store.subscribeToAll({ after: 0, batchSize: 2 }, async (events) => void seen.push(...events));
    await until(() => seen.length === 5);
    server.write('s-5', 'E5');
    await until(() => seen.length === 6);
    await sub.close();
    // Every event once, in order, across six subscriptions.
    expect(seen.map((e) => e.type)).toEqual(['E0', 'E1', 'E2', 'E3', 'E4', 'E5']);
    const positions = seen.map((e) => e.position);
    expect(server.subscribedFrom).toEqual([0, positions[1], positions[1], positions[1], positions[1], positions[1], positions[2]]);
    // 100, 200, 400, then the cap; after an event is handled, from the start again.
    expect(waits).toEqual([100, 200, 400, 400, 400, 100]);
  });

  it('stops for good when the handler fails, and says so once', async () => {
    const server = new FakeEsdb();
    const store = storeOn(server);
    server.write('s-1', 'A');
    server.write('s-2', 'B');
    const errors: unknown[] = [];
    let calls = 0;
    const sub = store.subscribeToAll({ after: 0, batchSize: 1, onError: (e) => errors.push(e) }, async () => {
      calls++;
      throw new Error('projection failed');
    });
    await until(() => errors.length === 1);
    await new Promise((r) => setTimeout(r, 20));
    await sub.close();
    expect(errors).toEqual([new Error('projection failed')]);
    expect(calls).toBe(1);
    expect(server.subscribedFrom).toEqual([0]);
  });
});
