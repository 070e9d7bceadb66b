import type { Doc } from '@paperlink/domain';

/** Documents kept (the least recently used go first). */
const MAX_DOCS = 50_000;
/** Ids known per collection this writer filled from empty, in all (beyond: it asks the server again). */
const MAX_IDS = 3_000_000;

/**
 * The sole writer's copy of the documents it read and wrote last (the active projector, which
 * holds the lease, or an offline rebuild). No other process writes its collections meanwhile, so
 * what it wrote last is what is stored: the projector's reads before each update (a document per
 * `get`, several per event) cost no round trip, and a document it knows absent is inserted, not
 * upserted (mongo-write.ts). `null`: known absent. Dropped whole on any write that failed.
 *
 * Of a collection this writer dropped (a projection rebuilt from the log's start) it also knows
 * every id it wrote since: any other document is absent, without asking (a catch-up reads before
 * each write a document that does not exist yet: a day's tally, an imported line).
 */
export class WriterCache {
  private readonly docs = new Map<string, Doc | null>();
  private readonly complete = new Map<string, Set<string>>();
  private completeIds = 0;

  constructor(private readonly max = MAX_DOCS) {}

  private static key(collection: string, id: string): string {
    return `${collection}\0${id}`;
  }

  /** A copy of the document (null: absent), or undefined when not known. */
  get(collection: string, id: string): Doc | null | undefined {
    const key = WriterCache.key(collection, id);
    const doc = this.docs.get(key);
    if (doc === undefined) return this.complete.get(collection)?.has(id) === false ? null : undefined;
    this.docs.delete(key);
    this.docs.set(key, doc);
    return doc === null ? null : structuredClone(doc);
  }

  known(collection: string, id: string): 'absent' | 'present' | undefined {
    const doc = this.docs.get(WriterCache.key(collection, id));
    if (doc !== undefined) return doc === null ? 'absent' : 'present';
    const ids = this.complete.get(collection);
    return ids ? (ids.has(id) ? 'present' : 'absent') : undefined;
  }

  /** The collection is empty now (dropped by this writer): every document it holds from now on is one this writer wrote. */
  filledFromEmpty(collection: string): void {
    this.completeIds -= this.complete.get(collection)?.size ?? 0;
    this.complete.set(collection, new Set());
  }

  /** Keeps a document as stored now (the caller's object: not changed afterwards). */
  set(collection: string, id: string, doc: Doc | null): void {
    const ids = this.complete.get(collection);
    if (ids) {
      const had = ids.has(id);
      if (doc === null) ids.delete(id);
      else ids.add(id);
      this.completeIds += (doc === null ? 0 : 1) - (had ? 1 : 0);
      if (this.completeIds > MAX_IDS) {
        this.complete.clear();
        this.completeIds = 0;
      }
    }
    const key = WriterCache.key(collection, id);
    this.docs.delete(key);
    this.docs.set(key, doc);
    if (this.docs.size > this.max) {
      const drop = this.docs.size - this.max;
      let n = 0;
      for (const k of this.docs.keys()) {
        if (n++ >= drop) break;
        this.docs.delete(k);
      }
    }
  }

  forget(collections: readonly string[]): void {
    for (const c of collections) {
      this.completeIds -= this.complete.get(c)?.size ?? 0;
      this.complete.delete(c);
    }
    const prefixes = collections.map((c) => `${c}\0`);
    for (const k of this.docs.keys()) if (prefixes.some((p) => k.startsWith(p))) this.docs.delete(k);
  }

  clear(): void {
    this.docs.clear();
    this.complete.clear();
    this.completeIds = 0;
  }
}
