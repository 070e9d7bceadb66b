import { MongoClient, type ClientSession, type Db, type Document, type MongoClientOptions } from 'mongodb';
import type { Checkpoint, Doc, ReadCollection, ReadStore, WriteSet } from '@paperlink/domain';
import { withoutReplaced } from './covering';
import type { AggregationSupport } from './mongo-aggregate';
import { WriterCache } from './mongo-cache';
import { MongoCollection, type CollectionContext } from './mongo-collection';
import { CollectionVersions, KeptCounts } from './mongo-counts';
import { indexOf, isLegacyIndex, mongoListIndexes, type MongoIndex } from './mongo-indexes';
import { KeysetAnchors } from './mongo-keyset';
import { awaitLease, CHECKPOINTS, checkFence, collectionOps, InsertCollision, insertNew, StaleWriteError, writeCheckpoints, writeCollection, type WriteFence } from './mongo-write';

/** The collections a write set changes. */
const written = (writes: WriteSet) => [...writes].filter(([, docs]) => docs.size > 0).map(([name]) => name);

/** How long a collection's list of indexes is trusted by readers before it is read again. */
const INDEX_LIST_MS = 60_000;
/**
 * Operations per bulk write on FerretDB, the lease checked locally before each: a write goes out
 * only while no standby can have taken over, and one chunk lands well within the 2 s a standby
 * waits beyond the holder's own limit (infra/src/projector/lease.ts). Also a limit of FerretDB
 * v1.24: an update command keeps a connection per statement until it ends, and one of more
 * statements than its pool's 100 connections per database waits for ever (and every later write
 * of that database with it).
 */
const FERRET_CHUNK = 50;
/** Lookups by id at once where the server reads only a bare `_id` by index. */
const ID_LOOKUPS = 16;
/**
 * Documents a server that reads only a bare `_id` by index passes over in the time of one lookup
 * by id (FerretDB v1.24 over SQLite, 20,000 documents: a lookup 2.4 ms, a pass 2.3 s).
 */
const SCAN_PER_LOOKUP = 20;
/** How long a collection's estimated size is trusted (byIds). */
const SIZE_MS = 30_000;

export interface MongoReadStoreOptions {
  /** Indexes beyond the ones projections declare, by collection (a generation `name__gN` takes its collection's); default: the lists' orders (mongoListIndexes) where the server reads sorts from indexes. */
  extraIndexes?: Record<string, string[][]>;
  /**
   * This process is the only writer (an offline rebuild, a benchmark): it keeps what it wrote and
   * read (WriterCache). The active projector is the only writer while it holds its lease (fenceWith).
   */
  soleWriter?: boolean;
  /** Keyset anchors also where the server sorts in memory (tests of the anchors on FerretDB), and every so many documents. */
  anchorsEverywhere?: boolean;
  anchorEvery?: number;
  /**
   * Whether each document write is guarded by its position (collectionOps). Default: where the
   * server reads such a filter by index and applies it atomically (MongoDB), not on FerretDB v1.
   */
  guardDocuments?: boolean;
  client?: MongoClientOptions;
}

/** What the server can do, asked once at connect. */
interface ServerTraits {
  transactions: boolean;
  aggregation: AggregationSupport;
  sortsByIndex: boolean;
  /** Reads a document by index only for a filter that is its bare `_id` (FerretDB v1: any other filter scans the collection). */
  idLookupsOnly: boolean;
}

async function traitsOf(db: Db): Promise<ServerTraits> {
  const admin = db.admin();
  const [hello, build] = await Promise.all([admin.command({ hello: 1 }), admin.command({ buildInfo: 1 })]);
  // FerretDB v1 (MongoDB's protocol over SQLite): no transactions, $group and expressions partly,
  // and no sort read from an index (every match is sorted in memory).
  const ferret = typeof build.ferretdbVersion === 'string';
  return {
    transactions: !ferret && (Boolean(hello.setName) || hello.msg === 'isdbgrid'),
    aggregation: ferret ? 'plain-stages' : 'full',
    sortsByIndex: !ferret,
    idLookupsOnly: ferret,
  };
}

