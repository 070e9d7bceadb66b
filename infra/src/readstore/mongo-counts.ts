import type { ClientSession, Db, Document } from 'mongodb';
import type { Filter } from '@paperlink/domain';

/** Where a collection's write count is kept: one document, a field per collection. */
const META = '_meta';
const VERSIONS = 'versions';
/** Counts kept per collection (as the SQLite store keeps them). */
const KEPT = 16;
/** How long a count waits for its recount before answering the last known one (the SQLite store's wait). */
const STALE_WAIT_MS = 50;

/** A collection name as a field name (no dots or leading dollar). */
const field = (collection: string) => `v.${encodeURIComponent(collection).replaceAll('.', '%2E')}`;

/** A filter as a cache key, or undefined when it holds values JSON cannot tell apart (RegExp, Date). */
export function filterKey(filter: Filter): string | undefined {
  let plain = true;
  const key = JSON.stringify(filter, (_k, v: unknown) => {
    if (v instanceof RegExp || v instanceof Date) plain = false;
    return v;
  });
  return plain ? key : undefined;
}

/**
 * How many commits have written each collection, bumped by the writer after a commit's documents
 * (in its transaction where there is one). A reader in another process keeps a count (or a page
 * anchor) with the version it read before counting; while the version is the same, no write came
 * since, and the count is answered without a recount.
 */
export class CollectionVersions {
  private reading?: Promise<Document | null>;

  constructor(private readonly db: Db) {}

  /** The current versions (one small read, shared by the callers that ask meanwhile). */
  async read(): Promise<(collection: string) => number> {
    this.reading ??= this.db.collection<Document>(META).findOne({ _id: VERSIONS } as Document).finally(() => (this.reading = undefined));
    const doc = await this.reading;
    return (collection) => {
      const path = field(collection).split('.');
      const v = (doc?.[path[0]!] as Record<string, unknown> | undefined)?.[path[1]!];
      return typeof v === 'number' ? v : 0;
    };
  }

  async bump(collections: readonly string[], session?: ClientSession): Promise<void> {
    if (collections.length === 0) return;
    await this.db.collection<Document>(META).updateOne({ _id: VERSIONS } as Document, { $inc: Object.fromEntries(collections.map((c) => [field(c), 1])) }, { upsert: true, ...(session ? { session } : {}) });
  }
}

interface Kept {
  n: number;
  version: number;
}

/**
 * Counts of a collection's filters, kept with the version they were counted at: a list asks its
 * total with every page, and a count of a company's million transactions is a pass over them. A
 * count whose version moved is recounted once for everyone asking meanwhile; a recount slower than
 * STALE_WAIT_MS (or one already under way) is answered with the last known count while it runs,
 * as the SQLite store answers while an import commits.
 */
export class KeptCounts {
  private readonly kept = new Map<string, Map<string, Kept>>();
  private readonly recounts = new Map<string, Promise<number>>();
  private readonly recountMs = new Map<string, number>();

  constructor(private readonly staleWaitMs = STALE_WAIT_MS) {}

  async count(collection: string, filter: Filter, version: () => Promise<number>, recount: () => Promise<number>): Promise<number> {
    const key = filterKey(filter);
    if (key === undefined) return recount();
    const at = await version();
    const kept = this.kept.get(collection)?.get(key);
    if (kept && kept.version === at) return kept.n;
    const flight = `${collection}\0${key}`;
    let running = this.recounts.get(flight);
    const already = running !== undefined;
    if (!running) {
      const started = performance.now();
      running = recount().then((n) => {
        this.recountMs.set(flight, performance.now() - started);
        this.keep(collection, key, { n, version: at });
        return n;
      });
      running.then(() => this.recounts.delete(flight), () => this.recounts.delete(flight));
      this.recounts.set(flight, running);
    }
    if (!kept) return running;
    // A recount that took longer than the wait last time will again: the last known count now.
    if (already || (this.recountMs.get(flight) ?? 0) > this.staleWaitMs) return kept.n;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), this.staleWaitMs)));
    const n = await Promise.race([running, late]).finally(() => clearTimeout(timer));
    return n ?? kept.n;
  }

  private keep(collection: string, key: string, value: Kept): void {
    let counts = this.kept.get(collection);
    if (!counts) this.kept.set(collection, (counts = new Map()));
    counts.delete(key);
    if (counts.size >= KEPT) counts.delete(counts.keys().next().value!);
    counts.set(key, value);
  }

  /** A collection dropped or bulk loaded by this process: its counts are not kept. */
  forget(collection: string): void {
    this.kept.delete(collection);
  }
}
