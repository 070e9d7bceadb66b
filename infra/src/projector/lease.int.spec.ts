import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Doc, NewEvent } from '@paperlink/domain';
import { ProjectionRunner, type Projection } from '@paperlink/projections';
import { SqliteEventStore } from '../eventstore/sqlite';
import { MongoReadStore } from '../readstore/mongo';
import { MongoLeaseStore } from '../readstore/mongo-lease';
import { FencedError, StaleWriteError, writeCheckpoints } from '../readstore/mongo-write';
import { ProjectorLease, type LeaseStore } from './lease';

const url = process.env.MONGO_URL;
const skip = url ? undefined : 'MONGO_URL is not set (a MongoDB or FerretDB server: make test-distributed starts one)';
if (skip && process.env.CI === 'true') throw new Error(`projector lease suite: ${skip}; under CI=true it must run`);

/** A lease store whose calls can be held (a paused process: its renewals no longer reach the server). */
function pausable(inner: LeaseStore): LeaseStore & { pause(): void } {
  let paused = false;
  const gate = async () => {
    while (paused) await new Promise((r) => setTimeout(r, 50));
  };
  return {
    pause: () => (paused = true),
    read: (name) => inner.read(name),
    create: async (name, owner) => (await gate(), inner.create(name, owner)),
    takeOver: async (name, seen, owner) => (await gate(), inner.takeOver(name, seen, owner)),
    renew: async (name, owner, token, failure) => (await gate(), inner.renew(name, owner, token, failure)),
    release: (name, owner, token) => inner.release(name, owner, token),
  };
}

/** Counts events per key; every event is applied once (a document remembers its position). */
const tally: Projection = {
  name: 'tally',
  version: 1,
  collections: { tallies: [] },
  handles: new Set(['Ticked']),
  async apply(event, view) {
    const key = String((event.data as { key: string }).key);
    for (const id of [key, 'all']) await view.update<Doc & { n: number }>('tallies', id, (d) => ({ _id: id, n: (d?.n ?? 0) + 1 }));
  },
};

const tick = (key: string): NewEvent => ({ id: randomUUID(), type: 'Ticked', data: { key }, metadata: { occurredAt: new Date().toISOString() } });

