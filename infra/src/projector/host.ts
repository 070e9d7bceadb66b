/**
 * The request thread's side of the projector thread (PROJECTOR=thread, ADR 0008). With the
 * SQLite read store in role `all`, the projections run in a worker thread with their own SQLite
 * connections; this thread's runner only follows what that thread commits
 * (ProjectionRunner.follow), so `waitFor`, `position`, `projectionStates` and health work as
 * before. The thread is told of every append at once, and tells this thread of every commit
 * at once (no polling delay in a read-your-writes wait).
 */
import { Worker } from 'node:worker_threads';
import type { Checkpoint, EventStore, ReadStore } from '@paperlink/domain';
import type { ProjectionRunner } from '@paperlink/projections';
import { SqliteEventStore } from '../eventstore/sqlite';
import { SqliteReadStore } from '../readstore/sqlite';
import type { FromProjector, ProjectorData, ToProjector } from './protocol';

const ENTRY = new URL('./entry.mjs', import.meta.url);
/** The follower also reads the checkpoints this often, in case of a commit it was not told of. */
const FOLLOW_MS = 1000;

export type ProjectorMode = 'thread' | 'inline';

export class ProjectorThread {
  private stopped?: Promise<void>;
  private refreshing = false;
  private again = false;

  private constructor(private readonly worker: Worker, private readonly runner: ProjectionRunner) {}

  /**
   * Starts the projector thread when it applies: PROJECTOR=thread with the embedded SQLite event
   * and read stores (the in-memory read store and MongoDB keep their projectors inline). Resolves
   * once the thread's runner has started (indexes, checkpoints, rebuilds of changed versions).
   */
  static async startIfChosen(mode: ProjectorMode, adapters: { events: EventStore; readStore: ReadStore }, runner: ProjectionRunner): Promise<ProjectorThread | undefined> {
    const { events, readStore } = adapters;
    if (mode !== 'thread' || !(events instanceof SqliteEventStore) || !(readStore instanceof SqliteReadStore)) return undefined;
    const data: ProjectorData = { eventsFile: events.file, readModelsFile: readStore.file };
    const worker = new Worker(ENTRY, { workerData: data, execArgv: [] });
    const thread = new ProjectorThread(worker, runner);
    // Caches of this connection (kept counts, page cursors, kinds) are dropped after the thread's commits.
    readStore.followOtherWriters();
    const ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: FromProjector) => {
        if (message.kind === 'ready') {
          resolve();
          thread.committed(message.rebuilds);
        } else if (message.kind === 'committed') {
          thread.committed(message.rebuilds);
        } else if (message.kind === 'failed') {
          reject(new Error(`projector thread: ${message.error}`));
          runner.reportFromElsewhere({ failure: new Error(message.error) });
        }
      });
      const gone = (error: unknown) => {
        reject(error);
        if (!thread.stopped) runner.reportFromElsewhere({ failure: error });
      };
      worker.on('error', gone);
      worker.on('exit', (code) => gone(new Error(`the projector thread stopped (exit code ${code})`)));
    });
    events.onAppend(() => thread.send({ kind: 'appended' }));
    try {
      await ready;
    } catch (error) {
      await worker.terminate();
      throw error;
    }
    await runner.follow(FOLLOW_MS);
    return thread;
  }

  private send(message: ToProjector): void {
    if (!this.stopped) this.worker.postMessage(message);
  }

  /** The thread committed: read the checkpoints (and generations) now; one read at a time, the last commit always read. */
  private committed(rebuilds: Parameters<ProjectionRunner['reportFromElsewhere']>[0]['rebuilds']): void {
    this.runner.reportFromElsewhere({ rebuilds });
    if (this.refreshing) {
      this.again = true;
      return;
    }
    this.refreshing = true;
    void (async () => {
      do {
        this.again = false;
        await this.runner.refresh().catch((error: unknown) => console.error('reading the projector thread\'s checkpoints failed:', error));
      } while (this.again);
      this.refreshing = false;
    })();
  }

  /** The read store as this thread's reactors see it: their checkpoints are written by the projector thread (the only writer). */
  checkpointsThrough(store: ReadStore): ReadStore {
    const commit: ReadStore['commit'] = async (writes, checkpoints: Checkpoint[]) => {
      if ([...writes.values()].some((docs) => docs.size > 0)) throw new Error('with PROJECTOR=thread only the projector thread writes read models');
      this.send({ kind: 'checkpoints', checkpoints });
    };
    return new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'commit') return commit;
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  /** Stops the thread after its batch under way and its last commit (which this thread has read when this resolves). */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      const done = new Promise<void>((resolve) => {
        this.worker.on('message', (message: FromProjector) => {
          if (message.kind === 'stopped') resolve();
        });
        this.worker.once('exit', () => resolve());
      });
      this.worker.postMessage({ kind: 'stop' } satisfies ToProjector);
      await done;
      await this.runner.refresh().catch(() => undefined);
      await this.worker.terminate();
    })();
    return this.stopped;
  }
}
