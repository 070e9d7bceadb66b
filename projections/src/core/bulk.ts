import type { Checkpoint, Doc, EventStore, ReadStore, RecordedEvent, WriteSet } from '@paperlink/domain';
import type { Projection, ProjectionView } from './projection';
import type { RebuildProgress } from './runner';

/** Documents held in memory before they are written (a flush): about 100-300 MB of documents. */
const FLUSH_DOCS = 250_000;
/**
 * Documents per flush where the store has no bulk load and takes the flush through `commit`
 * (the memory store, MongoDB: one transaction each, which must stay small), as the live path.
 */
const COMMIT_FLUSH_DOCS = 2000;
/** Events read per page (the event store may return fewer: it bounds a page by its data's size). */
const PAGE_EVENTS = 5000;

/**
 * Which documents were flushed (collection and id), as a Bloom filter: two bits of 2^27 (16 MB)
 * per document. A projector reads a document before each write, and most are new (a row of an
 * import); a document the filter does not know is not in the store, so the read costs no
 * lookup in the store (four million documents: about one read in 300 asks the store in vain).
 */
class FlushedIds {
  private readonly bits = new Int32Array(2 ** 22);

  private static hashes(collection: string, id: string): [number, number] {
    let h1 = 0x811c9dc5;
    let h2 = 0x9747b28c;
    const mix = (c: number) => {
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
      h2 ^= h2 >>> 15;
    };
    for (let i = 0; i < collection.length; i++) mix(collection.charCodeAt(i));
    mix(0);
    for (let i = 0; i < id.length; i++) mix(id.charCodeAt(i));
    return [(h1 >>> 0) & 0x7ffffff, (h2 >>> 0) & 0x7ffffff];
  }

  add(collection: string, id: string): void {
    for (const h of FlushedIds.hashes(collection, id)) this.bits[h >>> 5]! |= 1 << (h & 31);
  }

  mayHave(collection: string, id: string): boolean {
    for (const h of FlushedIds.hashes(collection, id)) if ((this.bits[h >>> 5]! & (1 << (h & 31))) === 0) return false;
    return true;
  }
}

/**
 * The documents of a rebuild, in memory between flushes: projectors read and update them here,
 * and a flush writes each once, however often it changed (a day's tally changes with every
 * row of an import; a transaction is written at its import and again when a match confirms it).
 * Collections are empty when the rebuild starts: a document neither held here nor flushed
 * (FlushedIds) does not exist, and no read goes to the store for it.
 */
class WorkingSet {
  writes: WriteSet = new Map();
  private readonly flushed = new FlushedIds();
  size = 0;

  constructor(private readonly store: ReadStore) {}

  private held(collection: string): Map<string, Doc | null> {
    let m = this.writes.get(collection);
    if (!m) this.writes.set(collection, (m = new Map()));
    return m;
  }

  get(collection: string, id: string): Doc | null | Promise<Doc | null> {
    const held = this.writes.get(collection);
    if (held) {
      const doc = held.get(id);
      if (doc !== undefined) return doc;
    }
    if (!this.flushed.mayHave(collection, id)) return null;
    if (this.store.peek) return this.store.peek(collection, id);
    return this.store.getMany(collection, [id]).then((found) => found.get(id) ?? null);
  }

  /** As UnitOfWork: a document remembers the position of the last event applied to it (`_pos`), and an event at or before it changes nothing. */
  private apply<T extends Doc>(collection: string, id: string, position: number, current: (T & { _pos?: number }) | null, change: (doc: T | null) => T | null): void {
    if (current && (current._pos ?? 0) >= position) return;
    const next = change(current);
    if (next === current) return;
    if (next !== null) {
      if (Object.isFrozen(next)) throw new Error('projectors return new documents');
      (next as T & { _pos?: number })._pos = position;
    }
    const held = this.held(collection);
    if (!held.has(id)) this.size++;
    held.set(id, next);
  }

