import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { counterStoreContract } from './contract';
import { MemoryCounterStore } from './memory';
import { SqliteCounterStore } from './sqlite';

const memory = new MemoryCounterStore();
counterStoreContract('memory (one process)', async () => memory);

// Each call opens its own connection to one file, as each process sharing a data folder does.
const dir = mkdtempSync(join(tmpdir(), 'paperlink-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
counterStoreContract('SQLite file (connections of several processes)', async () => new SqliteCounterStore(join(dir, 'limits.sqlite')));
