import type { Checkpoint, EventStore, ReadStore, RecordedEvent, Subscription } from '@paperlink/domain';
import type { Projection } from './projection';
import { UnitOfWork } from './unit-of-work';

/** Projection work runs at most this long before the event loop gets a turn. */
const SLICE_MS = 20;
/** Documents written before a commit (at the end of an event): one import event is about 2,000. */
const COMMIT_DOCS = 2000;

export interface RebuildProgress {
  processed: number;
  total: number;
  position: number;
}

interface Waiter {
  position: number;
  resolve: (reached: boolean) => void;
  timer: NodeJS.Timeout;
}

/**
 * Runs every projection from one subscription. Each projection keeps its own checkpoint,
 * stored in the same commit as its writes; a batch is applied to all projections whose
 * checkpoint is behind it, then committed at once.
 */
export class ProjectionRunner {
  private readonly checkpoints = new Map<string, Checkpoint>();
  private subscription?: Subscription;
  private waiters: Waiter[] = [];
  private failure?: unknown;
  /** Position every projection has reached. */
  position = 0;
  private sliceStart = performance.now();

  /**
   * Lets the event loop answer requests between slices of projection work (an import's events
   * carry 1,000 rows each; 200 of them in one go held the request thread for seconds). Reads
   * see the store as of the last commit meanwhile: the batch's writes are committed at once.
   */
  private async breathe(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }

  constructor(
    private readonly events: EventStore,
    private readonly store: ReadStore,
    readonly projections: Projection[],
  ) {
    const names = new Set<string>();
    for (const p of projections) {
      if (names.has(p.name)) throw new Error(`two projections named ${p.name}`);
      names.add(p.name);
    }
  }

  /** Loads checkpoints, rebuilds projections whose version changed, and subscribes. */
  async start(): Promise<void> {
    for (const p of this.projections) {
      for (const [collection, indexes] of Object.entries(p.collections)) await this.store.ensureIndexes(collection, indexes);
    }
    const stored = new Map((await this.store.getCheckpoints()).map((c) => [c.name, c]));
    for (const p of this.projections) {
      const cp = stored.get(p.name);
      if (cp && cp.version === p.version) {
        this.checkpoints.set(p.name, cp);
      } else {
        await this.store.drop(Object.keys(p.collections), [p.name]);
        this.checkpoints.set(p.name, { name: p.name, version: p.version, position: 0 });
      }
    }
    this.position = this.minPosition();
    this.subscription = this.events.subscribeToAll(
      {
        after: this.position,
        batchSize: 2000,
        onError: (error) => {
          this.failure = error;
          console.error('projection runner stopped:', error);
          this.releaseWaiters();
        },
      },
      (batch) => this.applyBatch(batch),
    );
  }

  private minPosition(): number {
    let min = Infinity;
    for (const cp of this.checkpoints.values()) min = Math.min(min, cp.position);
    return min === Infinity ? 0 : min;
  }

  /** Applies a batch to every projection behind it and commits writes with checkpoints. */
  async applyBatch(batch: RecordedEvent[]): Promise<void> {
    if (batch.length === 0) return;
    const last = batch[batch.length - 1]!.position;
    const behind = this.projections.filter((p) => this.checkpoints.get(p.name)!.position < last);
    if (behind.length === 0) return;
    // Event by event, every projection behind it in turn, so the writes can be committed at any
    // event's end with every checkpoint at that event: a batch of five import events is 10,000
    // documents, and committing them at once held the request thread for 100-500 ms.
    let uow = new UnitOfWork(this.store);
    for (const [i, event] of batch.entries()) {
      for (const p of behind) {
        if (event.position <= this.checkpoints.get(p.name)!.position || !p.handles.has(event.type)) continue;
        await p.apply(event, uow.viewFor(event));
        if (performance.now() - this.sliceStart > SLICE_MS) await this.breathe();
      }
      if (i === batch.length - 1 || uow.size >= COMMIT_DOCS) {
        await this.commit(uow, behind, event.position);
        uow = new UnitOfWork(this.store);
        if (i < batch.length - 1 && performance.now() - this.sliceStart > SLICE_MS) await this.breathe();
      }
    }
  }

  /** Commits the writes so far with the checkpoint of every projection in `behind` at `position`. */
  private async commit(uow: UnitOfWork, behind: Projection[], position: number): Promise<void> {
    const advanced: Checkpoint[] = [];
    for (const p of behind) {
      if (this.checkpoints.get(p.name)!.position < position) advanced.push({ name: p.name, version: p.version, position });
    }
    await this.store.commit(uow.writes, advanced);
    for (const cp of advanced) this.checkpoints.set(cp.name, cp);
    this.position = this.minPosition();
    this.releaseWaiters();
  }

  private releaseWaiters(): void {
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (this.position >= w.position || this.failure) {
        clearTimeout(w.timer);
        w.resolve(this.position >= w.position);
      } else still.push(w);
    }
    this.waiters = still;
  }

  /** Resolves true once every projection has applied `position` (read-your-writes), false on time-out. */
  waitFor(position: number, timeoutMs = 5000): Promise<boolean> {
    if (this.position >= position) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        position,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  get failed(): unknown {
    return this.failure;
  }

  async stop(): Promise<void> {
    await this.subscription?.close();
    this.subscription = undefined;
  }

  /**
   * Drops every read model and replays the whole log from position zero (the subscription
   * must be stopped). Reports progress after each batch.
   */
  async rebuild(onProgress?: (p: RebuildProgress) => void, batchSize = 5000): Promise<{ events: number; ms: number }> {
    const started = performance.now();
    const collections = this.projections.flatMap((p) => Object.keys(p.collections));
    await this.store.drop(collections, this.projections.map((p) => p.name));
    for (const p of this.projections) {
      for (const [collection, indexes] of Object.entries(p.collections)) await this.store.ensureIndexes(collection, indexes);
      this.checkpoints.set(p.name, { name: p.name, version: p.version, position: 0 });
    }
    const total = await this.events.headPosition();
    let after = 0;
    let processed = 0;
    for (;;) {
      const batch = await this.events.readAll({ after, maxCount: batchSize });
      if (batch.length === 0) break;
      await this.applyBatch(batch);
      processed += batch.length;
      after = batch[batch.length - 1]!.position;
      onProgress?.({ processed, total, position: after });
    }
    await this.store.flush();
    return { events: processed, ms: performance.now() - started };
  }
}
