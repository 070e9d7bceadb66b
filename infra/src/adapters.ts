import { join } from 'node:path';
import type { BlobStore, EventStore, JobQueue, ReadStore } from '@paperlink/domain';
import { LocalBlobStore } from './blobs/local';
import { InProcessJobQueue } from './jobs/memory';
import type { Config } from './config';
import type { DataDir } from './data-dir';
import { SqliteEventStore } from './eventstore/sqlite';
import type { StatementStager } from '@paperlink/command-api/stage';
import { EmbeddedReadStore } from './readstore/embedded';

export interface Adapters {
  events: EventStore;
  readStore: ReadStore;
  blobs: BlobStore;
  jobs: JobQueue;
  profile: 'embedded' | 'distributed' | 'mixed';
  /** Where the event store takes large statements off the request thread (the SQLite store's writer thread). */
  stager?: StatementStager;
}

/**
 * The read store of a data folder without MONGO_URL (READ_STORE, ADR 0020): SQLite in
 * readmodels.sqlite, or memory with a snapshot file. A folder whose read models were the other
 * kind starts without checkpoints, so the projectors rebuild them from the log.
 */
export async function openEmbeddedReadStore(config: Pick<Config, 'READ_STORE'>, dir: DataDir): Promise<ReadStore> {
  if (config.READ_STORE === 'memory') return new EmbeddedReadStore(dir.snapshotFile);
  const { SqliteReadStore } = await import('./readstore/sqlite');
  const { listIndexes } = await import('./readstore/sqlite-indexes');
  return new SqliteReadStore(join(dir.root, 'readmodels.sqlite'), { extraIndexes: listIndexes() });
}

/** Each port gets its distributed adapter when its URL is set, else the embedded one. */
export async function createAdapters(config: Config, dir: DataDir): Promise<Adapters> {
  let events: EventStore;
  if (config.EVENTSTORE_URL) {
    const { EsdbEventStore } = await import('./eventstore/esdb');
    events = new EsdbEventStore(config.EVENTSTORE_URL, { maxAppendBytes: config.EVENTSTORE_MAX_APPEND_BYTES });
  } else {
    // Large appends (imports) are written by a thread of their own: see eventstore/sqlite-bulk.ts.
    events = new SqliteEventStore(dir.eventsFile, { bulkWriter: true });
  }
  let readStore: ReadStore;
  if (config.MONGO_URL) {
    const { MongoReadStore } = await import('./readstore/mongo');
    readStore = await MongoReadStore.connect(config.MONGO_URL, config.MONGO_DB);
  } else {
    readStore = await openEmbeddedReadStore(config, dir);
  }
  // Receipt files: GridFS next to the read models in the distributed profile, else local disk.
  let blobs: BlobStore;
  if (config.MONGO_URL) {
    const { GridFsBlobStore } = await import('./blobs/gridfs');
    blobs = await GridFsBlobStore.connect(config.MONGO_URL, config.MONGO_DB);
  } else {
    blobs = new LocalBlobStore(dir.filesDir);
  }
  let jobs: JobQueue;
  if (config.KAFKA_BROKERS) {
    const [{ KafkaJobQueue }, { kafkaBrokers, kafkaClientConfig }, { OCR_JOB }, { AUTO_MATCH_JOB }] = await Promise.all([
      import('./jobs/kafka'), import('./jobs/kafka-client'), import('./receipts/ocr-job'), import('./matches/matching-job'),
    ]);
    // The reactors submit these; with worker processes (PAPERLINK_ROLE=worker) no handler of them runs here.
    jobs = await KafkaJobQueue.connect({
      brokers: kafkaBrokers(config), clientId: 'paperlink', topicPrefix: config.KAFKA_TOPIC_PREFIX, client: kafkaClientConfig(config), remoteTypes: [OCR_JOB, AUTO_MATCH_JOB],
    });
  } else {
    jobs = new InProcessJobQueue();
  }
  const distributed = [config.EVENTSTORE_URL, config.MONGO_URL, config.KAFKA_BROKERS].filter(Boolean).length;
  const stager = events instanceof SqliteEventStore ? events.statementStager() : undefined;
  return { events, readStore, blobs, jobs, ...(stager ? { stager } : {}), profile: distributed === 0 ? 'embedded' : distributed === 3 ? 'distributed' : 'mixed' };
}
