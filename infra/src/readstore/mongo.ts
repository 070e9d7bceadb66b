import { MongoClient, type ClientSession, type Db, type Document, type MongoClientOptions } from 'mongodb';
import type { Checkpoint, Doc, ReadCollection, ReadStore, WriteSet } from '@paperlink/domain';
import { withoutReplaced } from './covering';
import type { AggregationSupport } from './mongo-aggregate';
import { WriterCache } from './mongo-cache';
import { MongoCollection, type CollectionContext } from './mongo-collection';
import { CollectionVersions, KeptCounts } from './mongo-counts';
import { indexOf, isLegacyIndex, mongoListIndexes, type MongoIndex } from './mongo-indexes';
import { KeysetAnchors } from './mongo-keyset';
import { CHECKPOINTS, checkFence, collectionOps, InsertCollision, insertNew, writeCheckpoints, writeCollection, type WriteFence } from './mongo-write';

/** The collections a write set changes. */
const written = (writes: WriteSet) => [...writes].filter(([, docs]) => docs.size > 0).map(([name]) => name);

/** How long a collection's list of indexes is trusted by readers before it is read again. */
const INDEX_LIST_MS = 60_000;

export interface MongoReadStoreOptions {
  /** Indexes beyond the ones projections declare, by collection (a generation `name__gN` takes its collection's); default: the lists' orders (mongoListIndexes). */
  extraIndexes?: Record<string, string[][]>;
  /**
   * This process is the only writer (an offline rebuild, a benchmark): it keeps what it wrote and
   * read (WriterCache). The active projector is the only writer while it holds its lease (fenceWith).
   */
  soleWriter?: boolean;
  /** Keyset anchors also where the server sorts in memory (tests of the anchors on FerretDB), and every so many documents. */
  anchorsEverywhere?: boolean;
  anchorEvery?: number;
  client?: MongoClientOptions;
}

/** What the server can do, asked once at connect. */
interface ServerTraits {
  transactions: boolean;
  aggregation: AggregationSupport;
  sortsByIndex: boolean;
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
  private readonly collections = new Map<string, MongoCollection>();
  private readonly declared = new Map<string, string[][]>();
  private readonly indexLists = new Map<string, { at: number; list: Promise<MongoIndex[]> }>();
  private readonly ctx: CollectionContext;
  private readonly extra: Record<string, string[][]>;
  private fence?: WriteFence;
  private cache?: WriterCache;

  private constructor(private readonly client: MongoClient, private readonly db: Db, private readonly traits: ServerTraits, options: MongoReadStoreOptions) {
    this.extra = options.extraIndexes ?? mongoListIndexes();
    if (options.soleWriter) this.cache = new WriterCache();
    this.ctx = {
      db,
      aggregation: traits.aggregation,
      sortsByIndex: traits.sortsByIndex || options.anchorsEverywhere === true,
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

  get supportsTransactions(): boolean {
    return this.traits.transactions;
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
    const docs = (await this.db.collection<Doc>(collection).find({ _id: { $in: wanted } }).toArray()) as Doc[];
    for (const d of docs) {
      // The store's copy for the cache, the driver's for the caller.
      if (cache) cache.set(collection, d._id, structuredClone(d));
      out.set(d._id, d);
    }
    if (cache) for (const id of wanted) if (!out.has(id)) cache.set(collection, id, null);
    return out;
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
        await writeCollection(this.db, name, collectionOps(docs, (id) => (known ? cache?.known(name, id) : undefined), bound), session);
      }
      await this.ctx.versions.bump(written(writes), session);
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
   * A rebuild's flush (rebuildInBulk: up to 250,000 documents into collections filled from empty):
   * every document inserted at once, those an earlier flush wrote replaced after; no transaction.
   */
  async bulkLoad(writes: WriteSet, checkpoints: Checkpoint[]): Promise<void> {
    const token = await checkFence(this.db, this.fence);
    this.cache?.clear();
    for (const [name, docs] of writes) {
      this.ctx.counts.forget(name);
      this.ctx.anchors.forget(name);
      const gone = [...docs].filter(([, d]) => d === null).map(([id]) => id);
      if (gone.length > 0) await this.db.collection(name).deleteMany({ _id: { $in: gone } } as Document);
      const rows = [...docs.values()].filter((d): d is Doc => d !== null);
      const again = await insertNew(this.db, name, rows);
      const known = () => 'present' as const;
      await writeCollection(this.db, name, collectionOps(new Map(again.map((d) => [d._id, d])), known, undefined));
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
    await this.ctx.versions.bump(collections);
    const guard = token === undefined ? {} : { _fence: { $not: { $gt: token } } };
    if (checkpointNames.length > 0) await this.db.collection(CHECKPOINTS).deleteMany({ _id: { $in: checkpointNames }, ...guard } as Document);
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {
    await this.client.close();
  }
}
