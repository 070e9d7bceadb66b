import type { Checkpoint, EventStore, ReadStore, RecordedEvent, Subscription } from '@paperlink/domain';
import type { Projection } from './projection';
import { UnitOfWork } from './unit-of-work';
import { buildCheckpointName, GenerationalReadStore, physicalName } from './generations';

export { GenerationalReadStore, GENERATIONS, physicalName } from './generations';

/** Projection work runs at most this long before the event loop gets a turn. */
const SLICE_MS = 20;
/** Documents written before a commit (at the end of an event): one import event is about 2,000. */
const COMMIT_DOCS = 2000;

/**
 * How many documents a commit may hold. A store whose commit does not run on the request thread may
 * take a whole batch at once (`commitDocs`: MongoDB, one bulk write per collection per batch, each
 * document once however often the batch changed it); the embedded stores commit on the thread that
 * answers requests, COMMIT_DOCS at a time.
 */
export const commitDocsOf = (store: ReadStore): number => (store as { commitDocs?: number }).commitDocs ?? COMMIT_DOCS;

/** Events a live subscription reads at once; a store may ask for more (`batchEvents`: fewer commits of a catch-up, each a hot document written once). */
const batchEventsOf = (store: ReadStore): number => (store as { batchEvents?: number }).batchEvents ?? 2000;

export interface RebuildProgress {
  processed: number;
  total: number;
  position: number;
}

/** A blue-green rebuild of one projection, as the System page and `make rebuild` show it. */
export interface BlueGreenStatus {
  projection: string;
  version: number;
  generation: number;
  state: 'building' | 'switched' | 'failed';
  /** Events of the log read so far (every type; the projection applies the ones it handles). */
  processed: number;
  position: number;
  /** Head of the log when last measured. */
  head: number;
  eventsPerSecond: number;
  /** Seconds until it catches up at the current rate (null before a rate is known). */
  secondsLeft: number | null;
  startedAt: string;
  finishedAt: string | null;
  error?: string;
}

