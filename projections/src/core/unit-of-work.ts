import type { Doc, ReadStore, RecordedEvent, WriteSet } from '@paperlink/domain';
import type { ProjectionView } from './projection';

/** Collects a batch's writes so they commit together with the checkpoints. */
export class UnitOfWork {
  readonly writes: WriteSet = new Map();

  constructor(private readonly store: ReadStore) {}

  private pending(collection: string): Map<string, Doc | null> {
    let m = this.writes.get(collection);
    if (!m) this.writes.set(collection, (m = new Map()));
    return m;
  }

  async get(collection: string, id: string): Promise<Doc | null> {
    const pending = this.writes.get(collection);
    if (pending?.has(id)) return pending.get(id) ?? null;
    if (this.store.peek) return this.store.peek(collection, id);
    const found = await this.store.getMany(collection, [id]);
    return found.get(id) ?? null;
  }

  viewFor(event: RecordedEvent): ProjectionView {
    return {
      get: async <T extends Doc>(collection: string, id: string) => (await this.get(collection, id)) as T | null,
      update: async <T extends Doc>(collection: string, id: string, change: (doc: T | null) => T | null) => {
        const current = (await this.get(collection, id)) as (T & { _pos?: number }) | null;
        if (current && (current._pos ?? 0) >= event.position) return; // applied before
        const next = change(current);
        if (next === current) return;
        this.pending(collection).set(id, next === null ? null : { ...next, _pos: event.position });
      },
    };
  }

  get size(): number {
    let n = 0;
    for (const m of this.writes.values()) n += m.size;
    return n;
  }
}
