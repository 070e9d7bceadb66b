import type { Doc, ReadStore, RecordedEvent, WriteSet } from '@paperlink/domain';
import type { ProjectionView } from './projection';

/** Collects a batch's writes so they commit together with the checkpoints. */
export class UnitOfWork {
  readonly writes: WriteSet = new Map();
  /** Documents read ahead (prefetch), as the store held them when read (null: absent); writes of this unit take precedence. */
  private readonly known = new Map<string, Map<string, Doc | null>>();

  constructor(private readonly store: ReadStore) {}

  /**
   * Reads documents in one `getMany` (one query per few hundred ids in the SQLite store) and
   * keeps them for this unit: the store changes only by this unit's commit, after which the unit
   * is dropped, so what was read stays what the store holds until then.
   */
  async prefetch(collection: string, ids: readonly string[]): Promise<void> {
    let known = this.known.get(collection);
    if (!known) this.known.set(collection, (known = new Map()));
    const pending = this.writes.get(collection);
    const wanted = ids.filter((id) => !known.has(id) && !pending?.has(id));
    if (wanted.length === 0) return;
    const found = await this.store.getMany(collection, wanted);
    for (const id of wanted) known.set(id, found.get(id) ?? null);
  }

  private pending(collection: string): Map<string, Doc | null> {
    let m = this.writes.get(collection);
    if (!m) this.writes.set(collection, (m = new Map()));
    return m;
  }

  /** A document as this batch sees it; synchronous where the store holds documents in memory. */
  get(collection: string, id: string): Doc | null | Promise<Doc | null> {
    const pending = this.writes.get(collection);
    if (pending?.has(id)) return pending.get(id) ?? null;
    const known = this.known.get(collection);
    if (known?.has(id)) return known.get(id) ?? null;
    if (this.store.peek) return this.store.peek(collection, id);
    return this.store.getMany(collection, [id]).then((found) => found.get(id) ?? null);
  }

  private apply<T extends Doc>(collection: string, id: string, position: number, current: (T & { _pos?: number }) | null, change: (doc: T | null) => T | null): void {
    if (current && (current._pos ?? 0) >= position) return; // applied before
    const next = change(current);
    if (next === current) return;
    if (next !== null) {
      if (Object.isFrozen(next)) throw new Error('projectors return new documents');
      (next as T & { _pos?: number })._pos = position; // a projector returns a new object: stamp it
    }
    this.pending(collection).set(id, next);
  }

  viewFor(event: RecordedEvent): ProjectionView {
    const position = event.position;
    return {
      get: <T extends Doc>(collection: string, id: string) => Promise.resolve(this.get(collection, id) as T | null),
      prefetch: (collection: string, ids: readonly string[]) => this.prefetch(collection, ids),
      update: <T extends Doc>(collection: string, id: string, change: (doc: T | null) => T | null) => {
        const current = this.get(collection, id);
        if (current instanceof Promise) return current.then((c) => this.apply(collection, id, position, c as T | null, change));
        this.apply(collection, id, position, current as T | null, change);
        return Promise.resolve();
      },
    };
  }

  get size(): number {
    let n = 0;
    for (const m of this.writes.values()) n += m.size;
    return n;
  }
}
