import type { EventStore, ReadStore } from '@paperlink/domain';
import type { Config } from './config';
import type { DataDir } from './data-dir';
import { SqliteEventStore } from './eventstore/sqlite';
import { EmbeddedReadStore } from './readstore/embedded';

export interface Adapters {
  events: EventStore;
  readStore: ReadStore;
  profile: 'embedded' | 'distributed' | 'mixed';
}

/** Each port gets its distributed adapter when its URL is set, else the embedded one. */
export async function createAdapters(config: Config, dir: DataDir): Promise<Adapters> {
  let events: EventStore;
  if (config.EVENTSTORE_URL) {
    const { EsdbEventStore } = await import('./eventstore/esdb');
    events = new EsdbEventStore(config.EVENTSTORE_URL);
  } else {
    events = new SqliteEventStore(dir.eventsFile);
  }
  let readStore: ReadStore;
  if (config.MONGO_URL) {
    const { MongoReadStore } = await import('./readstore/mongo');
    readStore = await MongoReadStore.connect(config.MONGO_URL, config.MONGO_DB);
  } else {
    readStore = new EmbeddedReadStore(dir.snapshotFile);
  }
  const distributed = [config.EVENTSTORE_URL, config.MONGO_URL].filter(Boolean).length;
  return { events, readStore, profile: distributed === 0 ? 'embedded' : distributed === 2 ? 'distributed' : 'mixed' };
}