/**
 * The distributed read store: MongoDB (or a server of its protocol: FerretDB). A commit writes
 * each collection's documents in one bulk write and the checkpoints in one statement, in one
 * transaction where the server has them (a replica set); elsewhere documents first and checkpoints
 * after, which is safe because projectors skip events a document has already seen (`_pos`), so a
 * batch replayed after a crash changes nothing. With a fence (the projector lease, fenceWith),
 * every write is refused once the lease is not this process's: see mongo-write.ts and ADR 0032.
 */
export class MongoReadStore implements ReadStore {
  readonly kind = 'mongodb';
  /**
   * Documents a projection runner's commit may hold (runner.ts): a batch of events at once, each
   * document written once however often the batch changed it (a day's tally), one bulk write per
   * collection; bounded for a batch of imports (a million rows).
   */
  readonly commitDocs = 20_000;
  /**
   * Events a runner's subscription reads at once: a catch-up commits once per batch, and the
   * documents every batch changes (a company's tallies) are written once each (on FerretDB each
   * replacement is a transaction of its own).
   */
  readonly batchEvents = 10_000;
  private readonly collections = new Map<string, MongoCollection>();
  private readonly declared = new Map<string, string[][]>();
  private readonly indexLists = new Map<string, { at: number; list: Promise<MongoIndex[]> }>();
  private readonly ctx: CollectionContext;
  private readonly extra: Record<string, string[][]>;
  private fence?: WriteFence;
  private cache?: WriterCache;
  private readonly guards: boolean;
  private readonly sizes = new Map<string, { n: number; at: number }>();

  private constructor(private readonly client: MongoClient, private readonly db: Db, private readonly traits: ServerTraits, options: MongoReadStoreOptions) {
    // The lists' orders serve a server that reads sorts from indexes; FerretDB v1 reads none (a list
    // there is a pass over the collection), and each index costs it every write (3x an insert's).
    this.extra = options.extraIndexes ?? (traits.sortsByIndex ? mongoListIndexes() : {});
    if (options.soleWriter) this.cache = new WriterCache();
    this.guards = options.guardDocuments ?? !traits.idLookupsOnly;
    this.ctx = {
      db,
      aggregation: traits.aggregation,
      sortsByIndex: traits.sortsByIndex || options.anchorsEverywhere === true,
      idLookupsOnly: traits.idLookupsOnly,
      versions: new CollectionVersions(db),
      counts: new KeptCounts(),
      anchors: new KeysetAnchors(options.anchorEvery),
      indexes: (collection) => this.indexesOf(collection),
    };
  }

  static async connect(url: string, dbName: string, options: MongoReadStoreOptions = {}): Promise<MongoReadStore> {
    const client = new MongoClient(url, options.client);
    await client.connect();
    try {
      const db = client.db(dbName);
      return new MongoReadStore(client, db, await traitsOf(db), options);
    } catch (error) {
      await client.close();
      throw error;
    }
  }

  /** The database (the projector lease lives beside the read models: mongo-lease.ts). */
  get database(): Db {
    return this.db;
  }

  /**
   * From now on every write checks the lease (mongo-write.ts), and while it is held this store is
   * the only writer (its reads and writes are kept: WriterCache).
   */
  fenceWith(fence: WriteFence): void {
    this.fence = fence;
    this.cache ??= new WriterCache();
  }

  collection<T extends Doc = Doc>(name: string): ReadCollection<T> {
    let c = this.collections.get(name);
    if (!c) this.collections.set(name, (c = new MongoCollection(this.ctx, name)));
    return c as unknown as ReadCollection<T>;
  }

  private indexesOf(collection: string): Promise<MongoIndex[]> {
    const known = this.indexLists.get(collection);
    if (known && performance.now() - known.at < INDEX_LIST_MS) return known.list;
    const list = this.db.collection(collection).listIndexes().toArray()
      .then((all) => all.map((i) => ({ name: String(i.name), key: i.key as Record<string, 1 | -1> })))
      .catch(() => [] as MongoIndex[]);
    this.indexLists.set(collection, { at: performance.now(), list });
    return list;
  }

