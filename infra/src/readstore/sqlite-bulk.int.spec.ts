import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Doc, Filter, WriteSet } from '@paperlink/domain';
import { EmbeddedReadStore } from './embedded';
import { SqliteReadStore } from './sqlite';

const dir = mkdtempSync(join(tmpdir(), 'paperlink-rs-bulk-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Documents with arrays, objects, booleans and nulls on some paths, so the paths' kinds decide how filters compile. */
function docs(n: number, tag: string): Doc[] {
  const out: Doc[] = [];
  for (let i = 0; i < n; i++) {
    const d: Doc = { _id: `k${String((i * 7919) % n).padStart(4, '0')}`, c: ['x', 'y', 'z'][i % 3]!, n: (i % 11) - 3, tag };
    if (i % 5 === 0) d.tags = ['a', String(i % 4)];
    if (i % 7 === 0) d.o = { p: i % 3 === 0 ? null : i % 9, q: i % 2 === 0 };
    if (i % 13 === 0) d.b = i % 2 === 0;
    out.push(d);
  }
  return out;
}

const FILTERS: Filter[] = [
  {},
  { c: 'x' },
  { n: { $gte: 2 } },
  { tags: 'a' },
  { tags: '3' },
  { 'o.p': null },
  { 'o.q': true },
  { b: false },
  { c: { $in: ['y', 'z'] }, n: { $lt: 0 } },
  { tag: 'second' },
];

const writeSet = (list: Doc[], gone: string[] = []): WriteSet => new Map([['things', new Map<string, Doc | null>([...list.map((d) => [d._id, d] as [string, Doc]), ...gone.map((id) => [id, null] as [string, null])])]]);

describe('SQLite read store: bulkLoad (ADR 0028)', () => {
  it('writes, replaces and deletes as commit does, with the checkpoints; filters answer as the memory store', async () => {
    const sqlite = new SqliteReadStore(join(dir, 'bulk.sqlite'));
    const memory = new EmbeddedReadStore();
    await sqlite.drop(['things'], []);
    await sqlite.ensureIndexes('things', [['c'], ['c', 'n']]);
    await memory.ensureIndexes('things', [['c'], ['c', 'n']]);
    // 1,013 documents: five full statements of 200 rows and 13 one by one.
    const first = docs(1013, 'first');
    await sqlite.bulkLoad(writeSet(first), [{ name: 'things', version: 2, position: 10 }]);
    await memory.commit(writeSet(first), [{ name: 'things', version: 2, position: 10 }]);
    expect(await sqlite.collection('things').count({})).toBe(1013);
    // A second load replaces some documents (other shapes on the same paths) and deletes others.
    const second = docs(300, 'second').map((d) => ({ ...d, n: String(d.n), tags: Array.isArray(d.tags) ? { first: d.tags[0] as string } : undefined }));
    const gone = ['k0301', 'k0302', 'k1000', 'k9999'];
    await sqlite.bulkLoad(writeSet(second, gone), [{ name: 'things', version: 2, position: 20 }]);
    await memory.commit(writeSet(second, gone), [{ name: 'things', version: 2, position: 20 }]);
    await sqlite.flush();
    expect(await sqlite.getCheckpoints()).toEqual([{ name: 'things', version: 2, position: 20 }]);
    const sorted = { sort: { _id: 1 as const } };
    for (const f of FILTERS) {
      expect(await sqlite.collection('things').find(f, sorted), JSON.stringify(f)).toEqual(await memory.collection('things').find(f, sorted));
      expect(await sqlite.collection('things').count(f), JSON.stringify(f)).toBe(await memory.collection('things').count(f));
    }
    expect(await sqlite.collection('things').count({})).toBe(1013 - 3);
    // Built after the load (the table was dropped, so its indexes waited): a page is read from one.
    expect((sqlite.plan('things', { c: 'x' }, { sort: { n: -1 }, limit: 5 }) ?? []).join(' ')).toMatch(/INDEX/);
    await sqlite.close();
  });

  it('keeps no count from before a load', async () => {
    const sqlite = new SqliteReadStore(join(dir, 'counts.sqlite'));
    await sqlite.commit(writeSet(docs(50, 'a')), []);
    expect(await sqlite.collection('things').count({ c: 'x' })).toBe(17);
    await sqlite.bulkLoad(writeSet(docs(90, 'b')), []);
    expect(await sqlite.collection('things').count({ c: 'x' })).toBe(30);
    await sqlite.close();
  });
});
