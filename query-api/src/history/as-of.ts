import type { EventStore, ReadStore, RecordedEvent } from '@paperlink/domain';
import {
  COMPANY_STATS,
  companiesProjection,
  masterDataProjection,
  matchesProjection,
  ProjectionRunner,
  receiptsProjection,
  TRANSACTION_KEYS,
  transactionsProjection,
  usersProjection,
  type Projection,
} from '@paperlink/projections';
import { positionAt, TimeAnchors } from './position-at';

export { positionAt };

/**
 * State as of a moment (ADR 0017): the company's events up to the global position of
 * that moment, replayed by the live projectors themselves (the same apply functions, through
 * the same ProjectionRunner) into a fresh in-memory read store. The list and record reads then
 * run their own queries on it, so filters, sort, paging and scoping are the live ones and an
 * as-of state is what the live projection showed at that position.
 *
 * Cost: the replay reads the global log up to the position (events of other companies are
 * read and skipped) and applies the company's events; the runner gives the event loop a turn
 * every 20 ms, as the live runner does, so requests keep being answered meanwhile. Replays are
 * cached per (company, position) for a short while and a replay in progress is shared.
 */

/** The read models the transactions, receipts and matches reads use (names, categories, memberships). */
export const AS_OF_PROJECTIONS: Projection[] = [usersProjection, companiesProjection, masterDataProjection, transactionsProjection, receiptsProjection, matchesProjection];

/** Account-level events (no company) the users read model needs for names; logins are left out. */
const USER_EVENTS = new Set(['UserRegistered', 'UserProfileUpdated']);
const HANDLED = new Set(AS_OF_PROJECTIONS.flatMap((p) => [...p.handles]));

/** Whether an event belongs in a company's as-of replay. */
export function belongsTo(event: RecordedEvent, companyId: string): boolean {
  if (!HANDLED.has(event.type)) return false;
  if (USER_EVENTS.has(event.type)) return true;
  if (event.metadata.companyId === companyId) return true;
  const data = event.data as { companyId?: unknown } | null;
  return data !== null && typeof data === 'object' && data.companyId === companyId;
}

/**
 * Collections of the as-of projections that no read uses (import dedupe keys, counts): a
 * replay does not keep them, which halves what it stores for a company's transactions.
 */
const NOT_READ = new Set([TRANSACTION_KEYS, COMPANY_STATS]);

/** A replay's store: the projectors' writes to collections no read uses are left out. */
export function withoutUnread(store: ReadStore): ReadStore {
  return {
    kind: store.kind,
    collection: (name) => store.collection(name),
    ensureIndexes: (collection, indexes) => store.ensureIndexes(collection, indexes),
    ...(store.peek ? { peek: (collection: string, id: string) => store.peek!(collection, id) } : {}),
    getMany: (collection, ids) => store.getMany(collection, ids),
    commit: (writes, checkpoints) => {
      for (const name of NOT_READ) writes.delete(name);
      return store.commit(writes, checkpoints);
    },
    getCheckpoints: () => store.getCheckpoints(),
    drop: (collections, names) => store.drop(collections, names),
    flush: () => store.flush(),
    close: () => store.close(),
  };
}

/**
 * The log as a replay of one company up to a position sees it (reads only). `atBoundary` is
 * called before each read after the first with the position every event up to which has been
 * applied (the runner reads the next batch only once the last one is committed): where a
 * replay may keep a checkpoint. `done` settles when a subscription has delivered everything.
 */
