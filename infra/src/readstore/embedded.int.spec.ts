import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readStoreContract } from './contract';
import { EmbeddedReadStore } from './embedded';

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
