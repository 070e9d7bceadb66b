import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Doc, ReadStore } from '@paperlink/domain';
import { allProjections, GenerationalReadStore, physicalName, ProjectionRunner, transactionsProjection, type Projection } from '@paperlink/projections';
import { EmbeddedReadStore } from '../../infra/src/readstore/embedded';
import { SqliteEventStore } from '../../infra/src/eventstore/sqlite';
import { invite, registerAccount, startApi, type Api } from '../support/harness';

/**
 * ADR 0015: a projection's new version is built beside the live generation while the
 * list keeps answering from the old one, then switched over when it has caught up.
 */

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The transactions projector as a new version; slow per event, so the rebuild spans many requests. */
const nextVersion: Projection = {
  ...transactionsProjection,
  version: transactionsProjection.version + 1,
  async apply(event, view) {
    await sleep(400);
    return transactionsProjection.apply(event, view);
  },
};
const withNext = () => allProjections().map((p) => (p.name === nextVersion.name ? nextVersion : p));
const owned = Object.keys(nextVersion.collections);

async function dump(store: ReadStore): Promise<Record<string, Doc[]>> {
  const out: Record<string, Doc[]> = {};
  for (const c of owned) out[c] = await store.collection(c).find({}, { sort: { _id: 1 } });
  return out;
}

function statement(batch: number, rows: number): Buffer {
  const lines = Array.from({ length: rows }, (_, i) => `2024-0${1 + (batch % 9)}-${String(1 + (i % 28)).padStart(2, '0')},Shop ${batch}-${i},-${(batch * 100 + i + 1) / 100}`);
  return Buffer.from(`Transaction Date,Description,Amount\n${lines.join('\n')}\n`);
}

describe('blue-green rebuild of a projection', () => {
  const apis: Api[] = [];
  afterAll(async () => {
    for (const a of apis.reverse()) await a.close().catch(() => undefined);
  });

  it('answers every list request from the live generation during the rebuild, switches over, and equals a full rebuild', async () => {
    const first = await startApi();
    const dataDir = first.dataDir;
    const admin = await registerAccount(first);
    const h = admin.headers();
    const member = await registerAccount(first);
    await invite(first, admin, member, 'user');
    let expected = 0;
    for (let b = 1; b <= 6; b++) {
      const res = await first.http.post('/api/transactions/import').set(h).attach('csvFile', statement(b, 40), `s${b}.csv`);
      expect(res.status).toBe(200);
      expected += res.body.imported as number;
    }
    await first.paperlink.close();

    // The same data folder under the new version of the transactions projector.
    const api = await startApi({}, dataDir, { projections: withNext() });
    apis.push(api);
    const runner = api.paperlink.runner;
    const [status] = runner.rebuilds();
    expect(status).toMatchObject({ projection: 'transactions', version: nextVersion.version, generation: 1, state: 'building' });

    let served = 0;
    let during = 0;
    let write: Promise<{ status: number; body: { imported: number } }> | undefined;
    let writeDone = false;
    while (runner.rebuilds()[0]!.state === 'building') {
      const res = await api.http.get('/api/transactions?limit=20&page=1').set(h);
      expect(res.status).toBe(200);
      expect(res.body.transactions.length).toBe(20);
      // Before the write lands: the seeded rows; after it (it waits for the live generation): those and its own.
      expect([expected, expected + 5]).toContain(res.body.pagination.total);
      if (writeDone) expect(res.body.pagination.total).toBe(expected + 5);
      served++;
      if (served === 1) {
        // The System page's figures: admins only.
        const system = await api.http.get('/api/system/rebuilds').set(h);
        expect(system.status).toBe(200);
        expect(system.body.rebuilds[0]).toMatchObject({ projection: 'transactions', generation: 1 });
        expect(system.body.projections.find((p: { name: string }) => p.name === 'transactions')).toMatchObject({ version: nextVersion.version, generation: 0 });
        expect((await api.http.get('/api/system/rebuilds').set(member.headers(admin.companyId))).status).toBe(403);
      }
      if (served === 2) {
        // A write during the rebuild: the live generation shows it, the new one follows the log.
        write = api.http.post('/api/transactions/import').set(h).attach('csvFile', statement(9, 5), 's9.csv').then((r) => {
          writeDone = true;
          if (runner.rebuilds()[0]!.state === 'building') during++;
          return r;
        });
      }
    }
    const wrote = await write!;
    expect(wrote.status).toBe(200);
    expect(wrote.body.imported).toBe(5);
    expected += 5;
    expect(runner.rebuilds()[0]).toMatchObject({ state: 'switched', generation: 1 });
    console.log(`blue-green: ${served} list requests answered during the rebuild; the write landed ${during ? 'during' : 'after'} it`);
    expect(served).toBeGreaterThanOrEqual(5);
    const status2 = runner.rebuilds()[0]!;
    expect(status2.processed).toBeGreaterThan(0);
    expect(status2.eventsPerSecond).toBeGreaterThan(0);

    // After the switch: the same list, from the new generation, and the old one is gone.
    const after = await api.http.get('/api/transactions?limit=20&page=1').set(h);
    expect(after.status).toBe(200);
    expect(after.body.pagination.total).toBe(expected);
    const system = await api.http.get('/api/system/rebuilds').set(h);
    expect(system.body.rebuilds[0]).toMatchObject({ state: 'switched', secondsLeft: 0 });
    expect(system.body.projections.find((p: { name: string }) => p.name === 'transactions')).toMatchObject({ generation: 1 });
    const raw = api.paperlink.adapters.readStore;
    expect(await raw.collection(physicalName(owned[0]!, 1)).count({})).toBe(expected);
    // The old generation stays readable for readers on other connections until they follow the switch (DROP_GRACE_MS).
    expect(await raw.collection(owned[0]!).count({})).toBeGreaterThan(0);

    // The new generation equals a full rebuild of the same log by the new version.
    const fresh = new EmbeddedReadStore();
    await new ProjectionRunner(api.paperlink.adapters.events, fresh, [nextVersion]).rebuild();
    const live = await GenerationalReadStore.open(raw, withNext());
    expect(await dump(live)).toEqual(await dump(fresh));

    // The alias survives a restart (it is in the snapshot with the checkpoint): no rebuild then.
    await api.paperlink.close();
    apis.pop();
    const again = await startApi({}, dataDir, { projections: withNext() });
    apis.push(again);
    expect(again.paperlink.runner.rebuilds()).toEqual([]);
    // Closed before the grace ended: the start dropped the old generation.
    expect(await again.paperlink.adapters.readStore.collection(owned[0]!).count({})).toBe(0);
    const reread = await again.http.get('/api/transactions?limit=20&page=1').set(h);
    expect(reread.status).toBe(200);
    expect(reread.body.pagination.total).toBe(expected);
    expect(reread.body.transactions).toEqual(after.body.transactions);
  }, 60_000);
});

