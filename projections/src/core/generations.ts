import type { Checkpoint, Doc, Filter, FindOptions, ReadCollection, ReadStore, WriteSet } from '@paperlink/domain';
import type { Projection } from './projection';

/** Where the generation of each projection is kept: one document per projection, `{ _id: name, generation }`. */
export const GENERATIONS = '_generations';

interface GenerationDoc extends Doc {
  generation: number;
}

/**
 * How long a switched-away generation stays readable: longer than any follower needs to read
 * the new alias (told at once in a projector thread, a 50 ms poll in another process).
 */
export const DROP_GRACE_MS = 10_000;

/**
 * The physical name of a projection's collection in a generation. Generation 0 is the plain
 * name, so data folders written before generations existed are generation 0 as they are.
 */
export function physicalName(collection: string, generation: number): string {
  return generation === 0 ? collection : `${collection}__g${generation}`;
}

/** The checkpoint of a generation being built beside the live one. */
export function buildCheckpointName(projection: string, generation: number): string {
  return `${projection}@g${generation}`;
}

/**
 * The read store as queries and the live projector see it: a projection's collections by
 * their names, resolved through the alias map (projection -> generation) at every call. A
 * blue-green rebuild writes the next generation under its physical names beside the live one
 * and then switches the alias in one commit (the alias document and the projection's
 * checkpoint together), so a query sees either the whole old generation or the whole new one.
 */
export class GenerationalReadStore implements ReadStore {
  readonly kind: string;
  private readonly owner = new Map<string, string>();
  private readonly generations = new Map<string, number>();

  private constructor(readonly inner: ReadStore, projections: Projection[]) {
    this.kind = inner.kind;
    for (const p of projections) for (const c of Object.keys(p.collections)) this.owner.set(c, p.name);
  }

  /** Wraps a store and loads its alias map. */
  static async open(inner: ReadStore, projections: Projection[]): Promise<GenerationalReadStore> {
    const store = new GenerationalReadStore(inner, projections);
    for (const doc of await inner.collection<GenerationDoc>(GENERATIONS).find({})) store.generations.set(doc._id, doc.generation);
    return store;
  }

  /** Reads the alias map again: another process's projector may have switched a generation (ADR 0025). */
  async reloadGenerations(): Promise<void> {
    const docs = await this.inner.collection<GenerationDoc>(GENERATIONS).find({});
    this.generations.clear();
    for (const doc of docs) this.generations.set(doc._id, doc.generation);
  }

  generationOf(projection: string): number {
    return this.generations.get(projection) ?? 0;
  }

  /** The physical collection a name resolves to now. */
  physical(name: string): string {
    const owner = this.owner.get(name);
    return owner === undefined ? name : physicalName(name, this.generationOf(owner));
  }

  collection<T extends Doc = Doc>(name: string): ReadCollection<T> {
    // Resolved at each call: a caller holding the collection follows a switch.
    const current = () => this.inner.collection<T>(this.physical(name)) as ReadCollection<T> & { mapPage?: unknown };
    const handle: ReadCollection<T> & { mapPage?: unknown } = {
      findOne: (filter: Filter) => current().findOne(filter),
      find: (filter: Filter, options?: FindOptions) => current().find(filter, options),
      count: (filter: Filter) => current().count(filter),
      findPage: (filter: Filter, options: FindOptions) => current().findPage(filter, options),
      aggregate: <R>(pipeline: Record<string, unknown>[]) => current().aggregate<R>(pipeline),
    };
    // The embedded store's page reader (see infra/src/readstore/paged.ts), where there is one.
    if (typeof current().mapPage === 'function') {
      handle.mapPage = (...args: unknown[]) => (current().mapPage as (...a: unknown[]) => unknown)(...args);
    }
    return handle;
  }

  ensureIndexes(collection: string, indexes: string[][]): Promise<void> {
    return this.inner.ensureIndexes(this.physical(collection), indexes);
  }

  /** The inner store's commit and batch sizes (runner.ts, commitDocsOf). */
  get commitDocs(): number | undefined {
    return (this.inner as { commitDocs?: number }).commitDocs;
  }

  get batchEvents(): number | undefined {
    return (this.inner as { batchEvents?: number }).batchEvents;
  }

  get peek(): ReadStore['peek'] {
    const inner = this.inner;
    if (!inner.peek) return undefined;
    return (collection: string, id: string) => inner.peek!(this.physical(collection), id);
  }

