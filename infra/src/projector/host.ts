/**
 * The request thread's side of the projector thread (PROJECTOR=thread, ADR 0008). With the
 * SQLite read store in role `all`, the projections run in a worker thread with their own SQLite
 * connections; this thread's runner only follows what that thread commits
 * (ProjectionRunner.follow), so `waitFor`, `position`, `projectionStates` and health work as
 * before. The thread is told of every append at once, and tells this thread of every commit
 * at once (no polling delay in a read-your-writes wait). The reactors run in that thread too
 * (they read every event); the jobs they submit run in this thread's job queue.
 */
import { Worker } from 'node:worker_threads';
import type { EventStore, JobQueue, ReadStore } from '@paperlink/domain';
import type { ProjectionRunner } from '@paperlink/projections';
import { SqliteEventStore } from '../eventstore/sqlite';
import { SqliteReadStore } from '../readstore/sqlite';
import type { FromProjector, ProjectorData, ToProjector } from './protocol';
import { submitUntilTaken } from '../jobs/resubmit';

const ENTRY = new URL('./entry.mjs', import.meta.url);
/** The follower also reads the checkpoints this often, in case of a commit it was not told of. */
const FOLLOW_MS = 1000;

export type ProjectorMode = 'thread' | 'inline';

export class ProjectorThread {
  private stopped?: Promise<void>;
  private refreshing = false;
  private reactorsStopped = false;
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
    // Caches of this connection (kinds, indexes) are read again after the thread's commits; kept
    // counts, page anchors and cursors are brought through them by the commit notices (ADR 0029).
    readStore.followOtherWriters();
    readStore.followCommitNotices();
    const ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: FromProjector) => {
        if (message.kind === 'ready') {
          resolve();
          thread.committed(message.rebuilds);
        } else if (message.kind === 'committed') {
          // Before the checkpoints are read: a request waiting for this commit reads with its notice.
          readStore.receiveNotice(message.notice);
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

  /**
   * Starts the reactors in the projector thread (once `jobs` has its handlers): the jobs they
   * submit run in `jobs`, here, and each one's end is sent back (it moves the reactor's checkpoint).
   */
  startReactors(jobs: JobQueue): void {
    this.worker.on('message', (message: FromProjector) => {
      if (message.kind !== 'job') return;
      // A job that was not taken (a produce that failed) is submitted again; one that did not
      // settle (the queue closing) is not reported: the reactor's checkpoint stays before it and
      // a restart submits it again (jobs are idempotent by id).
      void submitUntilTaken(jobs, message.job, { stopped: () => this.reactorsStopped, log: (m) => console.warn(m) }).then((result) => {
        if (result && !this.reactorsStopped) this.send({ kind: 'settled', id: message.id, result });
      });
    });
    this.send({ kind: 'reactors' });
  }

  /** Stops the reactors (before the job queue closes); later job ends are not reported. */
  async stopReactors(): Promise<void> {
    if (this.stopped || this.reactorsStopped) return;
    this.reactorsStopped = true;
    await new Promise<void>((resolve) => {
      const done = (message: FromProjector) => {
        if (message.kind !== 'reactorsStopped') return;
        this.worker.off('message', done);
        resolve();
      };
      this.worker.on('message', done);
      this.worker.once('exit', () => resolve());
      this.worker.postMessage({ kind: 'stopReactors' } satisfies ToProjector);
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