describe.skipIf(skip !== undefined)(`one active projector: a lease with a fencing token on the read store${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const db = `paperlink_lease_${Date.now()}`;
  const events = new SqliteEventStore(':memory:');
  const opened: Array<{ close(): Promise<void> }> = [];
  let storeA: MongoReadStore;
  let storeB: MongoReadStore;
  let leaseA: ProjectorLease;
  let leaseB: ProjectorLease;
  let runnerA: ProjectionRunner;
  let runnerB: ProjectionRunner;
  let pausedA: ReturnType<typeof pausable>;

  const open = async () => {
    const s = await MongoReadStore.connect(url!, db);
    opened.push(s);
    return s;
  };
  const append = async (n: number) => {
    for (let i = 0; i < n; i++) await events.appendToStream(`tick-${i % 5}`, [tick(`k${i % 5}`)], 'any');
    return events.headPosition();
  };
  const total = async (store: MongoReadStore) => ((await store.collection('tallies').findOne({ _id: 'all' })) as { n: number } | null)?.n ?? 0;

  beforeAll(async () => {
    [storeA, storeB] = [await open(), await open()];
    pausedA = pausable(new MongoLeaseStore(storeA.database));
    leaseA = new ProjectorLease(pausedA, 'projector', { owner: 'projector-a', log: () => {} });
    leaseB = new ProjectorLease(new MongoLeaseStore(storeB.database), 'projector', { owner: 'projector-b', log: () => {} });
    opened.push(leaseA, leaseB);
    storeA.fenceWith(leaseA.fence());
    storeB.fenceWith(leaseB.fence());
    runnerA = new ProjectionRunner(events, storeA, [tally]);
    runnerB = new ProjectionRunner(events, storeB, [tally]);
    expect(await leaseA.compete()).toBe(true);
    await runnerA.start();
    expect(await leaseB.compete()).toBe(false);
    leaseB.onActive(() => runnerB.start());
  });
  afterAll(async () => {
    await runnerA?.stop();
    await runnerB?.stop();
    for (const o of opened.reverse()) await o.close();
    const client = await MongoClient.connect(url!);
    await client.db(db).dropDatabase();
    await client.close();
    await events.close();
  });

  it('writes nothing while standing by', async () => {
    await expect(storeB.commit(new Map([['tallies', new Map([['x', { _id: 'x', n: 1 }]])]]), [])).rejects.toBeInstanceOf(FencedError);
    await expect(storeB.drop(['tallies'], ['tally'])).rejects.toBeInstanceOf(FencedError);
    expect(await storeA.collection('tallies').findOne({ _id: 'x' })).toBeNull();
  });

  it('is taken over within 15 s of the active projector pausing, and the paused one writes no more', async () => {
    expect(await runnerA.waitFor(await append(40), 10_000)).toBe(true);
    expect(await total(storeA)).toBe(40);
    pausedA.pause();
    const pausedAt = Date.now();
    while (!leaseB.holding) {
      expect(Date.now() - pausedAt).toBeLessThan(15_000);
      await new Promise((r) => setTimeout(r, 100));
    }
    const takeoverMs = Date.now() - pausedAt;
    console.log(`standby took over ${takeoverMs} ms after the active projector stopped renewing`);
    expect(takeoverMs).toBeLessThanOrEqual(15_000);
    expect(leaseB.fence().token()).toBe(2);
    // The standby's runner starts, from the stored checkpoint, and follows new events.
    const head = await append(25);
    expect(await runnerB.waitFor(head, 20_000)).toBe(true);
    expect(await total(storeB)).toBe(65);
    // The paused runner read the same events; its commit is refused, and it stops.
    const end = Date.now() + 10_000;
    while (runnerA.failed === undefined && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(runnerA.failed).toBeInstanceOf(FencedError);
    expect(await total(storeB)).toBe(65);
  }, 60_000);

  it('refuses on the server a stale writer that still believes it holds the lease', async () => {
    // As the paused process would be if its own clock had not noticed: its token is 1, the lease's is 2.
    const stale = await open();
    stale.fenceWith({ lease: 'projector', owner: 'projector-a', token: () => 1, valid: () => true });
    await expect(stale.commit(new Map([['tallies', new Map([['all', { _id: 'all', n: 0, _pos: 1 }]])]]), [{ name: 'tally', version: 1, position: 1 }])).rejects.toThrow(FencedError);
    await expect(stale.drop(['tallies'], ['tally'])).rejects.toThrow(FencedError);
    // Past the lease check (a write already on its way when the lease moved), each write is still guarded:
    // a document at a later position is not rolled back, a checkpoint of a newer token is not moved.
    const unfenced = await MongoReadStore.connect(url!, db, { guardDocuments: true });
    opened.push(unfenced);
    await expect(unfenced.commit(new Map([['tallies', new Map([['all', { _id: 'all', n: 0, _pos: 1 }]])]]), [])).rejects.toThrow(StaleWriteError);
    await expect(writeCheckpoints(unfenced.database, [{ name: 'tally', version: 1, position: 1 }], 1)).rejects.toThrow(FencedError);
    expect(await total(storeB)).toBe(65);
    expect((await storeB.getCheckpoints()).find((c) => c.name === 'tally')?.position).toBe(await events.headPosition());
  });

  it('stops a commit between its chunks, before its checkpoints, once the lease lapses', async () => {
    await new MongoLeaseStore(storeB.database).create('chunked', 'chunk-writer');
    const store = await open();
    const docs = new Map(Array.from({ length: 600 }, (_, i) => [`c${i}`, { _id: `c${i}`, n: i, _pos: 1 } as Doc]));
    const unguarded = await MongoReadStore.connect(url!, db, { guardDocuments: false, client: { monitorCommands: true } });
    opened.push(unguarded);
    // Held until its first chunk of documents is written, then lapsed (no renewal since).
    let lapsed = false;
    const chunks = new Set<number>();
    unguarded.database.client.on('commandStarted', (e) => {
      if (e.command.update === 'chunked_docs') chunks.add(e.requestId);
    });
    unguarded.database.client.on('commandSucceeded', (e) => {
      if (chunks.has(e.requestId)) lapsed = true;
    });
    unguarded.fenceWith({ lease: 'chunked', owner: 'chunk-writer', token: () => 1, valid: () => !lapsed });
    await expect(unguarded.commit(new Map([['chunked_docs', docs]]), [{ name: 'chunked', version: 1, position: 1 }])).rejects.toThrow(FencedError);
    // FerretDB: the first chunk of 50 landed, no more (MongoDB writes the collection in one bulk write,
    // inside a transaction on a replica set, and stops before the checkpoints).
    const ferret = typeof (await store.database.admin().command({ buildInfo: 1 })).ferretdbVersion === 'string';
    if (ferret) expect(await store.collection('chunked_docs').count({})).toBe(50);
    expect((await store.getCheckpoints()).find((c) => c.name === 'chunked')).toBeUndefined();
  });
});