function companyLog(
  events: EventStore,
  companyId: string,
  upTo: number,
  counter: { read: number; applied: number },
  atBoundary?: (position: number) => void,
): { log: EventStore; done: Promise<void> } {
  const unsupported = (): never => {
    throw new Error('an as-of replay only reads');
  };
  let finish!: () => void;
  let fail!: (error: unknown) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  done.catch(() => undefined);
  let reads = 0;
  const log: EventStore = {
    kind: `${events.kind}:as-of`,
    appendToStream: unsupported,
    appendMany: unsupported,
    readStream: unsupported,
    headPosition: async () => upTo,
    close: async () => {},
    async readAll({ after, maxCount }) {
      if (reads++ > 0) atBoundary?.(after);
      let from = after;
      while (from < upTo) {
        const batch = await events.readAll({ after: from, maxCount });
        if (batch.length === 0) return [];
        const out: RecordedEvent[] = [];
        for (const e of batch) {
          if (e.position > upTo) break;
          counter.read++;
          if (belongsTo(e, companyId)) out.push(e);
        }
        from = batch[batch.length - 1]!.position;
        if (out.length > 0) {
          counter.applied += out.length;
          return out;
        }
      }
      return [];
    },
    /** Delivers the company's events after `after` up to the position, then settles `done`. */
    subscribeToAll(options, handler) {
      let closed = false;
      const run = (async () => {
        let after = options.after;
        for (;;) {
          if (closed) return;
          const batch = await log.readAll({ after, maxCount: options.batchSize ?? 2000 });
          if (batch.length === 0) return;
          await handler(batch);
          after = batch[batch.length - 1]!.position;
        }
      })();
      run.then(finish, (error: unknown) => {
        options.onError?.(error);
        fail(error);
      });
      return {
        close: async () => {
          closed = true;
          await run.catch(() => undefined);
        },
      };
    },
  };
  return { log, done };
}

export interface AsOfSnapshot {
  companyId: string;
  /** The moment asked for, and the global position it stands at. */
  asOf: string;
  position: number;
  store: ReadStore;
  /** Events read from the log and applied, and how long the replay took. */
  eventsRead: number;
  eventsApplied: number;
  ms: number;
  /** The position the replay started from: 0, or a kept earlier state it rolled forward. */
  from: number;
}

interface CacheEntry {
  snapshot: Promise<AsOfSnapshot>;
  expires: number;
}

/** A company's replayed state at a position, kept to roll later moments forward from. */
interface Checkpoint {
  companyId: string;
  position: number;
  store: ReadStore;
  expires: number;
}

export interface AsOfOptions {
  /** A fresh in-memory read store (infra: the embedded store without a snapshot file). */
  newStore: () => ReadStore;
  /**
   * An independent copy of a replayed store, for rolling a kept earlier state forward instead
   * of replaying from position zero. Default: the store's own `fork()` when it has one (infra:
   * EmbeddedReadStore.fork, documents shared); `null`, or a store without one: every replay
   * starts from zero.
   */
  fork?: ((store: ReadStore) => ReadStore) | null;
  /** How long a replayed state is kept (default 2 minutes) and how many at most (default 3: each holds a company's records). */
  ttlMs?: number;
  maxSnapshots?: number;
  /**
   * Checkpoints: a replay keeps a copy of its state every `checkpointMs` of replay work
   * (default 1 s; a copy of 100,000 documents costs ~100 ms) and at its end, for `checkpointTtlMs` (default 10 minutes), at most
   * `maxCheckpoints` (default 12); a later moment of the company rolls forward from the newest
   * one at or before it, so it replays only the events in between.
   */
  checkpointMs?: number;
  checkpointTtlMs?: number;
  maxCheckpoints?: number;
  now?: () => number;
}

/** A store's own copy, when it can make one (EmbeddedReadStore.fork). */
function forkOf(store: ReadStore): ReadStore | undefined {
  const f = (store as ReadStore & { fork?: () => ReadStore }).fork;
  return typeof f === 'function' ? f.call(store) : undefined;
}

/** Replays companies' states as of moments, with a small cache and checkpoints to roll forward from. */
export class AsOfReplayer {
  private readonly cache = new Map<string, CacheEntry>();
  /** Kept states, oldest first. */
  private checkpoints: Checkpoint[] = [];
  /** Replays run one at a time: each holds a company's records in memory while it builds. */
  private running: Promise<unknown> = Promise.resolve();
  private readonly ttlMs: number;
  private readonly maxSnapshots: number;
  private readonly checkpointMs: number;
  private readonly checkpointTtlMs: number;
  private readonly maxCheckpoints: number;
  private readonly now: () => number;
  private readonly fork: ((store: ReadStore) => ReadStore | undefined) | null;
  /** Positions and times seen by earlier searches of moments (EventStoreDB; position-at.ts). */
  private readonly anchors = new TimeAnchors();