  viewFor(event: RecordedEvent): ProjectionView {
    const position = event.position;
    return {
      get: <T extends Doc>(collection: string, id: string) => Promise.resolve(this.get(collection, id) as T | null),
      update: <T extends Doc>(collection: string, id: string, change: (doc: T | null) => T | null) => {
        const current = this.get(collection, id);
        if (current instanceof Promise) return current.then((c) => this.apply(collection, id, position, c as T | null, change));
        this.apply(collection, id, position, current as T | null, change);
        return Promise.resolve();
      },
    };
  }

  /** The writes so far, handed over; the set starts empty (what was flushed is read from the store). */
  take(): WriteSet {
    const writes = this.writes;
    for (const [collection, docs] of writes) for (const [id, doc] of docs) if (doc !== null) this.flushed.add(collection, id);
    this.writes = new Map();
    this.size = 0;
    return writes;
  }
}

export interface BulkRebuildResult {
  events: number;
  ms: number;
  /** Where the time went (ms): reading the log, the projectors, writing (flushes), the store's end (indexes, statistics). */
  parts: { read: number; project: number; write: number; finish: number };
  flushes: number;
}

/**
 * A full rebuild of `projections` from position zero into `store`, offline (`make rebuild`,
 * docs/decisions/0028-rebuild-cost.md): drops their collections and checkpoints, applies the
 * whole log to documents held in memory (WorkingSet) and writes them in large flushes through
 * the store's bulk load (`bulkLoad`, else `commit`), each flush with every projection's checkpoint
 * at the last event applied. A stop in between leaves read models and checkpoints at the last
 * flush: the next start goes on from there. The store's flush at the end builds the indexes
 * a collection filled from empty waited for.
 *
 * For a store nobody reads meanwhile: a reader would see collections fill a flush at a time.
 * The server's own rebuilds go beside the live generation (ProjectionRunner.rebuildBesideLive).
 */
export async function rebuildInBulk(
  events: EventStore,
  store: ReadStore,
  projections: Projection[],
  options: { onProgress?: (p: RebuildProgress) => void; flushDocs?: number } = {},
): Promise<BulkRebuildResult> {
  const started = performance.now();
  const flushDocs = options.flushDocs ?? (store.bulkLoad ? FLUSH_DOCS : COMMIT_FLUSH_DOCS);
  const parts = { read: 0, project: 0, write: 0, finish: 0 };
  await store.drop(projections.flatMap((p) => Object.keys(p.collections)), projections.map((p) => p.name));
  for (const p of projections) {
    for (const [collection, indexes] of Object.entries(p.collections)) await store.ensureIndexes(collection, indexes);
  }
  // Per event type, the projections that handle it (in their order).
  const byType = new Map<string, Projection[]>();
  const handlers = (type: string) => {
    let list = byType.get(type);
    if (!list) byType.set(type, (list = projections.filter((p) => p.handles.has(type))));
    return list;
  };
  const total = await events.headPosition();
  const ws = new WorkingSet(store);
  let flushes = 0;
  let after = 0;
  let processed = 0;
  const flush = async (position: number) => {
    const t = performance.now();
    const checkpoints: Checkpoint[] = projections.map((p) => ({ name: p.name, version: p.version, position }));
    const writes = ws.take();
    await (store.bulkLoad ? store.bulkLoad(writes, checkpoints) : store.commit(writes, checkpoints));
    flushes++;
    parts.write += performance.now() - t;
  };
  for (;;) {
    let t = performance.now();
    const batch = await events.readAll({ after, maxCount: PAGE_EVENTS });
    parts.read += performance.now() - t;
    if (batch.length === 0) break;
    t = performance.now();
    for (const event of batch) {
      for (const p of handlers(event.type)) await p.apply(event, ws.viewFor(event));
      if (ws.size >= flushDocs) {
        parts.project += performance.now() - t;
        await flush(event.position);
        t = performance.now();
      }
    }
    parts.project += performance.now() - t;
    processed += batch.length;
    after = batch[batch.length - 1]!.position;
    options.onProgress?.({ processed, total, position: after });
  }
  if (processed > 0) await flush(after); // the checkpoints at the last event, with what is left
  const t = performance.now();
  await store.flush();
  parts.finish = performance.now() - t;
  return { events: processed, ms: performance.now() - started, parts, flushes };
}
