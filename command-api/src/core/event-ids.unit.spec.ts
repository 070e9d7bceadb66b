import { describe, expect, it } from 'vitest';
import { ConcurrencyError, type AppendResult, type EventStore, type RequestContext, type StreamAppend } from '@paperlink/domain';
import { CommandBus, type Plan } from './bus';
import { appendEventIds, smallData, SMALL_DATA_NODES, type IdSeed } from './event-ids';

const key = new Uint8Array(32).fill(7);
const seed = (request: string, run = 'run-1'): IdSeed => ({ key, request, run });
const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const append = (events: Array<{ type: string; data: unknown }>, streamId = 'transaction-1', expectedRevision: StreamAppend['expectedRevision'] = 4) => ({ streamId, expectedRevision, events });
const rows = (n: number, tag: string) => ({ importId: tag, rows: Array.from({ length: n }, (_, i) => ({ row: i, description: `${tag} ${i}`, amountCents: i })) });

describe('appendEventIds', () => {
  const plan = append([{ type: 'TransactionUpdated', data: { amountCents: 500 } }, { type: 'TransactionNoted', data: { note: 'lunch' } }]);

  it('gives the same plan of the same request the same ids, each a UUID of version 8, distinct within the append', () => {
    const ids = appendEventIds(seed('req-1\nfp'), plan);
    expect(ids).toEqual(appendEventIds(seed('req-1\nfp', 'another run'), plan));
    expect(ids.every((id) => UUID_V8.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(2);
  });

  it('gives another request other ids for the same events', () => {
    const ids = appendEventIds(seed('req-1\nfp'), plan);
    const other = appendEventIds(seed('req-2\nfp'), plan);
    expect(other.some((id) => ids.includes(id))).toBe(false);
    expect(appendEventIds({ key: new Uint8Array(32).fill(8), request: 'req-1\nfp', run: 'run-1' }, plan)).not.toEqual(ids);
  });

  it('never gives two different appends one id: another stream, revision, type, data or order changes them all', () => {
    const ids = appendEventIds(seed('req-1\nfp'), plan);
    const variants = [
      append(plan.events, 'transaction-2'),
      append(plan.events, 'transaction-1', 5),
      append(plan.events, 'transaction-1', 'any'),
      append([{ ...plan.events[0]!, data: { amountCents: 501 } }, plan.events[1]!]),
      append([plan.events[0]!, { ...plan.events[1]!, type: 'TransactionNoteRemoved' }]),
      append([plan.events[1]!, plan.events[0]!]),
    ];
    for (const v of variants) expect(appendEventIds(seed('req-1\nfp'), v).some((id) => ids.includes(id))).toBe(false);
  });

  it('identifies a large event by the run: the same ids across one run, new ones in another', () => {
    const big = append([{ type: 'TransactionsImported', data: rows(1000, 'a') }], 'import-1', 'no_stream');
    expect(smallData(big.events[0]!.data)).toBe(false);
    const ids = appendEventIds(seed('req-1\nfp', 'run-1'), big);
    expect(appendEventIds(seed('req-1\nfp', 'run-1'), big)).toEqual(ids);
    expect(appendEventIds(seed('req-1\nfp', 'run-2'), big)).not.toEqual(ids);
  });

  it('counts values and keys to tell small data from large', () => {
    expect(smallData({ a: 1, b: [1, 2, 3] })).toBe(true);
    expect(smallData(Array.from({ length: SMALL_DATA_NODES - 1 }, () => 0))).toBe(true);
    expect(smallData(Array.from({ length: SMALL_DATA_NODES }, () => 0))).toBe(false);
    expect(smallData(rows(300, 'x'))).toBe(false);
  });
});

/** A store that records every appendMany and refuses the first `conflicts` of them. */
function recordingStore(conflicts: number) {
  const sent: StreamAppend[][] = [];
  const store = {
    kind: 'recording',
    readStream: async () => [],
    appendMany: async (appends: StreamAppend[]): Promise<AppendResult[]> => {
      sent.push(appends);
      if (sent.length <= conflicts) throw new ConcurrencyError(appends[0]!.streamId, '4', '5');
      return appends.map((_, i) => ({ nextExpectedRevision: 0, position: i + 1 }));
    },
  } as unknown as EventStore;
  return { store, sent };
}

describe('CommandBus event ids', () => {
  const ctx = (requestId: string, at = '2026-03-01T10:00:00Z'): RequestContext => ({ requestId, correlationId: requestId, now: new Date(at), companyId: 'c1', userId: 'u1' });
  const plan = async (): Promise<Plan> => ({ appends: [append([{ type: 'TransactionUpdated', data: { amountCents: 500 } }])], body: { ok: true } });
  const ids = (appends: StreamAppend[]) => appends.map((a) => a.events.map((e) => e.id));

  it('keeps the ids of a plan across its own attempts after a conflict', async () => {
    const { store, sent } = recordingStore(2);
    await new CommandBus(store, async () => true, key).run(ctx('generated-1'), plan);
    expect(sent).toHaveLength(3);
    expect(ids(sent[1]!)).toEqual(ids(sent[0]!));
    expect(ids(sent[2]!)).toEqual(ids(sent[0]!));
  });

  it('gives a request sent again with the same X-Request-Id the same ids, its record included; another request new ones', async () => {
    const first = recordingStore(0);
    const again = recordingStore(0);
    const other = recordingStore(0);
    const idem = (k: string) => ({ key: k, fingerprint: 'fp-1' });
    await new CommandBus(first.store, async () => true, key).run(ctx('req-1'), plan, idem('req-1'));
    // A second later, in another process with the same key: the metadata differs, the ids do not.
    await new CommandBus(again.store, async () => true, key).run(ctx('req-1', '2026-03-01T10:00:01Z'), plan, idem('req-1'));
    await new CommandBus(other.store, async () => true, key).run(ctx('req-2'), plan, idem('req-2'));
    expect(first.sent[0]!.map((a) => a.streamId)).toEqual(['transaction-1', expect.stringMatching(/^request-/)]);
    expect(ids(again.sent[0]!)).toEqual(ids(first.sent[0]!));
    expect(ids(other.sent[0]!).flat().some((id) => ids(first.sent[0]!).flat().includes(id))).toBe(false);
  });

  it('gives requests without an X-Request-Id ids of their own', async () => {
    const a = recordingStore(0);
    const b = recordingStore(0);
    await new CommandBus(a.store, async () => true, key).run(ctx('generated-1'), plan);
    await new CommandBus(b.store, async () => true, key).run(ctx('generated-2'), plan);
    expect(ids(b.sent[0]!)).not.toEqual(ids(a.sent[0]!));
  });
});
