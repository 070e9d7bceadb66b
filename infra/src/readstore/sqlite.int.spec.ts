import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { Doc, Filter, FindOptions } from '@paperlink/domain';
import { allProjections, GenerationalReadStore, listTransactions, RECEIPTS, receiptFilter, physicalName, transactionFilter, TRANSACTIONS, type Projection } from '@paperlink/projections';
import { readStoreContract } from './contract';
import { EmbeddedReadStore } from './embedded';
import { findInPages } from './paged';
import { SqliteReadStore } from './sqlite';
import { listIndexes } from './sqlite-indexes';

const dir = mkdtempSync(join(tmpdir(), 'paperlink-rs-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const file = () => join(dir, `store-${++files}.sqlite`);

readStoreContract('SQLite (better-sqlite3, JSONB)', async () => new SqliteReadStore(file()));

/** Documents of every shape a filter can meet: arrays, objects, booleans, nulls, mixed types on one path. */
function oddDocs(n: number): Doc[] {
  let seed = 11;
  const rand = (k: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % k;
  const values = [null, 0, -3, 7, 2.5, '', 'a', 'B', 'b', 'Meals', 'meals', 'MEALS', '2024-01-02', '2024-01-10', 'é', '10', true, false, ['a', 'b'], [], [7], { x: 1 }];
  const plain = [null, 0, -3, 7, 2.5, '', 'a', 'B', 'b', '10', '2024-01-02', 'é', 'Meals', 'mEals'];
  const docs: Doc[] = [];
  for (let i = 0; i < n; i++) {
    const d: Doc = { _id: `d${String(i).padStart(3, '0')}`, c: ['x', 'y'][rand(2)]!, n: rand(20) - 5, s: ['Meals', 'Fuel', 'meals', null, 'Travel'][rand(5)]! };
    if (rand(3) > 0) d.v = values[rand(values.length)];
    if (rand(2) === 0) d.o = { p: values[rand(values.length)], q: rand(4) };
    if (rand(4) === 0) d.arr = [rand(3), ['u', 'w'][rand(2)]];
    if (rand(5) > 0) d.m = plain[rand(plain.length)]; // mixed plain values only: SQL decides these

    docs.push(d);
  }
  return docs;
}

const FILTERS: Filter[] = [
  {},
  { c: 'x' },
  { c: 'x', n: { $gte: 0, $lt: 7 } },
  { v: 'a' },
  { v: 7 },
  { v: null },
  { v: { $ne: null } },
  { v: { $ne: 'a' } },
  { v: { $exists: false } },
  { v: { $exists: true } },
  { v: { $gt: 0 } },
  { v: { $lte: 'b' } },
  { v: { $gte: '2024-01-01', $lte: '2024-12-31' } },
  { v: { $in: ['a', 7, null] } },
  { v: { $nin: ['a', 7] } },
  { v: true },
  { v: { $regex: '^meals$', $options: 'i' } },
  { s: { $regex: '^meals$', $options: 'i' } },
  { s: { $regex: '^Meals$' } },
  { s: /^fu/i },
  { s: null },
  { s: { $in: ['Fuel', null] } },
  { s: { $nin: ['Fuel', null] } },
  { m: 'a' },
  { m: 7 },
  { m: null },
  { m: { $ne: 7 } },
  { m: { $gt: 0 } },
  { m: { $gte: -3, $lt: 7 } },
  { m: { $lt: 'b' } },
  { m: { $gte: '' } },
  { m: { $in: ['a', 2.5, null] } },
  { m: { $nin: ['a', 2.5] } },
  { m: { $exists: false } },
  { m: { $regex: '^meals$', $options: 'i' } },
  { m: { $regex: '^a$' } },
  { 'o.p': 'a' },
  { 'o.q': { $gt: 1 } },
  { 'o.p': { $exists: true } },
  { arr: 'u' },
  { arr: { $in: [2] } },
  { $or: [{ c: 'y' }, { n: { $lt: -2 } }] },
  { $or: [{ v: 'a' }, { s: 'Fuel' }] },
  { $and: [{ c: 'x' }, { $or: [{ s: 'Fuel' }, { n: { $gte: 10 } }] }] },
  { _id: { $in: ['d001', 'd050', 'nope'] } },
  { _id: { $gte: 'd100', $lt: 'd120' }, c: 'y' },
];

const SORTS: Array<FindOptions['sort']> = [undefined, { n: 1 }, { s: -1, n: 1 }, { v: 1 }, { 'o.q': -1 }, { _id: -1 }, { m: 1 }, { m: -1, n: 1 }];

describe('SQLite read store answers as the embedded store does', () => {
  it('on filters over plain, mixed, array, object and boolean values, sorted and paged', async () => {
    const docs = oddDocs(240);
    const sqlite = new SqliteReadStore(file(), { offThreadRows: 0 }); // every SQL count on the counting thread
    const memory = new EmbeddedReadStore();
    for (const s of [sqlite, memory]) {
      await s.ensureIndexes('t', [['c'], ['c', 'n']]);
      await s.commit(new Map([['t', new Map(docs.map((d) => [d._id, d]))]]), []);
    }
    for (const filter of FILTERS) {
      for (const sort of SORTS) {
        for (const [skip, limit] of [[0, undefined], [3, 10]] as const) {
          const options = { ...(sort ? { sort } : {}), skip, ...(limit ? { limit } : {}) };
          const want = await memory.collection('t').findPage(filter, options);
          const got = await sqlite.collection('t').findPage(filter, options);
          const label = JSON.stringify({ filter: String(filter.s instanceof RegExp ? filter.s : JSON.stringify(filter)), options });
          expect(got.total, label).toBe(want.total);
          if (sort) expect(got.docs, label).toEqual(want.docs);
          else if (limit === undefined) expect(got.docs.map((d) => d._id).sort(), label).toEqual(want.docs.map((d) => d._id).sort());
        }
      }
      expect(await sqlite.collection('t').count(filter)).toBe(await memory.collection('t').count(filter));
    }
    await sqlite.close();
  });

  it('counts big collections on a thread of their own, with the writes of the open group', async () => {
    const s = new SqliteReadStore(file(), { offThreadRows: 100 });
    const c = s.collection('t');
    await s.commit(new Map([['t', new Map(Array.from({ length: 500 }, (_, i) => [`a${i}`, { _id: `a${i}`, c: 'x', n: i }]))]]), []);
    expect((await c.findPage({ c: 'x', n: { $lt: 250 } }, { limit: 5 })).total).toBe(250);
    await s.commit(new Map([['t', new Map([['b', { _id: 'b', c: 'x', n: 1 }]])]]), []);
    expect(await c.count({ c: 'x', n: { $lt: 100 } })).toBe(101);
    expect((await c.findPage({ c: 'x', n: { $lt: 250 } }, { limit: 5 })).total).toBe(251);
    // Writes while a count is under way: that count is not kept, the next one sees them.
    const counting = c.count({ c: 'x' });
    await s.commit(new Map([['t', new Map([['d', { _id: 'd', c: 'x', n: 2 }]])]]), []);
    expect([501, 502]).toContain(await counting);
    expect(await c.count({ c: 'x' })).toBe(502);
    await s.close();
  });

  it('counts a few matches of an indexed equality itself, without waiting for the counting thread', async () => {
    let offThread = 0;
    class CountedCounts extends SqliteReadStore {
      protected override countOffThread(sql: string, params: unknown[]): Promise<number> {
        offThread++;
        return super.countOffThread(sql, params);
      }
    }
    const s = new CountedCounts(file(), { offThreadRows: 100 });
    await s.ensureIndexes('t', [['c', 'u', 'n']]);
    const c = s.collection('t');
    // 3,000 rows of company x: 2,995 of user a, 5 of user b.
    await s.commit(new Map([['t', new Map(Array.from({ length: 3000 }, (_, i) => [`r${i}`, { _id: `r${i}`, c: 'x', u: i % 600 === 0 ? 'b' : 'a', n: i }]))]]), []);
    expect(await c.count({ c: 'x', u: 'b' })).toBe(5);
    expect(await c.count({ c: 'x', u: 'nobody' })).toBe(0);
    expect(offThread).toBe(0);
    // More matches than a small count, or a filter the index does not select by equalities: the counting thread.
    expect(await c.count({ c: 'x', u: 'a' })).toBe(2995);
    expect(offThread).toBe(1);
    expect(await c.count({ c: 'x', n: { $lt: 10 } })).toBe(10);
    expect(offThread).toBe(2);
    // Kept through writes like any count.
    await s.commit(new Map([['t', new Map([['r-new', { _id: 'r-new', c: 'x', u: 'b', n: 1 }]])]]), []);
    expect(await c.count({ c: 'x', u: 'b' })).toBe(6);
    await s.close();
  });

  it('reads a sorted page from the index that pins the most equalities of the filter', async () => {
    const s = new SqliteReadStore(file());
    await s.ensureIndexes('t', [['c', 'd'], ['c', 'u', 'd']]);
    await s.commit(new Map([['t', new Map(Array.from({ length: 400 }, (_, i) => [`r${i}`, { _id: `r${i}`, c: 'x', u: i % 100 === 0 ? 'b' : 'a', d: `2024-01-${String(1 + (i % 28)).padStart(2, '0')}` }]))]]), []);
    const options = { sort: { d: -1 as const }, limit: 3 };
    // Both indexes read the order; only the second selects user b's rows without reading the others.
    expect(s.plan('t', { c: 'x', u: 'b' }, options)!.join('\n')).toMatch(/USING (COVERING )?INDEX \S+ \(<expr>=\? AND <expr>=\?\)/);
    expect((await s.collection('t').find({ c: 'x', u: 'b' }, options)).map((d) => d._id)).toEqual(['r300', 'r100', 'r200']);
    await s.close();
  });

  it('following another writer, a big count not back in time answers the last known one, and the recount replaces it', async () => {
    const path = file();
    const writer = new SqliteReadStore(path);
    // Wait 0: the last known count answers at once, while the recount runs.
    const reader = new SqliteReadStore(path, { offThreadRows: 100, staleCountWaitMs: 0 });
    reader.followOtherWriters();
    await writer.commit(new Map([['t', new Map(Array.from({ length: 3000 }, (_, i) => [`a${i}`, { _id: `a${i}`, c: 'x' } as Doc]))]]), []);
    await writer.flush();
    const c = reader.collection('t');
    // Nothing known yet: the first count waits for its recount.
    expect(await c.count({ c: 'x' })).toBe(3000);
    await writer.commit(new Map([['t', new Map([['b', { _id: 'b', c: 'x' } as Doc]])]]), []);
    await writer.flush();
    // Another connection committed: the count is a recount behind, then right.
    expect(await c.count({ c: 'x' })).toBe(3000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await c.count({ c: 'x' })).toBe(3001);
    expect((await c.findPage({ c: 'x' }, { limit: 2 })).total).toBe(3001);
    await reader.close();
    await writer.close();
  });

  it('does not wait for a recount known to take longer than the wait, and waits for one known to be quick', async () => {
    const path = file();
    const writer = new SqliteReadStore(path);
    let delayMs = 400;
    /** A store whose recounts take `delayMs` (a million rows' count, here on 3,000). */
    class SlowCounts extends SqliteReadStore {
      protected override countOffThread(sql: string, params: unknown[]): Promise<number> {
        return new Promise((resolve, reject) => setTimeout(() => super.countOffThread(sql, params).then(resolve, reject), delayMs));
      }
    }
    const reader = new SlowCounts(path, { offThreadRows: 100, staleCountWaitMs: 150 });
    reader.followOtherWriters();
    await writer.commit(new Map([['t', new Map(Array.from({ length: 3000 }, (_, i) => [`a${i}`, { _id: `a${i}`, c: 'x' } as Doc]))]]), []);
    await writer.flush();
    const c = reader.collection('t');
    expect(await c.count({ c: 'x' })).toBe(3000); // nothing known: waits for the (slow) recount
    const timed = async () => {
      const t = performance.now();
      const n = await c.count({ c: 'x' });
      return { n, ms: performance.now() - t };
    };
    await writer.commit(new Map([['t', new Map([['b', { _id: 'b', c: 'x' } as Doc]])]]), []);
    await writer.flush();
    // The last recount took 400 ms, more than the 150 ms wait: the last count at once.
    const slow = await timed();
    expect(slow.n).toBe(3000);
    expect(slow.ms).toBeLessThan(100);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await c.count({ c: 'x' })).toBe(3001);
    // Recounts quick again: the next count after a commit waits for its recount and is right.
    delayMs = 0;
    await writer.commit(new Map([['t', new Map([['b2', { _id: 'b2', c: 'x' } as Doc]])]]), []);
    await writer.flush();
    await c.count({ c: 'x' }); // a recount of 0 ms delay is measured
    await new Promise((resolve) => setTimeout(resolve, 100));
    await writer.commit(new Map([['t', new Map([['b3', { _id: 'b3', c: 'x' } as Doc]])]]), []);
    await writer.flush();
    expect(await c.count({ c: 'x' })).toBe(3003);
    await reader.close();
    await writer.close();
  });

  it('keeps counts right through inserts, changes and deletes', async () => {
    const s = new SqliteReadStore(file());
    const c = s.collection('t');
    await s.commit(new Map([['t', new Map(Array.from({ length: 50 }, (_, i) => [`a${i}`, { _id: `a${i}`, c: 'x', n: i }]))]]), []);
    const filter = { c: 'x', n: { $gte: 10 } };
    expect((await c.findPage(filter, { limit: 5 })).total).toBe(40);
    await s.commit(new Map([['t', new Map<string, Doc | null>([['a0', { _id: 'a0', c: 'x', n: 99 }], ['a20', null], ['a21', { _id: 'a21', c: 'y', n: 21 }], ['new', { _id: 'new', c: 'x', n: 10 }]])]]), []);
    expect((await c.findPage(filter, { limit: 5 })).total).toBe(40);
    expect(await c.count({ c: 'x', n: { $gte: 10 }, _id: { $ne: 'zzz' } })).toBe(40);
    await s.close();
  });
});

describe('SQLite read store on disk', () => {
  it('keeps documents, checkpoints, indexes and what it learnt of paths across a reopen', async () => {
    const path = file();
    const a = new SqliteReadStore(path);
    await a.ensureIndexes('t', [['c']]);
    await a.commit(new Map([['t', new Map<string, Doc>([['1', { _id: '1', c: 'x', tags: ['red'] }], ['2', { _id: '2', c: 'x', tags: 'red' }]])]]), [{ name: 'p', version: 3, position: 42 }]);
    await a.close();
    const b = new SqliteReadStore(path);
    expect(await b.getCheckpoints()).toEqual([{ name: 'p', version: 3, position: 42 }]);
    expect((await b.collection('t').find({ tags: 'red' }, { sort: { _id: 1 } })).map((d) => d._id)).toEqual(['1', '2']);
    expect(b.plan('t', { c: 'x' }, { limit: 1 })!.join(' ')).toMatch(/USING (COVERING )?INDEX/);
    await b.close();
  });

  it('fills a dropped collection without its indexes and builds them when it is read or flushed (a blue-green generation keeps them)', async () => {
    const path = file();
    const writer = new SqliteReadStore(path);
    const reader = new SqliteReadStore(path);
    reader.followOtherWriters();
    const docs = new Map(Array.from({ length: 300 }, (_, i) => [`d${i}`, { _id: `d${i}`, c: `c${i % 3}`, n: i } as Doc]));
    for (const name of ['plain', 'plain__g1']) {
      await writer.ensureIndexes(name, [['c', 'n']]);
      await writer.drop([name], []);
      await writer.commit(new Map([[name, docs]]), []);
    }
    // A rebuild drops first and declares the indexes after (ProjectionRunner.rebuild).
    await writer.drop(['fresh'], []);
    await writer.ensureIndexes('fresh', [['c', 'n']]);
    await writer.commit(new Map([['fresh', docs]]), []);
    await new Promise((resolve) => setTimeout(resolve, 400)); // the group commits on its own, without building
    const uses = (store: SqliteReadStore, name: string) => store.plan(name, { c: 'c1' }, { sort: { n: -1 }, limit: 5 })!.join(' ');
    expect(uses(reader, 'plain')).not.toMatch(/INDEX ix_/); // a reader never builds them
    expect(uses(reader, 'fresh')).not.toMatch(/INDEX ix_/);
    expect(uses(writer, 'fresh')).toMatch(/USING (COVERING )?INDEX ix_/); // the writer builds them on its first query
    expect(uses(reader, 'plain__g1')).toMatch(/USING (COVERING )?INDEX ix_/);
    await writer.close();
    // Stopped before the indexes were built: the next writer builds them on the first query.
    const again = new SqliteReadStore(path);
    expect(uses(again, 'plain')).toMatch(/USING (COVERING )?INDEX ix_/);
    expect((await again.collection('plain').find({ c: 'c1' }, { sort: { n: -1 }, limit: 2 })).map((d) => d.n)).toEqual([298, 295]);
    await again.flush();
    expect(uses(reader, 'plain')).toMatch(/USING (COVERING )?INDEX ix_/);
    await again.close();
    await reader.close();
  });

  it('commits writes and checkpoints all or nothing', async () => {
    const path = file();
    const s = new SqliteReadStore(path);
    await s.commit(new Map([['t', new Map([['1', { _id: '1', v: 1 }]])]]), [{ name: 'p', version: 1, position: 1 }]);
    const bad = { _id: '3', v: 10n } as unknown as Doc; // JSON cannot hold a BigInt: the write fails half-way
    await expect(s.commit(new Map([['t', new Map<string, Doc>([['2', { _id: '2', v: 2 }], ['3', bad]])]]), [{ name: 'p', version: 1, position: 2 }])).rejects.toThrow();
    expect(await s.collection('t').count({})).toBe(1);
    expect(await s.getCheckpoints()).toEqual([{ name: 'p', version: 1, position: 1 }]);
    await s.close();
    const again = new SqliteReadStore(path);
    expect((await again.collection('t').find({})).map((d) => d._id)).toEqual(['1']);
    await again.close();
  });

  it('after a kill -9 holds what was flushed, never writes without their checkpoints', async () => {
    const path = file();
    const script = `
      const { SqliteReadStore } = await import(${JSON.stringify(join(import.meta.dirname, 'sqlite.ts'))});
      const s = new SqliteReadStore(${JSON.stringify(path)});
      await s.commit(new Map([['t', new Map([['kept', { _id: 'kept' }]])]]), [{ name: 'p', version: 1, position: 1 }]);
      await s.flush();
      await s.commit(new Map([['t', new Map([['lost', { _id: 'lost' }]])]]), [{ name: 'p', version: 1, position: 2 }]);
      process.kill(process.pid, 'SIGKILL');`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.signal).toBe('SIGKILL');
    const s = new SqliteReadStore(path);
    expect((await s.collection('t').find({})).map((d) => d._id)).toEqual(['kept']);
    expect(await s.getCheckpoints()).toEqual([{ name: 'p', version: 1, position: 1 }]);
    await s.close();
  });

  it('writes a big batch in short transactions with the event loop free between them, checkpoints last', async () => {
    const s = new SqliteReadStore(file());
    const docs = new Map(Array.from({ length: 5000 }, (_, i) => [`r${i}`, { _id: `r${i}`, c: 'x', n: i } as Doc]));
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    let seenBeforeCheckpoint = 0;
    const check = setImmediate(async () => {
      seenBeforeCheckpoint = (await s.getCheckpoints()).length;
    });
    await s.commit(new Map([['t', docs]]), [{ name: 'p', version: 1, position: 9 }]);
    clearInterval(ticker);
    clearImmediate(check);
    expect(turns).toBeGreaterThan(0);
    expect(seenBeforeCheckpoint).toBe(0);
    expect(await s.collection('t').count({ c: 'x' })).toBe(5000);
    expect(await s.getCheckpoints()).toEqual([{ name: 'p', version: 1, position: 9 }]);
    const all = await findInPages(s.collection('t'), { c: 'x' }, (d) => d._id);
    expect(new Set(all).size).toBe(5000);
    await s.close();
  });
});

describe('SQLite read store indexes for the transaction lists', () => {
  it('reads every page of the five list queries of the bench, a member view and a deep page from an index', async () => {
    const s = new SqliteReadStore(file(), { extraIndexes: listIndexes() });
    await s.ensureIndexes(TRANSACTIONS, [['companyId'], ['companyId', 'userId']]);
    const docs = new Map(Array.from({ length: 300 }, (_, i) => [`t${i}`, { _id: `t${i}`, companyId: 'c1', userId: `u${i % 3}`, transaction_date: `2024-01-${String(1 + (i % 28)).padStart(2, '0')}`, description: `D ${i}`, amountCents: -i, absCents: i, category_name: ['Travel', 'Meals'][i % 2], created_at: 'x', receipt_count: i % 5 === 0 ? 1 : 0, receipts: [] } as Doc]));
    await s.commit(new Map([[TRANSACTIONS, docs]]), []);
    const memory = new EmbeddedReadStore();
    await memory.commit(new Map([[TRANSACTIONS, docs]]), []);
    const queries: Array<Record<string, unknown>> = [
      {},
      { page: 500 },
      { startDate: '2024-01-05', endDate: '2024-01-20', sortBy: 'amount', sortOrder: 'asc' },
      { category: 'Travel', minAmount: 1, maxAmount: 3 },
      { status: 'unmatched', sortBy: 'description' },
      { userId: 'u1' },
      { page: 97, sortBy: 'description' },
    ];
    for (const q of queries) {
      const full = { companyId: 'c1', sortBy: 'transaction_date', sortOrder: 'desc', page: 1, limit: 50, ...q } as Parameters<typeof listTransactions>[1];
      const filter = transactionFilter(full);
      // The SQL part of the filter picks rows from an index whose order is the list's (no sort of every match).
      const sortKey = { transaction_date: 'transaction_date', amount: 'amountCents', description: 'description' }[full.sortBy as string]!;
      const sort = { [sortKey]: full.sortOrder === 'asc' ? 1 : -1, ...(sortKey === 'transaction_date' ? {} : { transaction_date: -1 }) } as Record<string, 1 | -1>;
      const sqlPart = Object.fromEntries(Object.entries(filter).filter(([k]) => k !== 'category_name'));
      const plan = s.plan(TRANSACTIONS, sqlPart, { sort, skip: (full.page - 1) * 50, limit: 50 })!.join(' | ');
      expect(plan, JSON.stringify(q)).toMatch(/USING (COVERING )?INDEX/);
      expect(plan, JSON.stringify(q)).not.toMatch(/SCAN c_transactions(?! USING)/);
      if (!('startDate' in q)) expect(plan, JSON.stringify(q)).not.toMatch(/TEMP B-TREE FOR ORDER BY/);
      // A list sorted by another field is sorted by date next: both are in the index, so a page is read from it alone.
      if (full.sortBy !== 'transaction_date' && !('category' in q) && !('status' in q)) expect(plan, JSON.stringify(q)).toMatch(/USING COVERING INDEX/);
      expect(await listTransactions(s, full), JSON.stringify(q)).toEqual(await listTransactions(memory, full));
    }
    await s.close();
  });
});

describe('SQLite read store counts of the transaction lists', () => {
  const declared = () => allProjections().find((p) => p.name === 'transactions')!.collections[TRANSACTIONS]!;
  const docs = new Map(Array.from({ length: 300 }, (_, i) => [`t${i}`, { _id: `t${i}`, companyId: i % 10 === 0 ? 'c2' : 'c1', userId: `u${i % 3}`, transaction_date: `2024-01-${String(1 + (i % 28)).padStart(2, '0')}`, description: `D ${i}`, amountCents: -i, absCents: i, category_name: ['Travel', 'Meals', 'travel'][i % 3], created_at: 'x', receipt_count: i % 5 === 0 ? 1 : 0, receipts: [] } as Doc]));
  const queries: Array<Record<string, unknown>> = [
    { category: 'Travel', minAmount: 1, maxAmount: 3 },
    { status: 'unmatched' },
    { status: 'matched' },
    { startDate: '2024-01-05', endDate: '2024-01-20', category: 'Meals' },
    { userId: 'u1', category: 'Travel' },
    {},
  ];
  const filterOf = (q: Record<string, unknown>) => transactionFilter({ companyId: 'c1', ...q } as Parameters<typeof transactionFilter>[0]);

  it("reads a filtered list's count from the (companyId, transaction_date) index alone, and counts as the embedded store", async () => {
    const s = new SqliteReadStore(file(), { extraIndexes: listIndexes() });
    await s.ensureIndexes(TRANSACTIONS, declared());
    await s.commit(new Map([[TRANSACTIONS, docs]]), []);
    const memory = new EmbeddedReadStore();
    await memory.commit(new Map([[TRANSACTIONS, docs]]), []);
    for (const q of queries) {
      const filter = filterOf(q);
      const plan = s.countPlan(TRANSACTIONS, filter)!.join(' | ');
      // An admin's filter on category, amount or status: the entries of one index, no document read.
      if (!('userId' in q) && Object.keys(q).length > 0) expect(plan, JSON.stringify(q)).toMatch(/USING COVERING INDEX/);
      expect(await s.collection(TRANSACTIONS).count(filter), JSON.stringify(q)).toBe(await memory.collection(TRANSACTIONS).count(filter));
    }
    // The receipts list: unmatched or by status, from the (companyId, upload_date) index alone;
    // one month by receipt date from that date's own index.
    await s.ensureIndexes(RECEIPTS, allProjections().find((p) => p.name === 'receipts')!.collections[RECEIPTS]!);
    const receipts = new Map(Array.from({ length: 120 }, (_, i) => [`r${i}`, { _id: `r${i}`, companyId: 'c1', userId: `u${i % 3}`, upload_date: `2024-02-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00.000Z`, receipt_date: `2024-01-${String(1 + (i % 28)).padStart(2, '0')}`, processing_status: i % 4 === 0 ? 'failed' : 'completed', absCents: i * 10, match_count: i % 3 === 0 ? 1 : 0 } as Doc]));
    await s.commit(new Map([[RECEIPTS, receipts]]), []);
    await memory.commit(new Map([[RECEIPTS, receipts]]), []);
    for (const q of [{ status: 'unmatched' }, { processingStatus: 'failed', minAmount: 1 }, { startDate: '2024-01-05', endDate: '2024-01-09', status: 'matched' }] as const) {
      const filter = receiptFilter({ companyId: 'c1', ...q });
      const plan = s.countPlan(RECEIPTS, filter)!.join(' | ');
      if ('startDate' in q) expect(plan).not.toMatch(/COVERING INDEX ix_/);
      else expect(plan, JSON.stringify(q)).toMatch(/USING COVERING INDEX/);
      expect(await s.collection(RECEIPTS).count(filter), JSON.stringify(q)).toBe(await memory.collection(RECEIPTS).count(filter));
    }
    await s.close();
  });

  it('upgrades a data folder whose (companyId, transaction_date) index carries no fields: that index goes, the covering one is built', async () => {
    const f = file();
    const before = Object.fromEntries(Object.entries(listIndexes()).map(([c, list]) => [c, list.map((fields) => fields.filter((x) => !x.startsWith('+')))]));
    const old = new SqliteReadStore(f, { extraIndexes: before });
    await old.ensureIndexes(TRANSACTIONS, declared());
    await old.commit(new Map([[TRANSACTIONS, docs]]), []);
    await old.close();
    const indexSql = () => {
      const db = new Database(f, { readonly: true });
      try {
        return db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'c_transactions' AND sql IS NOT NULL").pluck().all() as string[];
      } finally {
        db.close();
      }
    };
    const byDate = (sql: string) => /\(json_extract\(doc, '\$\.companyId'\), json_extract\(doc, '\$\.transaction_date'\), id DESC/.test(sql);
    expect(indexSql().filter(byDate)).toEqual([expect.not.stringContaining('receipt_count')]);

    const s = new SqliteReadStore(f, { extraIndexes: listIndexes() });
    await s.ensureIndexes(TRANSACTIONS, declared());
    const now = indexSql().filter(byDate);
    expect(now).toHaveLength(1);
    expect(now[0]).toMatch(/id DESC, json_extract\(doc, '\$\.userId'\), json_extract\(doc, '\$\.category_name'\), json_extract\(doc, '\$\.absCents'\), json_extract\(doc, '\$\.receipt_count'\)\)$/);
    expect(indexSql()).toHaveLength(8);
    expect(s.countPlan(TRANSACTIONS, filterOf({ status: 'unmatched' }))!.join(' | ')).toMatch(/USING COVERING INDEX/);
    // A query that names the index by its keys (a hint) reads the covering one.
    expect(s.plan(TRANSACTIONS, { companyId: 'c1', transaction_date: { $gte: '2024-01-10' } }, { sort: { _id: 1 }, hint: ['companyId', 'transaction_date'], limit: 5 })!.join(' | ')).toMatch(/INDEX/);
    expect(await s.collection(TRANSACTIONS).count(filterOf({ category: 'Travel', minAmount: 1, maxAmount: 3 }))).toBe([...docs.values()].filter((d) => d.companyId === 'c1' && String(d.category_name).toLowerCase() === 'travel' && (d.absCents as number) >= 100 && (d.absCents as number) <= 300).length);
    await s.close();
    // Opened again: nothing more to build or drop.
    const again = new SqliteReadStore(f, { extraIndexes: listIndexes() });
    await again.ensureIndexes(TRANSACTIONS, declared());
    expect(indexSql().filter(byDate)).toEqual(now);
    await again.close();
  });
});

describe('blue-green generations over the SQLite store', () => {
  it('builds the next generation beside the live one and switches in one commit', async () => {
    const inner = new SqliteReadStore(file());
    const p: Projection = { name: 'p', version: 2, collections: { items: [['c']] }, handles: new Set(), apply: async () => undefined };
    const store = await GenerationalReadStore.open(inner, [p]);
    await store.commit(new Map([['items', new Map([['a', { _id: 'a', c: 'old' }]])]]), [{ name: 'p', version: 1, position: 5 }]);
    const next = store.target(p, 1);
    await next.ensureIndexes('items', [['c']]);
    await next.commit(new Map([['items', new Map([['a', { _id: 'a', c: 'new' }]])]]), [{ name: 'p@g1', version: 2, position: 5 }]);
    expect((await store.collection('items').findOne({ _id: 'a' }))!.c).toBe('old');
    store.dropGraceMs = 50;
    await store.switchTo(p, 1, { name: 'p', version: 2, position: 5 });
    expect((await store.collection('items').findOne({ _id: 'a' }))!.c).toBe('new');
    expect(store.peek!('items', 'a')).toMatchObject({ c: 'new' });
    // Still there for readers on other connections, until the grace ends.
    expect(await inner.collection(physicalName('items', 0)).count({})).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await inner.collection(physicalName('items', 0)).count({})).toBe(0);
    await inner.close();
    const reopened = await GenerationalReadStore.open(new SqliteReadStore(inner.file), [p]);
    expect(reopened.generationOf('p')).toBe(1);
    expect((await reopened.collection('items').find({ c: 'new' })).map((d) => d._id)).toEqual(['a']);
    expect((await reopened.getCheckpoints()).map((c) => c.name)).toEqual(['p']);
    await reopened.close();
  });
});
