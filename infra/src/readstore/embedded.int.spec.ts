import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readStoreContract } from './contract';
import { EmbeddedReadStore } from './embedded';

const dir = mkdtempSync(join(tmpdir(), 'paperlink-rs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

readStoreContract('embedded (in memory, mingo)', async () => new EmbeddedReadStore(join(dir, 'contract.snapshot')));

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
