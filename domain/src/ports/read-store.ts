/**
 * The read store port: collections of documents queried with MongoDB filter syntax.
 * Every adapter passes `infra/src/readstore/contract.ts`.
 */
export type Doc = { _id: string } & Record<string, unknown>;
export type Filter = Record<string, unknown>;
export type SortSpec = Record<string, 1 | -1>;

export interface FindOptions {
  sort?: SortSpec;
  skip?: number;
  limit?: number;
  /**
   * The index to read by, named by its fields (as MongoDB's `hint`), for a query whose best index
   * the caller knows and a planner without statistics may not: the SQLite store reads by it when
   * the collection has it; other stores may ignore it. Never changes the answer.
   */
  hint?: readonly string[];
}

export interface ReadCollection<T extends Doc = Doc> {
  findOne(filter: Filter): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  count(filter: Filter): Promise<number>;
  /** A page and the number of all matches, in one go (lists with pagination). */
  findPage(filter: Filter, options: FindOptions): Promise<{ docs: T[]; total: number }>;
  /** MongoDB aggregation: $match, $group, $sort, $limit, $skip, $project, $unwind, $count, $addFields. */
  aggregate<R = Record<string, unknown>>(pipeline: Record<string, unknown>[]): Promise<R[]>;
}

/** A projector's checkpoint: the position of the last event it applied. */
export interface Checkpoint {
  name: string;
  version: number;
  position: number;
}

/** Writes of one projection batch: null deletes the document. */
export type WriteSet = Map<string, Map<string, Doc | null>>;

export interface ReadStore {
  readonly kind: string;
  collection<T extends Doc = Doc>(name: string): ReadCollection<T>;
  /** Declares indexes (field lists) so queries on them stay fast. Idempotent. */
  ensureIndexes(collection: string, indexes: string[][]): Promise<void>;
  /** One document by id without a round trip, where the store holds documents in memory (embedded). */
  peek?(collection: string, id: string): Doc | null;
  /** Documents by id, for a projector about to update them. */
  getMany(collection: string, ids: string[]): Promise<Map<string, Doc>>;
  /** Applies writes and checkpoints together: after a crash both or neither are there. */
  commit(writes: WriteSet, checkpoints: Checkpoint[]): Promise<void>;
  /**
   * The same as commit, for collections a rebuild fills from empty that no reader reads yet (a
   * bulk load, ADR 0028): one large write, without what commit does for readers meanwhile.
   * Optional: a store without it takes commit.
   */
  bulkLoad?(writes: WriteSet, checkpoints: Checkpoint[]): Promise<void>;
  getCheckpoints(): Promise<Checkpoint[]>;
  /** Drops collections and the named checkpoints (a rebuild). */
  drop(collections: string[], checkpointNames: string[]): Promise<void>;
  /** Persists what is needed for a fast restart (embedded: a snapshot); a no-op where writes are durable. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * An answer computed from a company's whole read models (recurring series over every
 * transaction, match figures over every match), kept until the company's next event: `key`
 * names the answer and its scope; `compute` runs when nothing is kept for the company's
 * current position. Callers at the same position share one computation.
 */
export type CompanyMemo = <T>(companyId: string, key: string, compute: () => Promise<T>) => Promise<T>;
