import { join } from 'node:path';
import type { CounterStore } from '@paperlink/domain';
import type { Config } from '../config';
import type { DataDir } from '../data-dir';
import { MemoryCounterStore } from './memory';

/**
 * The limit store follows the read store (docs/decisions/0004-sign-in-throttling.md): MongoDB
 * when MONGO_URL is set; a SQLite file of the data folder when processes of other roles share
 * it (ADR 0025); else this process's memory (role `all`, the only process on its folder).
 */
export async function openCounterStore(config: Pick<Config, 'MONGO_URL' | 'MONGO_DB' | 'PAPERLINK_ROLE'>, dir: DataDir): Promise<CounterStore> {
  if (config.MONGO_URL) {
    const { MongoCounterStore } = await import('./mongo');
    return MongoCounterStore.connect(config.MONGO_URL, config.MONGO_DB);
  }
  if (config.PAPERLINK_ROLE !== 'all') {
    const { SqliteCounterStore } = await import('./sqlite');
    return new SqliteCounterStore(join(dir.root, 'limits.sqlite'));
  }
  return new MemoryCounterStore();
}
