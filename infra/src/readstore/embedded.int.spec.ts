import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readStoreContract } from './contract';
import { EmbeddedReadStore } from './embedded';
import { findInPages } from './paged';

const dir = mkdtempSync(join(tmpdir(), 'paperlink-rs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

readStoreContract('embedded (in memory, mingo)', async () => new EmbeddedReadStore(join(dir, 'contract.snapshot')));

describe('embedded read store paging', () => {
  it('sees a write made after a sorted page was served (the kept order is dropped)', async () => {
    const s = new EmbeddedReadStore();
    await s.ensureIndexes('t', [['c']]);
    const docs = new Map(Array.from({ length: 3000 }, (_, i) => [`d${i}`, { _id: `d${i}`, c: 'x', n: i }]));
    await s.commit(new Map([['t', docs]]), []);
    const page = await s.collection('t').findPage({ c: 'x' }, { sort: { n: -1 }, skip: 1500, limit: 2 });
    expect(page.docs.map((d) => d.n)).toEqual([1499, 1498]);
    await s.commit(new Map([['t', new Map([['d2999', null], ['new', { _id: 'new', c: 'x', n: 1498.5 }]])]]), []);
    const again = await s.collection('t').findPage({ c: 'x' }, { sort: { n: -1 }, skip: 1500, limit: 2 });
    expect(again.total).toBe(3000);
    expect(again.docs.map((d) => d.n)).toEqual([1498.5, 1498]);
  });
});

describe('embedded read store kept orders', () => {
  it('keeps a list in order through inserts, changes and deletes (same pages as a full sort)', async () => {
    const s = new EmbeddedReadStore();
    await s.ensureIndexes('t', [['c']]);
    let seed = 5;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const live = new Map<string, { _id: string; c: string; d: string; n: number }>();
    const put = (id: string) => {
      const doc = { _id: id, c: rand(3) === 0 ? 'y' : 'x', d: `2024-0${1 + rand(9)}-1${rand(9)}`, n: rand(50) };
      live.set(id, doc);
      return doc;
    };
    await s.commit(new Map([['t', new Map(Array.from({ length: 5000 }, (_, i) => [`d${i}`, put(`d${i}`)]))]]), []);
    const coll = s.collection<{ _id: string; c: string; d: string; n: number }>('t');
    const expected = (sort: { d: 1 | -1 }, skip: number, limit: number) => {
      const dir = sort.d;
      const all = [...live.values()].filter((d) => d.c === 'x').sort((a, b) => (a.d < b.d ? -dir : a.d > b.d ? dir : a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
      return { ids: all.slice(skip, skip + limit).map((d) => d._id), total: all.length };
    };
    for (let round = 0; round < 40; round++) {
      const writes = new Map<string, Record<string, unknown> | null>();
      for (let k = 0; k < 1 + rand(300); k++) {
        const id = `d${rand(6000)}`;
        if (rand(5) === 0) {
          live.delete(id);
          writes.set(id, null);
        } else writes.set(id, put(id));
      }
      await s.commit(new Map([['t', writes as Map<string, never>]]), []);
      for (const sort of [{ d: -1 }, { d: 1 }] as const) {
        const skip = rand(3) === 0 ? 0 : rand(3500);
        const page = await coll.findPage({ c: 'x' }, { sort, skip, limit: 50 });
        expect({ ids: page.docs.map((d) => d._id), total: page.total }).toEqual(expected(sort, skip, 50));
      }
    }
  });

  it('answers the first page of a 200,000-document list after each write without a pass over every document', async () => {
    const s = new EmbeddedReadStore();
    await s.ensureIndexes('t', [['c']]);
    const docs = new Map(Array.from({ length: 200_000 }, (_, i) => [`d${i}`, { _id: `d${i}`, c: 'x', d: `2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}` }]));
    await s.commit(new Map([['t', docs]]), []);
    const coll = s.collection('t');
    await coll.findPage({ c: 'x' }, { sort: { d: -1 }, limit: 50 });
    const started = performance.now();
    for (let i = 0; i < 30; i++) {
      await s.commit(new Map([['t', new Map([[`n${i}`, { _id: `n${i}`, c: 'x', d: '2025-01-01' }]])]]), []);
      const page = await coll.findPage({ c: 'x' }, { sort: { d: -1 }, limit: 50 });
      expect(page.total).toBe(200_001 + i);
      expect(page.docs[0]!._id).toBe('n0');
    }
    // Recomputed over every document, each page took 15-60 ms here (0.5-2 s for the 30).
    expect(performance.now() - started).toBeLessThan(150);
  });

  it('pages through a bucket in natural order, each document once', async () => {
    const s = new EmbeddedReadStore();
    await s.ensureIndexes('t', [['c']]);
    await s.commit(new Map([['t', new Map(Array.from({ length: 200_000 }, (_, i) => [`d${i}`, { _id: `d${i}`, c: i % 2 ? 'x' : 'y' }]))]]), []);
    const coll = s.collection('t');
    const seen: string[] = [];
    for (let skip = 0; ; skip += 2000) {
      const { docs, total } = await coll.findPage({ c: 'x' }, { skip, limit: 2000 });
      expect(total).toBe(100_000);
      for (const d of docs) seen.push(d._id);
      if (docs.length < 2000) break;
    }
    expect(seen.length).toBe(100_000);
    expect(new Set(seen).size).toBe(100_000);
    expect(seen.slice(0, 2)).toEqual(['d1', 'd3']);
  });
});

describe('findInPages over the embedded store', () => {
  it('shapes every selected document once, as findPage pages would, and leaves the store unchanged', async () => {
    const s = new EmbeddedReadStore();
    await s.ensureIndexes('t', [['c']]);
    await s.commit(new Map([['t', new Map(Array.from({ length: 5001 }, (_, i) => [`d${i}`, { _id: `d${i}`, c: i % 3 ? 'x' : 'y', n: i }]))]]), []);
    const coll = s.collection<{ _id: string; c: string; n: number }>('t');
    const shaped = await findInPages(coll, { c: 'x' }, (d) => ({ id: d._id, n: d.n }));
    const expected = (await coll.find({ c: 'x' })).map((d) => ({ id: d._id, n: d.n }));
    expect(shaped).toEqual(expected);
    expect(shaped.length).toBe(3334);
    shaped[0]!.n = -1;
    expect((await coll.findOne({ _id: shaped[0]!.id }))!.n).toBe(1);
    expect(await findInPages(coll, { c: 'x', n: { $lt: 10 } }, (d) => d.n)).toEqual([1, 2, 4, 5, 7, 8]);
  });
});

describe('embedded read store snapshots', () => {
  it('restores collections and checkpoints from its snapshot', async () => {
    const file = join(dir, 'snap.bin');
    const a = new EmbeddedReadStore(file);
    await a.commit(new Map([['c', new Map([['1', { _id: '1', v: 'x' }]])]]), [{ name: 'p', version: 3, position: 42 }]);
    await a.close();
    const b = new EmbeddedReadStore(file);
    expect(await b.collection('c').findOne({ _id: '1' })).toEqual({ _id: '1', v: 'x' });
    expect(await b.getCheckpoints()).toEqual([{ name: 'p', version: 3, position: 42 }]);
  });

  it('starts empty (a full replay) from a damaged snapshot', async () => {
    const file = join(dir, 'bad.bin');
    writeFileSync(file, 'not a snapshot');
    const s = new EmbeddedReadStore(file);
    expect(await s.getCheckpoints()).toEqual([]);
  });
});
