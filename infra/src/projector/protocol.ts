/** Messages between the request thread and the projector thread (ADR 0008, PROJECTOR=thread). */
import type { Job } from '@paperlink/domain';
import type { BlueGreenStatus } from '@paperlink/projections';
import type { CommitNotice } from '../readstore/sqlite-notices';

export interface ProjectorData {
  eventsFile: string;
  readModelsFile: string;
}

export type ToProjector =
  /** The request thread appended: read the log now (and commit once caught up with its head). */
  | { kind: 'appended' }
  /** Start the reactors (the request thread's job queue has its handlers now). */
  | { kind: 'reactors' }
  /** A job a reactor submitted has settled on the request thread. */
  | { kind: 'settled'; id: number; result: 'done' | 'failed' }
  /** Stop the reactors (before the request thread closes its job queue). */
  | { kind: 'stopReactors' }
  /** Stop: finish the batch under way, commit, close. */
  | { kind: 'stop' };

export type FromProjector =
  | { kind: 'ready'; rebuilds: BlueGreenStatus[] }
  /**
   * A transaction of the read models committed: other connections see it from now. `notice`:
   * what it changed (ADR 0029); absent when not known (the request thread drops what it keeps).
   */
  | { kind: 'committed'; rebuilds: BlueGreenStatus[]; notice?: CommitNotice }
  | { kind: 'failed'; error: string }
  /** A reactor's job, for the request thread's job queue (answered with `settled`). */
  | { kind: 'job'; id: number; job: Job }
  | { kind: 'reactorsStopped' }
  | { kind: 'stopped' };
