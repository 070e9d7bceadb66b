/**
 * The SQLite read store's write path for large imports (docs/decisions/0027-import-cost.md):
 * reads by many ids in one statement, multi-row upserts with deletes in the same commit, kept
 * counts maintained through them, and a projector's unit of work that reads an event's
 * documents ahead (prefetch) giving the same read models as one read per document, replays
 * included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { Doc, ReadStore, RecordedEvent } from '@paperlink/domain';
import { analyticsProjection, transactionsProjection, UnitOfWork, type Projection } from '@paperlink/projections';
import { EmbeddedReadStore } from './embedded';
import { SqliteReadStore } from './sqlite';

const dir = mkdtempSync(join(tmpdir(), 'paperlink-rs-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const file = () => join(dir, `store-${++files}.sqlite`);

async function everything(store: ReadStore, collections: string[]): Promise<Record<string, Doc[]>> {
  const out: Record<string, Doc[]> = {};
  for (const c of collections) out[c] = (await store.collection(c).find({}, { sort: { _id: 1 } })).map((d) => ({ ...d }));
  return out;
}

function imported(position: number, rows: number, from: number): RecordedEvent {
  return {
    id: `ev${position}`,
    type: 'TransactionsImported',
    streamId: 'import-i1',
    revision: position - 1,
    position,
    metadata: { companyId: 'c1', userId: 'u1', occurredAt: '2026-11-24T03:00:00.000Z' },
    data: {
      importId: 'i1', companyId: 'c1', fileName: 'f.csv', fileHash: 'h', importedBy: 'u1',
      rows: Array.from({ length: rows }, (_, i) => ({
        row: from + i + 2, transactionId: `t${String(from + i).padStart(5, '0')}`, date: `2026-0${1 + ((from + i) % 9)}-1${(from + i) % 10}`,
        // Every seventh row repeats an earlier one's date, description and amount: keys counted twice.
        description: `LINE ${(from + i) % 7 === 0 ? from + i - 1 : from + i}`, amountCents: -(100 + ((from + i) % 7 === 0 ? from + i - 1 : from + i)),
        assignedTo: ['u1', 'u2'][(from + i) % 2]!, assignment: 'name_matched', ...((from + i) % 3 === 0 ? { category: 'Travel' } : {}),
      })),
    },
  } as unknown as RecordedEvent;
}

/** Applies events as the runner does (one unit of work per event), with or without prefetch. */
async function project(store: ReadStore, projections: Projection[], events: RecordedEvent[], prefetch: boolean): Promise<void> {
  for (const event of events) {
    const uow = new UnitOfWork(store);
    for (const p of projections) {
      const view = uow.viewFor(event);
      if (!prefetch) delete (view as { prefetch?: unknown }).prefetch;
      await p.apply(event, view);
    }
    await store.commit(uow.writes, []);
  }
  await store.flush?.();
}

