import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Doc } from '@paperlink/domain';
import { SqliteReadStore } from './sqlite';
import type { CommitNotice } from './sqlite-notices';

/**
 * ADR 0029: a reader following another connection's writes (the request thread beside the
 * projector thread) keeps its counts and deep-page anchors through the writer's commits by
 * their notices, instead of recounting and walking the offset again; and stays exact when a
 * notice is late or missing.
 */
const C = 'things';
const N = 10_000;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const name = (i: number) => `n${String((i * 7919) % N).padStart(5, '0')}`;

async function pair(deliver: 'now' | 'held' = 'now') {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-notices-'));
  dirs.push(dir);
  const file = join(dir, 'rm.sqlite');
  const writer = new SqliteReadStore(file);
  await writer.ensureIndexes(C, [['companyId'], ['companyId', 'name']]);
  const docs = new Map<string, Doc | null>();
  for (let i = 0; i < N; i++) docs.set(`d${String(i).padStart(5, '0')}`, { _id: `d${String(i).padStart(5, '0')}`, companyId: 'c', name: name(i), grp: i % 3 });
  await writer.commit(new Map([[C, docs]]), []);
  await writer.flush();
  const reader = new SqliteReadStore(file, { offThreadRows: 1, staleCountWaitMs: 60_000 });
  reader.followOtherWriters();
  reader.followCommitNotices();
  writer.trackChanges();
  const held: Array<CommitNotice | undefined> = [];
  writer.onCommitted = (notice) => (deliver === 'now' ? reader.receiveNotice(notice) : held.push(notice));
  const write = async (changes: Array<[string, Doc | null]>) => {
    await writer.commit(new Map([[C, new Map(changes)]]), []);
    await writer.flush();
  };
  const release = () => {
    for (const n of held.splice(0)) reader.receiveNotice(n);
  };
  return { writer, reader, write, release, close: async () => { await reader.close(); await writer.close(); } };
}

/** All documents of the collection sorted as SQLite sorts the list (name descending, then id). */
async function truth(store: SqliteReadStore, filter: Record<string, unknown>): Promise<string[]> {
  const all = await store.collection(C).find(filter);
  return all.sort((a, b) => (a.name === b.name ? (a._id < b._id ? -1 : 1) : (a.name as string) < (b.name as string) ? 1 : -1)).map((d) => d._id);
}

describe('commit notices: kept counts and deep pages through another writer\'s commits', () => {
  it('adjusts a kept count by the notice (no recount) and stays exact', async () => {
    const { reader, write, close } = await pair();
    const recount = vi.spyOn(reader as unknown as { countOffThread: (...a: unknown[]) => Promise<unknown> }, 'countOffThread');
    const grp0 = { companyId: 'c', grp: 0 };
    expect(await reader.count(C, grp0)).toBe(3334);
    expect(recount).toHaveBeenCalledTimes(1);
    // One document leaves the filter, one enters, one is added, one deleted.
    await write([['d00000', { _id: 'd00000', companyId: 'c', name: 'moved', grp: 1 }], ['d00001', { _id: 'd00001', companyId: 'c', name: name(1), grp: 0 }], ['new', { _id: 'new', companyId: 'c', name: 'new', grp: 0 }], ['d00003', null]]);
    expect(await reader.count(C, grp0)).toBe(3334 - 1 + 1 + 1 - 1);
    expect(await reader.count(C, { companyId: 'c' })).toBe(N + 1 - 1);
    // The first count was adjusted, not counted again; the second filter was counted once.
    expect(recount).toHaveBeenCalledTimes(2);
    await close();
  });

  it('a notice not yet arrived or a commit without one: counted again, never applied twice', async () => {
    const { reader, write, release, close } = await pair('held');
    const grp0 = { companyId: 'c', grp: 0 };
    expect(await reader.count(C, grp0)).toBe(3334);
    await write([['x1', { _id: 'x1', companyId: 'c', name: 'x', grp: 0 }]]);
    // The commit is seen before its notice: the count is read again (and includes it).
    expect(await reader.count(C, grp0)).toBe(3335);
    release(); // the late notice must not add it a second time
    expect(await reader.count(C, grp0)).toBe(3335);
    await write([['x2', { _id: 'x2', companyId: 'c', name: 'x', grp: 0 }]]);
    release();
    expect(await reader.count(C, grp0)).toBe(3336);
    // A commit whose changes are not known (a bulk load): everything kept is dropped.
    reader.receiveNotice(undefined);
    expect(await reader.count(C, grp0)).toBe(3336);
    await close();
  });

  it('reads a deep page from anchors shifted by the notices, not by walking the offset again', async () => {
    const { reader, write, close } = await pair();
    const sort = { name: -1 as const };
    const steps = vi.fn();
    const stmt = (reader as unknown as { stmt: (sql: string) => unknown }).stmt.bind(reader);
    (reader as unknown as { stmt: (sql: string) => unknown }).stmt = (sql: string) => {
      if (sql.includes('LIMIT 1 OFFSET')) steps(sql);
      return stmt(sql);
    };
    const page = async (skip: number) => (await reader.collection(C).find({ companyId: 'c' }, { sort, skip, limit: 50 })).map((d) => d._id);
    expect(await page(7000)).toEqual((await truth(reader, { companyId: 'c' })).slice(7000, 7050));
    const walked = steps.mock.calls.length;
    expect(walked).toBeGreaterThanOrEqual(3);
    // Edits that move documents across the anchors (to the front, to the end), an insert and a delete.
    const ordered = await truth(reader, { companyId: 'c' });
    await write([[ordered[100]!, { _id: ordered[100]!, companyId: 'c', name: 'a-last', grp: 0 }], [ordered[9000]!, { _id: ordered[9000]!, companyId: 'c', name: 'zz-first', grp: 0 }], ['d-new', { _id: 'd-new', companyId: 'c', name: 'n05000x', grp: 1 }], [ordered[3000]!, null]]);
    for (const skip of [2000, 4000, 6999, 7000, 7001, 9900]) expect(await page(skip)).toEqual((await truth(reader, { companyId: 'c' })).slice(skip, skip + 50));
    // 6,999 and 7,000 and 2,000 and 4,000 were reached from the anchors kept; only 9,900 walked further.
    expect(steps.mock.calls.length - walked).toBeLessThanOrEqual(1);
    await close();
  });

  it('without notices (another process writing), drops the anchors and pages stay exact', async () => {
    const { reader, write, close } = await pair('held');
    const sort = { name: -1 as const };
    const page = async (skip: number) => (await reader.collection(C).find({ companyId: 'c' }, { sort, skip, limit: 50 })).map((d) => d._id);
    expect(await page(5000)).toEqual((await truth(reader, { companyId: 'c' })).slice(5000, 5050));
    const ordered = await truth(reader, { companyId: 'c' });
    await write([[ordered[10]!, { _id: ordered[10]!, companyId: 'c', name: 'a-last', grp: 0 }]]);
    // The notice is held back: the anchors cannot be brought forward, the page is read by offset.
    expect(await page(5000)).toEqual((await truth(reader, { companyId: 'c' })).slice(5000, 5050));
    await close();
  });
});
