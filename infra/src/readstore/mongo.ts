import { MongoClient, type AnyBulkWriteOperation, type ClientSession, type Db, type Document } from 'mongodb';
import type { Checkpoint, Doc, Filter, FindOptions, ReadCollection, ReadStore, WriteSet } from '@paperlink/domain';

const CHECKPOINTS = '_checkpoints';

class MongoCollection implements ReadCollection<Doc> {
  constructor(private readonly db: Db, private readonly name: string) {}

  private get coll() {
    return this.db.collection<Doc>(this.name);
  }

  async findOne(filter: Filter): Promise<Doc | null> {
    return (await this.coll.findOne(filter as Document)) as Doc | null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    let cursor = this.coll.find(filter as Document);
    if (options.sort) cursor = cursor.sort({ ...options.sort, ...('_id' in options.sort ? {} : { _id: 1 }) });
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit !== undefined) cursor = cursor.limit(options.limit);
    return (await cursor.toArray()) as Doc[];
  }

  async count(filter: Filter): Promise<number> {
    return this.coll.countDocuments(filter as Document);
  }

  async findPage(filter: Filter, options: FindOptions): Promise<{ docs: Doc[]; total: number }> {
    const [docs, total] = await Promise.all([this.find(filter, options), this.count(filter)]);
    return { docs, total };
  }

  async aggregate<R>(pipeline: Record<string, unknown>[]): Promise<R[]> {
    return (await this.coll.aggregate(pipeline as Document[]).toArray()) as R[];
  }
}

/**
 * The distributed read store: MongoDB. A projection batch commits its writes and checkpoints
 * in one transaction where the server has them (a replica set); on a standalone server the
 * writes go first and the checkpoint after, which is safe because projectors skip events a
 * document has already seen (its `_pos`), so a batch replayed after a crash changes nothing.
 */
export class MongoReadStore implements ReadStore {
  readonly kind = 'mongodb';
  private transactions: boolean | undefined;

  private constructor(private readonly client: MongoClient, private readonly db: Db) {}

  static async connect(url: string, dbName: string): Promise<MongoReadStore> {
    const client = new MongoClient(url);
    await client.connect();
    return new MongoReadStore(client, client.db(dbName));
  }

  collection<T extends Doc = Doc>(name: string): ReadCollection<T> {
    return new MongoCollection(this.db, name) as unknown as ReadCollection<T>;
  }

  async ensureIndexes(collection: string, indexes: string[][]): Promise<void> {
    for (const fields of indexes) {
      await this.db.collection(collection).createIndex(Object.fromEntries(fields.map((f) => [f, 1])));
    }
  }

  async getMany(collection: string, ids: string[]): Promise<Map<string, Doc>> {
    const docs = (await this.db.collection<Doc>(collection).find({ _id: { $in: ids } }).toArray()) as Doc[];
    return new Map(docs.map((d) => [d._id, d]));
  }

  private async supportsTransactions(): Promise<boolean> {
    if (this.transactions === undefined) {
      const hello = await this.db.admin().command({ hello: 1 });
      this.transactions = Boolean(hello.setName) || hello.msg === 'isdbgrid';
    }
    return this.transactions;
  }

  async commit(writes: WriteSet, checkpoints: Checkpoint[]): Promise<void> {
    const run = async (session?: ClientSession) => {
      for (const [name, docs] of writes) {
        const ops: AnyBulkWriteOperation<Doc>[] = [];
        for (const [id, doc] of docs) {
          ops.push(doc === null ? { deleteOne: { filter: { _id: id } } } : { replaceOne: { filter: { _id: id }, replacement: doc, upsert: true } });
        }
        if (ops.length > 0) await this.db.collection<Doc>(name).bulkWrite(ops, { ordered: true, ...(session ? { session } : {}) });
      }
      for (const cp of checkpoints) {
        await this.db.collection<Checkpoint & { _id: string }>(CHECKPOINTS).replaceOne({ _id: cp.name }, { ...cp }, { upsert: true, ...(session ? { session } : {}) });
      }
    };
    if (await this.supportsTransactions()) {
      const session = this.client.startSession();
      try {
        await session.withTransaction(() => run(session));
      } finally {
        await session.endSession();
      }
    } else {
      await run();
    }
  }

  async getCheckpoints(): Promise<Checkpoint[]> {
    const docs = await this.db.collection<Checkpoint & { _id: string }>(CHECKPOINTS).find({}).toArray();
    return docs.map(({ name, version, position }) => ({ name, version, position }));
  }

  async drop(collections: string[], checkpointNames: string[]): Promise<void> {
    const existing = new Set((await this.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
    for (const name of collections) if (existing.has(name)) await this.db.collection(name).drop();
    if (checkpointNames.length > 0) await this.db.collection(CHECKPOINTS).deleteMany({ _id: { $in: checkpointNames } } as Document);
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {
    await this.client.close();
  }
}