  getMany(collection: string, ids: string[]): Promise<Map<string, Doc>> {
    return this.inner.getMany(this.physical(collection), ids);
  }

  commit(writes: WriteSet, checkpoints: Checkpoint[]): Promise<void> {
    const mapped: WriteSet = new Map();
    for (const [name, docs] of writes) mapped.set(this.physical(name), docs);
    return this.inner.commit(mapped, checkpoints);
  }

  get bulkLoad(): ReadStore['bulkLoad'] {
    const inner = this.inner;
    if (!inner.bulkLoad) return undefined;
    return (writes: WriteSet, checkpoints: Checkpoint[]) => {
      const mapped: WriteSet = new Map();
      for (const [name, docs] of writes) mapped.set(this.physical(name), docs);
      return inner.bulkLoad!(mapped, checkpoints);
    };
  }

  getCheckpoints(): Promise<Checkpoint[]> {
    return this.inner.getCheckpoints();
  }

  drop(collections: string[], checkpointNames: string[]): Promise<void> {
    return this.inner.drop(collections.map((c) => this.physical(c)), checkpointNames);
  }

  flush(): Promise<void> {
    return this.inner.flush();
  }

  close(): Promise<void> {
    // Old generations not dropped yet are dropped by the next start.
    for (const timer of this.pendingDrops) clearTimeout(timer);
    this.pendingDrops.clear();
    return this.inner.close();
  }

  /** The same store with one projection's collections pinned to a generation (where a rebuild writes). */
  target(projection: Projection, generation: number): ReadStore {
    const names = new Set(Object.keys(projection.collections));
    const inner = this.inner;
    const map = (name: string) => (names.has(name) ? physicalName(name, generation) : name);
    return {
      kind: inner.kind,
      collection: <T extends Doc = Doc>(name: string) => inner.collection<T>(map(name)),
      ensureIndexes: (collection, indexes) => inner.ensureIndexes(map(collection), indexes),
      peek: inner.peek ? (collection, id) => inner.peek!(map(collection), id) : undefined,
      getMany: (collection, ids) => inner.getMany(map(collection), ids),
      commit: (writes, checkpoints) => {
        const mapped: WriteSet = new Map();
        for (const [name, docs] of writes) mapped.set(map(name), docs);
        return inner.commit(mapped, checkpoints);
      },
      bulkLoad: inner.bulkLoad
        ? (writes, checkpoints) => {
          const mapped: WriteSet = new Map();
          for (const [name, docs] of writes) mapped.set(map(name), docs);
          return inner.bulkLoad!(mapped, checkpoints);
        }
        : undefined,
      getCheckpoints: () => inner.getCheckpoints(),
      drop: (collections, checkpointNames) => inner.drop(collections.map(map), checkpointNames),
      flush: () => inner.flush(),
      close: () => Promise.resolve(),
    };
  }

  /**
   * Makes `generation` the live one: the alias document and the projection's checkpoint in one
   * commit, the in-memory alias in the same turn; then the old generation and the build's
   * checkpoint are dropped.
   */
  async switchTo(projection: Projection, generation: number, checkpoint: Checkpoint): Promise<void> {
    const previous = this.generationOf(projection.name);
    const alias: GenerationDoc = { _id: projection.name, generation };
    await this.inner.commit(new Map([[GENERATIONS, new Map([[projection.name, alias]])]]), [checkpoint]);
    this.generations.set(projection.name, generation);
    const drop = () => this.inner.drop(Object.keys(projection.collections).map((c) => physicalName(c, previous)), [buildCheckpointName(projection.name, generation)]);
    if (this.dropGraceMs <= 0) return drop();
    // Readers on other connections (the request thread beside a projector thread, query and
    // command processes) switch when they are told of this commit or at their next poll: the old
    // generation stays readable a while longer, so none of them reads a dropped table (an empty
    // list). A stop before the drop leaves the build's checkpoint, and the next start drops the
    // old generation (ProjectionRunner's dropLeftovers).
    const timer = setTimeout(() => {
      this.pendingDrops.delete(timer);
      drop().catch((error: unknown) => console.error(`dropping ${projection.name}'s generation ${previous} failed (the next start drops it):`, error));
    }, this.dropGraceMs);
    timer.unref?.();
    this.pendingDrops.add(timer);
  }

  /** How long an old generation stays after a switch (0: dropped in the switch). */
  dropGraceMs = DROP_GRACE_MS;
  private readonly pendingDrops = new Set<ReturnType<typeof setTimeout>>();
}