describe('generations left behind by a stop at the wrong moment', () => {
  it('drops an old generation a switch did not drop, and a build that never finished', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paperlink-generations-'));
    const events = new SqliteEventStore(join(dir, 'events.sqlite'));
    try {
      await events.appendMany([{ streamId: 'note-1', expectedRevision: 'any', events: [{ id: randomUUID(), type: 'Noted', data: { text: 'a' }, metadata: { occurredAt: new Date().toISOString() } }] }]);
      const notes: Projection = {
        name: 'notes',
        version: 2,
        collections: { notes: [] },
        handles: new Set(['Noted']),
        async apply(event, view) {
          await view.update('notes', event.streamId, () => ({ _id: event.streamId, text: (event.data as { text: string }).text }));
        },
      };
      const raw = new EmbeddedReadStore();
      // Switched to generation 1 (alias and checkpoint committed), but generation 0 and the build's
      // checkpoint still there; and a build of generation 2 that stopped half-way.
      await raw.commit(new Map<string, Map<string, Doc | null>>([
        ['_generations', new Map([['notes', { _id: 'notes', generation: 1 }]])],
        ['notes', new Map([['note-1', { _id: 'note-1', text: 'old' }]])],
        ['notes__g1', new Map([['note-1', { _id: 'note-1', text: 'a', _pos: 1 }]])],
        ['notes__g2', new Map([['note-1', { _id: 'note-1', text: 'half' }]])],
      ]), [{ name: 'notes', version: 2, position: 1 }, { name: 'notes@g1', version: 2, position: 1 }, { name: 'notes@g2', version: 3, position: 0 }]);
      const store = await GenerationalReadStore.open(raw, [notes]);
      const runner = new ProjectionRunner(events, store, [notes]);
      await runner.start();
      expect(runner.rebuilds()).toEqual([]);
      expect(await raw.collection('notes').count({})).toBe(0);
      expect(await raw.collection('notes__g2').count({})).toBe(0);
      expect((await raw.getCheckpoints()).map((c) => c.name).sort()).toEqual(['notes']);
      expect(await store.collection('notes').find({})).toEqual([{ _id: 'note-1', text: 'a', _pos: 1 }]);
      await runner.stop();
    } finally {
      await events.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
