import { join } from 'node:path';
import type { DataDir } from '../infra/src/data-dir';
import { SqliteEventStore } from '../infra/src/eventstore/sqlite';
import { BULK_GROUPS, SqliteReadStore } from '../infra/src/readstore/sqlite';
import { listIndexes } from '../infra/src/readstore/sqlite-indexes';

/**
 * A data folder's event log and SQLite read models opened in process, the read store with the
 * bulk group limits the projector thread's store takes (infra/src/projector/thread.ts), for a
 * benchmark that times in process the projections the server runs in that thread
 * (bench/import-cost.ts). Large appends go through the bulk writer thread, as the server's do.
 */
export function projectorStores(dir: DataDir): { events: SqliteEventStore; readStore: SqliteReadStore } {
  return {
    events: new SqliteEventStore(dir.eventsFile, { bulkWriter: true }),
    readStore: new SqliteReadStore(join(dir.root, 'readmodels.sqlite'), { extraIndexes: listIndexes(), ...BULK_GROUPS }),
  };
}