describe('SQLite read store: the write path of an import', () => {
  it('reads many ids in one go, the same documents as one by one, missing ids left out', async () => {
    const s = new SqliteReadStore(file());
    const docs = new Map<string, Doc | null>(Array.from({ length: 1203 }, (_, i) => [`d${i}`, { _id: `d${i}`, n: i, tag: i % 2 ? 'odd' : 'even' }]));
    await s.commit(new Map([['t', docs]]), []);
    const ids = [...Array.from({ length: 1300 }, (_, i) => `d${1299 - i}`), 'nope', "it's \"quoted\""];
    const found = await s.getMany('t', ids);
    expect(found.size).toBe(1203);
    for (let i = 0; i < 1203; i++) expect(found.get(`d${i}`)).toEqual({ _id: `d${i}`, n: i, tag: i % 2 ? 'odd' : 'even' });
    expect(found.has('d1203')).toBe(false);
    expect([...(await s.getMany('t', ['d5', 'd6'])).keys()]).toEqual(['d5', 'd6']);
    await s.close();
  });

  it('multi-row upserts and deletes in one commit; kept counts follow them', async () => {
    const s = new SqliteReadStore(file());
    const first = new Map<string, Doc | null>(Array.from({ length: 450 }, (_, i) => [`d${i}`, { _id: `d${i}`, tag: 'a' }]));
    await s.commit(new Map([['t', first]]), []);
    expect(await s.count('t', { tag: 'a' })).toBe(450);
    expect(await s.count('t', { tag: 'b' })).toBe(0);
    // 250 of them become 'b', 100 are deleted, 333 new ones are 'b', across chunks and statement sizes.
    const next = new Map<string, Doc | null>();
    for (let i = 0; i < 250; i++) next.set(`d${i}`, { _id: `d${i}`, tag: 'b' });
    for (let i = 250; i < 350; i++) next.set(`d${i}`, null);
    for (let i = 450; i < 783; i++) next.set(`d${i}`, { _id: `d${i}`, tag: 'b' });
    await s.commit(new Map([['t', next]]), [{ name: 'p', version: 1, position: 7 }]);
    expect(await s.count('t', { tag: 'a' })).toBe(100);
    expect(await s.count('t', { tag: 'b' })).toBe(583);
    const reopened = new SqliteReadStore(s.file);
    await s.close();
    expect(await reopened.count('t', { tag: 'a' })).toBe(100);
    expect(await reopened.count('t', { tag: 'b' })).toBe(583);
    expect(await reopened.collection('t').count({})).toBe(683);
    expect(await reopened.getCheckpoints()).toEqual([{ name: 'p', version: 1, position: 7 }]);
    await reopened.close();
  });

  it('an import projected with prefetch equals one read per document, and equals the memory store; a replay changes nothing', async () => {
    const projections = [transactionsProjection, analyticsProjection];
    const collections = [...new Set(projections.flatMap((p) => Object.keys(p.collections)))];
    const events = [imported(1, 1000, 0), imported(2, 700, 1000), imported(3, 301, 1700)];
    const withPrefetch = new SqliteReadStore(file());
    const without = new SqliteReadStore(file());
    const memory = new EmbeddedReadStore();
    await project(withPrefetch, projections, events, true);
    await project(without, projections, events, false);
    await project(memory, projections, events, true);
    const expected = await everything(without, collections);
    expect(expected.transactions).toHaveLength(2001);
    expect(await everything(withPrefetch, collections)).toEqual(expected);
    expect(await everything(memory, collections)).toEqual(expected);
    // A crash between the writes and the checkpoints replays the events: nothing changes.
    await project(withPrefetch, projections, events, true);
    expect(await everything(withPrefetch, collections)).toEqual(expected);
    await withPrefetch.close();
    await without.close();
  });

  it('keeps a bulk flow in one group transaction while its writes keep coming, and commits it once they stop; small writes as before', async () => {
    const s = new SqliteReadStore(file(), { groupBulkMs: 60_000, groupBulkDocs: 1_000_000 });
    const commits: number[] = [];
    s.onCommitted = () => commits.push(performance.now());
    // What another connection sees (committed rows only).
    const other = new Database(s.file, { readonly: true });
    const seen = async () => {
      try {
        return (other.prepare('SELECT count(*) AS n FROM c_t').get() as { n: number }).n;
      } catch {
        return 0; // no table committed yet
      }
    };
    // 40 units of 1,000 documents, one after the other: before, a group ended at 10,000 documents or 200 ms.
    for (let u = 0; u < 40; u++) {
      const docs = new Map<string, Doc | null>();
      for (let k = 0; k < 1000; k++) docs.set(`d${u}-${k}`, { _id: `d${u}-${k}`, n: k, s: 'x'.repeat(40) });
      await s.commit(new Map([['t', docs]]), [{ name: 'p', version: 1, position: u + 1 }]);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    expect(commits.length).toBe(0);
    expect(await seen()).toBe(0);
    // The flow stopped: committed within the small window (GROUP_MS) after its last write.
    const stopped = performance.now();
    for (let i = 0; i < 100 && commits.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(commits.length).toBe(1);
    expect(commits[0]! - stopped).toBeLessThan(2_000);
    expect(await seen()).toBe(40_000);
    expect((await s.getCheckpoints()).find((c) => c.name === 'p')?.position).toBe(40);
    // A small write alone is committed after the small window, as before; flush commits at once.
    await s.commit(new Map([['t', new Map([['small', { _id: 'small' }]])]]), []);
    for (let i = 0; i < 100 && commits.length === 1; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(commits.length).toBe(2);
    await s.commit(new Map([['t', new Map([['flushed', { _id: 'flushed' }]])]]), []);
    await s.flush();
    expect(await seen()).toBe(40_002);
    other.close();
    await s.close();
  });
});