  constructor(
    private readonly events: EventStore,
    private readonly options: AsOfOptions,
  ) {
    this.ttlMs = options.ttlMs ?? 120_000;
    this.maxSnapshots = options.maxSnapshots ?? 3;
    this.checkpointMs = options.checkpointMs ?? 1000;
    this.checkpointTtlMs = options.checkpointTtlMs ?? 600_000;
    this.maxCheckpoints = options.maxCheckpoints ?? 12;
    this.fork = options.fork === undefined ? forkOf : options.fork;
    this.now = options.now ?? Date.now;
  }

  /** The company's read models as they stood at `asOf` (replayed, or from the cache). */
  async snapshot(companyId: string, asOf: Date): Promise<AsOfSnapshot> {
    const position = await positionAt(this.events, asOf, this.anchors);
    const key = `${companyId}@${position}`;
    const now = this.now();
    for (const [k, entry] of this.cache) if (entry.expires <= now) this.cache.delete(k);
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key); // most recently used goes last
      this.cache.set(key, hit);
      return { ...(await hit.snapshot), asOf: asOf.toISOString() };
    }
    const snapshot = this.running.then(() => this.replay(companyId, position, asOf));
    this.running = snapshot.catch(() => undefined);
    this.cache.set(key, { snapshot, expires: now + this.ttlMs });
    snapshot.catch(() => this.cache.delete(key));
    while (this.cache.size > this.maxSnapshots) this.cache.delete(this.cache.keys().next().value!);
    return snapshot;
  }

  /** The newest kept state of the company at or before the position. */
  private nearest(companyId: string, position: number): Checkpoint | undefined {
    const now = this.now();
    this.checkpoints = this.checkpoints.filter((c) => c.expires > now);
    let best: Checkpoint | undefined;
    for (const c of this.checkpoints) if (c.companyId === companyId && c.position <= position && (!best || c.position > best.position)) best = c;
    return best;
  }

  /**
   * Keeps a replay's state at a position: a copy while the replay goes on writing to its own,
   * the store itself at its end (a finished replay's store is only read from then on, and a
   * roll forward writes to a copy of it).
   */
  private keep(companyId: string, position: number, store: ReadStore, finished: boolean): void {
    const fork = this.fork;
    if (!fork || this.checkpoints.some((c) => c.companyId === companyId && c.position === position)) return;
    const kept = finished ? store : fork(store);
    if (!kept) return;
    this.checkpoints.push({ companyId, position, store: kept, expires: this.now() + this.checkpointTtlMs });
    while (this.checkpoints.length > this.maxCheckpoints) this.checkpoints.shift();
  }

  private async replay(companyId: string, position: number, asOf: Date): Promise<AsOfSnapshot> {
    const started = performance.now();
    const kept = this.fork ? this.nearest(companyId, position) : undefined;
    const copy = kept ? this.fork!(kept.store) : undefined;
    const base = copy ? kept : undefined;
    const store = copy ?? this.options.newStore();
    const counter = { read: 0, applied: 0 };
    let lastKept = performance.now();
    const { log, done } = companyLog(this.events, companyId, position, counter, (at) => {
      if (performance.now() - lastKept < this.checkpointMs) return;
      this.keep(companyId, at, store, false);
      lastKept = performance.now();
    });
    const runner = new ProjectionRunner(log, withoutUnread(store), AS_OF_PROJECTIONS);
    if (base) {
      // Roll the kept state forward: the runner resumes from the checkpoints the copy holds.
      await runner.start();
      try {
        await done;
      } finally {
        await runner.stop();
      }
    } else {
      await runner.rebuild(undefined, 5000);
    }
    this.keep(companyId, position, store, true);
    return { companyId, asOf: asOf.toISOString(), position, store, eventsRead: counter.read, eventsApplied: counter.applied, ms: performance.now() - started, from: base?.position ?? 0 };
  }
}

/**
 * The read store a list or record read answers from: the state as of the request's `asOf` when
 * the as-of middleware (./routes.ts) put one on the response, else the live one.
 */
export function readStoreOf(res: { locals: Record<string, unknown> }, live: ReadStore): ReadStore {
  return (res.locals.asOfStore as ReadStore | undefined) ?? live;
}
