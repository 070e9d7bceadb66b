import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConcurrencyError, type EventStore, type NewEvent, type RecordedEvent } from '@paperlink/domain';

/** One suite every event store adapter must pass. */
export function eventStoreContract(name: string, create: () => Promise<EventStore>): void {
  describe(`event store contract: ${name}`, () => {
    let store: EventStore;
    beforeAll(async () => {
      store = await create();
    });
    afterAll(async () => {
      await store?.close();
    });

    const ev = (type: string, data: unknown = {}): NewEvent => ({
      id: randomUUID(),
      type,
      data,
      metadata: { occurredAt: new Date().toISOString(), requestId: 'r1' },
    });
    const stream = () => `contract-${randomUUID().replace(/-/g, '')}`;

    it('appends to a new stream and reads it back in order with data and metadata', async () => {
      const s = stream();
      const r = await store.appendToStream(s, [ev('A', { n: 1 }), ev('B', { n: 2 })], 'no_stream');
      expect(r.nextExpectedRevision).toBe(1);
      const events = await store.readStream(s);
      expect(events.map((e) => [e.type, e.revision, (e.data as { n: number }).n])).toEqual([['A', 0, 1], ['B', 1, 2]]);
      expect(events[0]!.metadata.requestId).toBe('r1');
      expect(events[1]!.position).toBeGreaterThan(events[0]!.position);
      expect(r.position).toBe(events[1]!.position);
    });

    it('reads a missing stream as empty', async () => {
      expect(await store.readStream(stream())).toEqual([]);
    });

    it('refuses an append with a stale expected revision (optimistic concurrency)', async () => {
      const s = stream();
      await store.appendToStream(s, [ev('A')], 'no_stream');
      await expect(store.appendToStream(s, [ev('B')], 'no_stream')).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(store.appendToStream(s, [ev('B')], 5)).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(store.appendToStream(stream(), [ev('B')], 'stream_exists')).rejects.toBeInstanceOf(ConcurrencyError);
      await store.appendToStream(s, [ev('B')], 0);
      await store.appendToStream(s, [ev('C')], 'stream_exists');
      await store.appendToStream(s, [ev('D')], 'any');
      expect((await store.readStream(s)).map((e) => e.type)).toEqual(['A', 'B', 'C', 'D']);
    });

    it('lets exactly one of two concurrent appends with the same expected revision win', async () => {
      const s = stream();
      await store.appendToStream(s, [ev('A')], 'no_stream');
      const results = await Promise.allSettled([
        store.appendToStream(s, [ev('B1')], 0),
        store.appendToStream(s, [ev('B2')], 0),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
      expect(await store.readStream(s)).toHaveLength(2);
    });

    it('stores nothing new when the same event ids are appended again (idempotent retry)', async () => {
      const s = stream();
      const batch = [ev('A'), ev('B')];
      const first = await store.appendToStream(s, batch, 'no_stream');
      const again = await store.appendToStream(s, batch, 'no_stream');
      expect(again.nextExpectedRevision).toBe(first.nextExpectedRevision);
      expect(await store.readStream(s)).toHaveLength(2);
    });

    it('reads a stream from a revision with a maximum count', async () => {
      const s = stream();
      await store.appendToStream(s, [ev('A'), ev('B'), ev('C'), ev('D')], 'no_stream');
      const part = await store.readStream(s, { fromRevision: 1, maxCount: 2 });
      expect(part.map((e) => e.type)).toEqual(['B', 'C']);
    });

    it('reads all from a global position, strictly after it, in order', async () => {
      const s = stream();
      const head = await store.headPosition();
      await store.appendToStream(s, [ev('A'), ev('B'), ev('C')], 'no_stream');
      const all = (await store.readAll({ after: head, maxCount: 10_000 })).filter((e) => e.streamId === s);
      expect(all.map((e) => e.type)).toEqual(['A', 'B', 'C']);
      const after = await store.readAll({ after: all[0]!.position, maxCount: 10_000 });
      expect(after.find((e) => e.id === all[0]!.id)).toBeUndefined();
      expect(after.filter((e) => e.streamId === s).map((e) => e.type)).toEqual(['B', 'C']);
      expect(await store.headPosition()).toBeGreaterThanOrEqual(all[2]!.position);
    });

    it('appends to several streams in one call', async () => {
      const a = stream();
      const b = stream();
      const results = await store.appendMany([
        { streamId: a, events: [ev('A')], expectedRevision: 'no_stream' },
        { streamId: b, events: [ev('B'), ev('C')], expectedRevision: 'no_stream' },
      ]);
      expect(results.map((r) => r.nextExpectedRevision)).toEqual([0, 1]);
      expect(await store.readStream(b)).toHaveLength(2);
    });

    it('subscribes from a position: catches up, then delivers live events in order', async () => {
      const s = stream();
      const start = await store.headPosition();
      await store.appendToStream(s, [ev('A'), ev('B')], 'no_stream');
      const seen: RecordedEvent[] = [];
      let resolveDone!: () => void;
      const done = new Promise<void>((r) => (resolveDone = r));
      const sub = store.subscribeToAll({ after: start, batchSize: 1 }, async (events) => {
        for (const e of events) if (e.streamId === s) seen.push(e);
        if (seen.length >= 4) resolveDone();
      });
      await new Promise((r) => setTimeout(r, 50));
      await store.appendToStream(s, [ev('C')], 1);
      await store.appendToStream(s, [ev('D')], 2);
      await Promise.race([done, new Promise((_, rej) => setTimeout(() => rej(new Error('subscription timed out')), 10_000))]);
      await sub.close();
      expect(seen.map((e) => e.type)).toEqual(['A', 'B', 'C', 'D']);
      const positions = seen.map((e) => e.position);
      expect([...positions].sort((x, y) => x - y)).toEqual(positions);
    });
  });
}