  async ensureIndexes(collection: string, indexes: string[][]): Promise<void> {
    const { wanted } = withoutReplaced([...indexes, ...(this.extra[collection.replace(/__g\d+$/, '')] ?? [])]);
    this.declared.set(collection, wanted);
    await this.createIndexes(collection, wanted);
  }

  private async createIndexes(collection: string, wanted: string[][]): Promise<void> {
    const specs = wanted.filter((f) => f.length > 0).map(indexOf);
    const coll = this.db.collection(collection);
    // Indexes of older versions of this store (no `_id` tie-break) cost every write and serve no list.
    const existing = await coll.listIndexes().toArray().catch(() => [] as Document[]);
    for (const old of existing) if (isLegacyIndex(String(old.name))) await coll.dropIndex(String(old.name));
    const have = new Set(existing.map((i) => String(i.name)));
    const missing = specs.filter((s) => !have.has(s.name));
    if (missing.length > 0) await coll.createIndexes(missing.map((s) => ({ key: s.key, name: s.name })));
    this.indexLists.delete(collection);
  }

  async getMany(collection: string, ids: string[]): Promise<Map<string, Doc>> {
    const out = new Map<string, Doc>();
    const cache = this.writerCache();
    const wanted: string[] = [];
    for (const id of ids) {
      const doc = cache?.get(collection, id);
      if (doc === undefined) wanted.push(id);
      else if (doc !== null) out.set(id, doc);
    }
    if (wanted.length === 0) return out;
    const docs = await this.byIds(collection, wanted);
    for (const d of docs) {
      // The store's copy for the cache, the driver's for the caller.
      if (cache) cache.set(collection, d._id, structuredClone(d));
      out.set(d._id, d);
    }
    if (cache) for (const id of wanted) if (!out.has(id)) cache.set(collection, id, null);
    return out;
  }

  /**
   * Documents by id: one `$in` read; where the server reads only a bare `_id` by index (FerretDB),
   * a read each, ID_LOOKUPS at once, unless they are many for the collection's size (a `$in` there
   * is a pass over every document: about as long as SCAN_PER_LOOKUP documents per lookup).
   */
  private async byIds(collection: string, ids: string[]): Promise<Doc[]> {
    const coll = this.db.collection<Doc>(collection);
    if (!this.traits.idLookupsOnly || (ids.length > 1 && ids.length * SCAN_PER_LOOKUP > (await this.sizeOf(collection)))) {
      return (await coll.find({ _id: { $in: ids } }).toArray()) as Doc[];
    }
    const out: Doc[] = [];
    for (let at = 0; at < ids.length; at += ID_LOOKUPS) {
      const found = await Promise.all(ids.slice(at, at + ID_LOOKUPS).map((_id) => coll.findOne({ _id })));
      for (const d of found) if (d) out.push(d as Doc);
    }
    return out;
  }

  /** A collection's size as the server estimates it, read again every SIZE_MS. */
  private async sizeOf(collection: string): Promise<number> {
    const known = this.sizes.get(collection);
    if (known && performance.now() - known.at < SIZE_MS) return known.n;
    const n = await this.db.collection(collection).estimatedDocumentCount().catch(() => 0);
    this.sizes.set(collection, { n, at: performance.now() });
    return n;
  }

  /** Between the chunks of a commit: the lease surely held (waiting for a late renewal), else refused. */
  private checkLocal(): Promise<unknown> {
    return awaitLease(this.fence);
  }

  /** The cache while this process is the only writer: with a fence, only while the lease is held. */
  private writerCache(): WriterCache | undefined {
    if (this.fence && (this.fence.token() === undefined || !this.fence.valid())) {
      this.cache?.clear();
      return undefined;
    }
    return this.cache;
  }

  /** Runs `work` in one transaction where the server has them (and `atomic` is asked), else as it goes. */
  private async unit(atomic: boolean, work: (session?: ClientSession) => Promise<void>): Promise<void> {
    if (!atomic || !this.traits.transactions) return work();
    const session = this.client.startSession();
    try {
      await session.withTransaction(() => work(session));
    } finally {
      await session.endSession();
    }
  }

