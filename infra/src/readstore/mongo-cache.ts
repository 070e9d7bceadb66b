import type { Doc } from '@paperlink/domain';

/** Documents kept (the least recently used go first). */
const MAX_DOCS = 50_000;

/**
 * The sole writer's copy of the documents it read and wrote last (the active projector, which
 * holds the lease, or an offline rebuild). No other process writes its collections meanwhile, so
 * what it wrote last is what is stored: the projector's reads before each update (a document per
 * `get`, several per event) cost no round trip, and a document it knows absent is inserted, not
 * upserted (mongo-write.ts). `null`: known absent. Dropped whole on any write that failed.
 */
export class WriterCache {
  private readonly docs = new Map<string, Doc | null>();

  constructor(private readonly max = MAX_DOCS) {}

  private static key(collection: string, id: string): string {
    return `${collection}\0${id}`;
  }

  /** A copy of the document (null: absent), or undefined when not known. */
  get(collection: string, id: string): Doc | null | undefined {
    const key = WriterCache.key(collection, id);
    const doc = this.docs.get(key);
    if (doc === undefined) return undefined;
    this.docs.delete(key);
    this.docs.set(key, doc);
    return doc === null ? null : structuredClone(doc);
  }

  known(collection: string, id: string): 'absent' | 'present' | undefined {
    const doc = this.docs.get(WriterCache.key(collection, id));
    return doc === undefined ? undefined : doc === null ? 'absent' : 'present';
  }

  /** Keeps a document as stored now (the caller's object: not changed afterwards). */
  set(collection: string, id: string, doc: Doc | null): void {
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
    const prefixes = collections.map((c) => `${c}\0`);
    for (const k of this.docs.keys()) if (prefixes.some((p) => k.startsWith(p))) this.docs.delete(k);
  }

  clear(): void {
    this.docs.clear();
  }
}
