import type { Doc, RecordedEvent } from '@paperlink/domain';

/**
 * What a projector may do while applying one event. `update` is idempotent: a document
 * remembers the position of the last event applied to it (`_pos`) and an event at or before
 * that position changes nothing, so applying an event twice changes nothing.
 */
export interface ProjectionView {
  get<T extends Doc>(collection: string, id: string): Promise<T | null>;
  update<T extends Doc>(collection: string, id: string, change: (doc: T | null) => T | null): Promise<void>;
  /**
   * Reads these documents in one go, so the `get`s and `update`s of them that follow find them
   * without a read each (an import event's 1,000 rows: one query instead of 1,000). Optional, and
   * only an optimisation: without it every `get` reads on its own, with the same answers.
   */
  prefetch?(collection: string, ids: readonly string[]): Promise<void>;
}

export interface Projection {
  /** Stable name; the checkpoint is stored under it. */
  name: string;
  /** Bump when the projector changes: the runner then rebuilds its collections from position zero. */
  version: number;
  /** Collections this projection owns, with the indexes its queries need. */
  collections: Record<string, string[][]>;
  /**
   * Indexes for the orders its paged lists are read in, by collection (`+field`: a field carried
   * after the keys, so a list's count is read from the index alone). Only a store that reads a
   * sorted page from an index in order (SQLite) builds them, besides those of `collections`: each
   * costs every write of the collection, so only the orders the lists offer.
   */
  listIndexes?: Record<string, string[][]>;
  /** Event types it reacts to. */
  handles: ReadonlySet<string>;
  apply(event: RecordedEvent, view: ProjectionView): Promise<void>;
}

export type ProjectedDoc = Doc & { _pos: number };

/** The projector's pure core: a function of (read model document, event). */
export type Evolve<T extends Doc, E = RecordedEvent> = (doc: T | null, event: E) => T | null;

/** A feature's projections (projections/src/registry.ts lists the modules). */
export interface ProjectionModule {
  feature: string;
  projections: Projection[];
}