/** How long start() waits for blue-green rebuilds to switch over before it lets requests in. */
const START_WAIT_MS = 1000;
/** Events read per batch by a background rebuild. */
const BUILD_BATCH = 2000;

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
  /** Serialises live batches with a rebuild's switch-over. */
  private exclusive: Promise<unknown> = Promise.resolve();
  private readonly builds = new Map<string, BlueGreenStatus>();
  private readonly building = new Set<Promise<void>>();
  private stopped = false;
  /** Set while following another process's projections (see follow). */
  private followTimer?: NodeJS.Timeout;
  /** While following: the rebuilds the runner that writes the read models reports (see reportFromElsewhere). */
  private reported?: BlueGreenStatus[];

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
    const blueGreen: Projection[] = [];
    for (const p of this.projections) {
      const cp = stored.get(p.name);
      if (cp && cp.version === p.version) {
        this.checkpoints.set(p.name, cp);
      } else if (cp && this.store instanceof GenerationalReadStore) {
        // A new version: the live generation keeps answering (and following the log) while
        // the next one is built beside it; see docs/decisions/0015-blue-green-rebuilds.md.
        this.checkpoints.set(p.name, cp);
        blueGreen.push(p);
      } else {
        await this.store.drop(Object.keys(p.collections), [p.name]);
        this.checkpoints.set(p.name, { name: p.name, version: p.version, position: 0 });
      }
    }
    if (this.store instanceof GenerationalReadStore) await this.dropLeftovers(this.store, stored, blueGreen);
    this.position = this.minPosition();
    this.subscription = this.events.subscribeToAll(
      {
        after: this.position,
        batchSize: batchEventsOf(this.store),
        onError: (error) => {
          this.failure = error;
          console.error('projection runner stopped:', error);
          this.releaseWaiters();
        },
      },
      (batch) => this.applyBatch(batch),
    );
    for (const p of blueGreen) this.rebuildBesideLive(p.name);
    if (blueGreen.length > 0) {
      // A small store switches before the first request (so it never answers from the old
      // version); a large one keeps answering from the live generation while it builds.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.rebuildsSettled(), new Promise<void>((resolve) => (timer = setTimeout(resolve, START_WAIT_MS)))]);
      clearTimeout(timer);
    }
  }

  /**
   * What a stop at the wrong moment left behind: a build's checkpoint still there after its
   * switch means the old generation was not dropped; one for the next generation with no build
   * starting now means a build that never finished.
   */
  private async dropLeftovers(store: GenerationalReadStore, stored: Map<string, Checkpoint>, starting: Projection[]): Promise<void> {
    for (const p of this.projections) {
      const g = store.generationOf(p.name);
      const names = Object.keys(p.collections);
      if (g > 0 && stored.has(buildCheckpointName(p.name, g))) await store.inner.drop(names.map((c) => physicalName(c, g - 1)), [buildCheckpointName(p.name, g)]);
      if (!starting.includes(p) && stored.has(buildCheckpointName(p.name, g + 1))) await store.inner.drop(names.map((c) => physicalName(c, g + 1)), [buildCheckpointName(p.name, g + 1)]);
    }
  }

  /** Runs `work` when no live batch is being applied (and holds live batches back meanwhile). */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.exclusive.then(work, work);
    this.exclusive = run.catch(() => undefined);
    return run;
  }

  /** Rebuilds and switch-overs under way or done since start, newest first. */
  rebuilds(): BlueGreenStatus[] {
    if (this.reported) return this.reported.map((s) => ({ ...s }));
    return [...this.builds.values()].reverse().map((s) => ({ ...s }));
  }

  /** Each projection's version, live generation and checkpoint position. */
  projectionStates(): Array<{ name: string; version: number; generation: number; position: number }> {
    const store = this.store;
    return this.projections.map((p) => ({
      name: p.name,
      version: p.version,
      generation: store instanceof GenerationalReadStore ? store.generationOf(p.name) : 0,
      position: this.checkpoints.get(p.name)?.position ?? 0,
    }));
  }

  /** Resolves when every rebuild started so far has switched over or failed. */
  async rebuildsSettled(): Promise<void> {
    while (this.building.size > 0) await Promise.all([...this.building]);
  }

  /**
   * Blue-green rebuild of one projection: builds the next generation of its collections from
   * position zero in the background (slices of work with the event loop free between them),
   * follows the log until it has caught up with the live generation, then switches the alias
   * over and drops the old generation. Queries answer from the live generation throughout.
   * Needs a GenerationalReadStore. Returns the status object it keeps up to date.
   */
  rebuildBesideLive(name: string): BlueGreenStatus {
    const store = this.store;
    if (!(store instanceof GenerationalReadStore)) throw new Error('blue-green rebuilds need a GenerationalReadStore');
    const p = this.projections.find((x) => x.name === name);
    if (!p) throw new Error(`no projection named ${name}`);
    const running = this.builds.get(name);
    if (running?.state === 'building') return running;
    const generation = store.generationOf(name) + 1;
    const status: BlueGreenStatus = { projection: name, version: p.version, generation, state: 'building', processed: 0, position: 0, head: 0, eventsPerSecond: 0, secondsLeft: null, startedAt: new Date().toISOString(), finishedAt: null };
    this.builds.delete(name);
    this.builds.set(name, status);
    const job = this.buildGeneration(store, p, status).catch((error: unknown) => {
      status.state = 'failed';
      status.error = error instanceof Error ? error.message : String(error);
      status.finishedAt = new Date().toISOString();
      console.error(`rebuild of ${name} failed; the live generation stays:`, error);
    });
    this.building.add(job);
    void job.finally(() => this.building.delete(job));
    return status;
  }

  private async buildGeneration(store: GenerationalReadStore, p: Projection, status: BlueGreenStatus): Promise<void> {
    const target = store.target(p, status.generation);
    const cpName = buildCheckpointName(p.name, status.generation);
    await target.drop(Object.keys(p.collections), [cpName]);
    for (const [collection, indexes] of Object.entries(p.collections)) await target.ensureIndexes(collection, indexes);
    const started = performance.now();
    let after = 0;
    let slice = performance.now();
    for (;;) {
      if (this.stopped) throw new Error('stopped before it caught up');
      const batch = await this.events.readAll({ after, maxCount: BUILD_BATCH });
      if (batch.length > 0) {
        let uow = new UnitOfWork(target);
        for (const [i, event] of batch.entries()) {
          if (p.handles.has(event.type)) await p.apply(event, uow.viewFor(event));
          if (i === batch.length - 1 || uow.size >= commitDocsOf(this.store)) {
            await target.commit(uow.writes, [{ name: cpName, version: p.version, position: event.position }]);
            uow = new UnitOfWork(target);
          }
          if (performance.now() - slice > SLICE_MS) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            slice = performance.now();
          }
        }
        after = batch[batch.length - 1]!.position;
        status.processed += batch.length;
        status.position = after;
        status.head = Math.max(after, await this.events.headPosition());
        const seconds = (performance.now() - started) / 1000;
        status.eventsPerSecond = Math.round(status.processed / Math.max(seconds, 0.001));
        status.secondsLeft = status.eventsPerSecond > 0 ? Math.max(0, status.head - after) / status.eventsPerSecond : null;
      }
      // Caught up with the live generation? Then switch while no live batch is in flight.
      const switched = await this.serially(async () => {
        if (after < this.checkpoints.get(p.name)!.position) return false;
        const cp: Checkpoint = { name: p.name, version: p.version, position: after };
        await store.switchTo(p, status.generation, cp);
        this.checkpoints.set(p.name, cp);
        return true;
      });
      if (switched) break;
      if (batch.length === 0) await new Promise<void>((resolve) => setTimeout(resolve, 20));
    }
    status.state = 'switched';
    status.secondsLeft = 0;
    status.finishedAt = new Date().toISOString();
    this.position = this.minPosition();
    this.releaseWaiters();
    await store.flush();
  }

  private minPosition(): number {
    let min = Infinity;
    for (const cp of this.checkpoints.values()) min = Math.min(min, cp.position);
    return min === Infinity ? 0 : min;
  }

  /** Applies a batch to every projection behind it and commits writes with checkpoints. */
  applyBatch(batch: RecordedEvent[]): Promise<void> {
    return this.serially(() => this.applyLive(batch));
  }

  private async applyLive(batch: RecordedEvent[]): Promise<void> {
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
      if (i === batch.length - 1 || uow.size >= commitDocsOf(this.store)) {
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

  /**
   * For a process that serves requests from read models another process's runner keeps
   * (PAPERLINK_ROLE command or query, ADR 0025): no projection runs here. Every `pollMs` the
   * stored checkpoints (and the generations of a blue-green store) are read, so `position`,
   * `waitFor` and `projectionStates` tell what the projector process has committed.
   */
  async follow(pollMs = 50): Promise<void> {
    await this.readCommitted();
    const tick = () => {
      this.followTimer = setTimeout(() => {
        if (this.stopped) return;
        this.readCommitted().then(tick, (error: unknown) => {
          // A read that fails (the store restarting) is tried again at the next tick.
          console.error('following the read models failed:', error);
          tick();
        });
      }, pollMs);
    };
    tick();
  }

  /**
   * While following: reads the committed checkpoints now, for a writer that says it has just
   * committed (the projector thread, ADR 0008), so a read-your-writes wait ends at once.
   */
  refresh(): Promise<void> {
    return this.readCommitted();
  }

  /**
   * While following a runner in another thread: its rebuilds (what `rebuilds()` shows) and,
   * once it has stopped on an error, the error (waiters are released; health says degraded).
   */
  reportFromElsewhere(report: { rebuilds?: BlueGreenStatus[]; failure?: unknown }): void {
    if (report.rebuilds) this.reported = report.rebuilds;
    if (report.failure !== undefined && this.failure === undefined) {
      this.failure = report.failure;
      this.releaseWaiters();
    }
  }

  private async readCommitted(): Promise<void> {
    if (this.store instanceof GenerationalReadStore) await this.store.reloadGenerations();
    const stored = new Map((await this.store.getCheckpoints()).map((c) => [c.name, c]));
    for (const p of this.projections) this.checkpoints.set(p.name, stored.get(p.name) ?? { name: p.name, version: p.version, position: 0 });
    this.position = this.minPosition();
    this.releaseWaiters();
  }

  get failed(): unknown {
    return this.failure;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.followTimer);
    await Promise.all([...this.building]);
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
