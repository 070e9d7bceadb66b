import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dataDir } from '../data-dir';
import { counterStoreContract } from './contract';
import { openCounterStore } from './index';
import { MemoryCounterStore } from './memory';
import { SqliteCounterStore } from './sqlite';

const memory = new MemoryCounterStore();
counterStoreContract('memory (one process)', async () => memory);

// Each call opens its own connection to one file, as each process sharing a data folder does.
const dir = mkdtempSync(join(tmpdir(), 'paperlink-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
counterStoreContract('SQLite file (connections of several processes)', async () => new SqliteCounterStore(join(dir, 'limits.sqlite')));

describe('openCounterStore (without MONGO_URL)', () => {
  it('keeps the limits in memory for role all, in the folder’s limits.sqlite for processes that share it', async () => {
    const folder = dataDir(join(dir, 'folder'));
    const single = await openCounterStore({ PAPERLINK_ROLE: 'all', MONGO_DB: 'paperlink' }, folder);
    const split = await openCounterStore({ PAPERLINK_ROLE: 'command', MONGO_DB: 'paperlink' }, folder);
    try {
      expect(single.kind).toBe('memory');
      expect(split.kind).toBe('sqlite');
      expect((split as SqliteCounterStore).file).toBe(join(folder.root, 'limits.sqlite'));
    } finally {
      await single.close();
      await split.close();
    }
  });
});
