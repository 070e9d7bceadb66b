import { MongoServerError, type Collection, type Db, type Document, type FindOptions as DriverFindOptions } from 'mongodb';
import { Query } from 'mingo';
import type { Doc, Filter, FindOptions, ReadCollection, SortSpec } from '@paperlink/domain';
import { compileFilter } from './compile';
import { aggregate, type AggregationSupport } from './mongo-aggregate';
import type { CollectionVersions, KeptCounts } from './mongo-counts';
import { filterKey } from './mongo-counts';
import { hintedIndex, orderIndex, sortWithTieBreak, type MongoIndex } from './mongo-indexes';
import type { KeysetAnchors } from './mongo-keyset';

/** What a collection shares with its store. */
export interface CollectionContext {
  db: Db;
  aggregation: AggregationSupport;
  /** Whether the server reads a sort from an index (MongoDB; FerretDB v1 sorts every match in memory). */
  sortsByIndex: boolean;
  /** Whether the server reads by index only a filter that is a bare `_id` (FerretDB v1). */
  idLookupsOnly: boolean;
  versions: CollectionVersions;
  counts: KeptCounts;
  anchors: KeysetAnchors;
  /** The indexes a collection has (read from the server now and then). */
  indexes(collection: string): Promise<MongoIndex[]>;
}

/** A hint naming an index the server does not have (dropped, not built yet): read without it. */
const badHint = (e: unknown) => e instanceof MongoServerError && (e.code === 2 || /hint/i.test(e.message));

/**
 * One collection of the MongoDB read store. Sorted reads take an `_id` tie-break in the sort's
 * direction (an index holds the whole order); a page deep in a sorted list is read from a keyset
 * anchor on a server that reads sorts from indexes; a list's total is kept with the collection's
 * version (mongo-counts.ts); every document read is a copy (the driver's own).
 */
export class MongoCollection implements ReadCollection<Doc> {
  /** Where sequential readers (findInPages) left off: filter and skip -> last `_id` served. */
  private readonly cursors = new Map<string, string>();

  constructor(private readonly ctx: CollectionContext, readonly name: string) {}

  private get coll(): Collection<Document> {
    return this.ctx.db.collection<Document>(this.name);
  }

  async findOne(filter: Filter): Promise<Doc | null> {
    const byId = await this.byId(filter);
    if (byId) return byId[0] ?? null;
    return (await this.coll.findOne(filter as Document)) as Doc | null;
  }

  /**
   * A filter on one `_id` and more (a company's transaction by id) on a server that reads by index
   * only a bare `_id`: that document, then the rest of the filter here. Undefined for other filters.
   */
  private async byId(filter: Filter): Promise<Doc[] | undefined> {
    if (!this.ctx.idLookupsOnly || typeof filter._id !== 'string' || Object.keys(filter).length === 1) return undefined;
    const { _id, ...rest } = filter;
    const doc = (await this.coll.findOne({ _id } as Document)) as Doc | null;
    if (!doc) return [];
    const test = compileFilter(rest) ?? ((d: unknown) => new Query(rest).test(d as Record<string, unknown>));
    return test(doc) ? [doc] : [];
  }

  /** The driver's options for a read: the order with its tie-break, and the index that holds it. */
  private async options(filter: Filter, options: FindOptions): Promise<{ sort?: SortSpec; driver: DriverFindOptions }> {
    const paged = options.limit !== undefined || (options.skip ?? 0) > 0;
    const sort = sortWithTieBreak(options.sort) ?? (paged ? { _id: 1 as const } : undefined);
    const driver: DriverFindOptions = {};
    if (sort) driver.sort = sort;
    if (this.ctx.sortsByIndex && (sort || options.hint)) {
      const indexes = await this.ctx.indexes(this.name);
      const hint = (sort && options.sort ? orderIndex(indexes, filter, sort) : undefined) ?? (options.hint ? hintedIndex(indexes, options.hint) : undefined);
      if (hint) driver.hint = hint;
    }
    return { sort, driver };
  }

  private async read(filter: Document, driver: DriverFindOptions, skip: number, limit: number | undefined): Promise<Doc[]> {
    const run = (o: DriverFindOptions) => this.coll.find(filter, { ...o, ...(skip > 0 ? { skip } : {}), ...(limit !== undefined ? { limit } : {}) }).toArray();
    try {
      return (await run(driver)) as unknown as Doc[];
    } catch (error) {
      if (!driver.hint || !badHint(error)) throw error;
      const { hint: _ignored, ...rest } = driver;
      return (await run(rest)) as unknown as Doc[];
    }
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    const byId = await this.byId(filter);
    if (byId) return byId.slice(options.skip ?? 0, options.limit === undefined ? undefined : (options.skip ?? 0) + options.limit);
    const { sort, driver } = await this.options(filter, options);
    const skip = options.skip ?? 0;
    if (sort && options.sort && this.ctx.sortsByIndex && skip >= this.ctx.anchors.every && options.limit !== undefined) {
      const version = (await this.ctx.versions.read())(this.name);
      const page = await this.ctx.anchors.page(this.name, version, filter, sort, skip, options.limit, (f, s, l) => this.read(f, driver, s, l));
      if (page) return page as Doc[];
    }
    return this.read(filter as Document, driver, skip, options.limit);
  }

  async count(filter: Filter): Promise<number> {
    return this.ctx.counts.count(
      this.name,
      filter,
      async () => (await this.ctx.versions.read())(this.name),
      () => this.coll.countDocuments(filter as Document),
    );
  }

  async findPage(filter: Filter, options: FindOptions): Promise<{ docs: Doc[]; total: number }> {
    const [docs, total] = await Promise.all([this.find(filter, options), this.count(filter)]);
    return { docs, total };
  }

  /**
   * Documents in `_id` order, `skip` matches on (paged.ts reads a company's documents this way): a
   * reader going through pages in turn continues after the last `_id` it was served instead of
   * skipping every document before the page again (a document written behind it meanwhile is
   * missed, as paged.ts allows).
   */
  async mapPage<R>(filter: Filter, skip: number, limit: number, map: (doc: Doc) => R): Promise<R[]> {
    const key = filterKey(filter);
    const from = key === undefined ? undefined : this.cursors.get(`${key}\0${skip}`);
    const query = from === undefined ? (filter as Document) : { $and: [filter, { _id: { $gt: from } }] };
    const docs = await this.read(query, { sort: { _id: 1 } }, from === undefined ? skip : 0, limit);
    if (key !== undefined) {
      this.cursors.delete(`${key}\0${skip}`);
      if (docs.length > 0) {
        if (this.cursors.size >= 16) this.cursors.delete(this.cursors.keys().next().value!);
        this.cursors.set(`${key}\0${skip + docs.length}`, docs[docs.length - 1]!._id);
      }
    }
    return docs.map(map);
  }

  async aggregate<R>(pipeline: Record<string, unknown>[]): Promise<R[]> {
    return aggregate<R>(this.coll, pipeline as Document[], this.ctx.aggregation);
  }
}