  async commit(writes: WriteSet, checkpoints: Checkpoint[]): Promise<void> {
    const cache = this.writerCache();
    const write = (known: boolean) => this.unit(true, async (session) => {
      const token = await checkFence(this.db, this.fence, session);
      // A delete is of a document no newer writer wrote: one not written after this batch's events.
      const bound = checkpoints.length > 0 ? Math.max(...checkpoints.map((c) => c.position)) : undefined;
      for (const [name, docs] of writes) {
        const ops = collectionOps(docs, (id) => (known ? cache?.known(name, id) : undefined), bound, this.guards);
        await writeCollection(this.db, name, ops, { session, between: () => this.checkLocal(), ...(this.traits.idLookupsOnly ? { chunk: FERRET_CHUNK } : {}) });
      }
      await this.ctx.versions.bump(written(writes), session);
      await this.checkLocal();
      await writeCheckpoints(this.db, checkpoints, token, session);
    });
    try {
      try {
        await write(true);
      } catch (error) {
        // Documents believed absent exist (the cache was wrong): written again as replacements.
        if (!(error instanceof InsertCollision)) throw error;
        cache?.clear();
        await write(false);
      }
    } catch (error) {
      cache?.clear();
      throw error;
    }
    if (cache) for (const [name, docs] of writes) for (const [id, doc] of docs) cache.set(name, id, doc);
  }

  /**
   * A rebuild's flush (rebuildInBulk: up to 250,000 documents into collections filled from empty,
   * which no one reads yet): every document inserted at once; those an earlier flush wrote are
   * deleted and inserted again, two statements where replacing them is one each (FerretDB writes
   * each in a transaction of its own); no transaction around it.
   */
  async bulkLoad(writes: WriteSet, checkpoints: Checkpoint[]): Promise<void> {
    const token = await checkFence(this.db, this.fence);
    this.cache?.clear();
    for (const [name, docs] of writes) {
      this.ctx.counts.forget(name);
      this.ctx.anchors.forget(name);
      const gone = [...docs].filter(([, d]) => d === null).map(([id]) => id);
      if (gone.length > 0) await this.db.collection(name).deleteMany({ _id: { $in: gone } } as Document);
      const again = await insertNew(this.db, name, [...docs.values()].filter((d): d is Doc => d !== null));
      if (again.length === 0) continue;
      await this.checkLocal();
      await this.db.collection(name).deleteMany({ _id: { $in: again.map((d) => d._id) } } as Document);
      if ((await insertNew(this.db, name, again)).length > 0) throw new StaleWriteError(`${name}: documents written by another writer during a bulk load`);
    }
    await this.ctx.versions.bump(written(writes));
    await writeCheckpoints(this.db, checkpoints, token);
  }

  async getCheckpoints(): Promise<Checkpoint[]> {
    const docs = await this.db.collection<Document>(CHECKPOINTS).find({}).toArray();
    return docs.map((d) => ({ name: String(d.name ?? d._id), version: Number(d.version), position: Number(d.position) }));
  }

  /**
   * Drops collections (their declared indexes are made again at once, as a rebuild fills them) and
   * checkpoints. A drop cannot be part of a transaction: the lease is checked just before.
   */
  async drop(collections: string[], checkpointNames: string[]): Promise<void> {
    const token = await checkFence(this.db, this.fence);
    const existing = new Set((await this.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
    for (const name of collections) {
      if (existing.has(name)) await this.db.collection(name).drop();
      this.indexLists.delete(name);
      this.ctx.counts.forget(name);
      this.ctx.anchors.forget(name);
      const declared = this.declared.get(name);
      if (declared) await this.createIndexes(name, declared);
    }
    this.cache?.forget(collections);
    const writer = this.writerCache();
    for (const name of collections) writer?.filledFromEmpty(name);
    await this.ctx.versions.bump(collections);
    const guard = token === undefined ? {} : { _fence: { $not: { $gt: token } } };
    if (checkpointNames.length > 0) await this.db.collection(CHECKPOINTS).deleteMany({ _id: { $in: checkpointNames }, ...guard } as Document);
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {
    await this.client.close();
  }
}
