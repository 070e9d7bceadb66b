import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import type { Doc, WriteSet } from '@paperlink/domain';
import { EmbeddedReadStore } from './embedded';

const dirs: string[] = [];
const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-snap-'));
  dirs.push(dir);
  return join(dir, 'readmodels.snapshot');
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('read model snapshots', () => {
  it('round-trip in chunks: every document and checkpoint comes back', async () => {
    const file = tempFile();
    const store = new EmbeddedReadStore(file);
    const many = new Map<string, Doc>(Array.from({ length: 4_321 }, (_, i) => [`t${i}`, { _id: `t${i}`, companyId: 'c', n: i }]));
    const writes: WriteSet = new Map([['transactions', many], ['users', new Map<string, Doc>([['u1', { _id: 'u1', name: 'Ada' }]])]]);
    await store.commit(writes, [{ name: 'tx', version: 3, position: 99 }]);
    await store.flush();
    const again = new EmbeddedReadStore(file);
    expect(await again.collection('transactions').count({})).toBe(4_321);
    expect(await again.collection('transactions').findOne({ _id: 't4320' })).toMatchObject({ n: 4_320 });
    expect(await again.collection('users').findOne({ _id: 'u1' })).toMatchObject({ name: 'Ada' });
    expect(await again.getCheckpoints()).toEqual([{ name: 'tx', version: 3, position: 99 }]);
  });

  it('a snapshot taken while commits go on holds the state of one instant', async () => {
    const file = tempFile();
    const store = new EmbeddedReadStore(file);
    await store.commit(new Map([['t', new Map(Array.from({ length: 10_000 }, (_, i) => [`d${i}`, { _id: `d${i}`, v: 1 }]))]]), [{ name: 'p', version: 1, position: 1 }]);
    const flushing = store.flush();
    await store.commit(new Map([['t', new Map([['d0', { _id: 'd0', v: 2 }], ['late', { _id: 'late', v: 2 }]])]]), [{ name: 'p', version: 1, position: 2 }]);
    await flushing;
    const copy = new EmbeddedReadStore(file);
    expect(await copy.getCheckpoints()).toEqual([{ name: 'p', version: 1, position: 1 }]);
    expect(await copy.collection('t').findOne({ _id: 'd0' })).toMatchObject({ v: 1 });
    expect(await copy.collection('t').findOne({ _id: 'late' })).toBeNull();
    // The later commit is written by the next flush.
    await store.flush();
    expect(await new EmbeddedReadStore(file).collection('t').findOne({ _id: 'late' })).toMatchObject({ v: 2 });
  });

  it('reads a snapshot written by earlier versions (one v8 object), so an upgrade replays nothing', async () => {
    const file = tempFile();
    writeFileSync(file, serialize({ format: 1, savedAt: '2026-01-01T00:00:00.000Z', checkpoints: [{ name: 'tx', version: 2, position: 7 }], collections: [['transactions', [{ _id: 'a', companyId: 'c' }]]] }));
    const store = new EmbeddedReadStore(file);
    expect(await store.getCheckpoints()).toEqual([{ name: 'tx', version: 2, position: 7 }]);
    expect(await store.collection('transactions').findOne({ _id: 'a' })).toMatchObject({ companyId: 'c' });
  });
});
