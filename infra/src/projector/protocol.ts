/** Messages between the request thread and the projector thread (ADR 0008, PROJECTOR=thread). */
import type { Checkpoint } from '@paperlink/domain';
import type { BlueGreenStatus } from '@paperlink/projections';

export interface ProjectorData {
  eventsFile: string;
  readModelsFile: string;
}

export type ToProjector =
  /** The request thread appended: read the log now (and commit once caught up with its head). */
  | { kind: 'appended' }
  /** Checkpoints of the request thread's reactors, written by the only writer of the read models. */
  | { kind: 'checkpoints'; checkpoints: Checkpoint[] }
  /** Stop: finish the batch under way, commit, close. */
  | { kind: 'stop' };

export type FromProjector =
  | { kind: 'ready'; rebuilds: BlueGreenStatus[] }
  /** A transaction of the read models committed: other connections see it from now. */
  | { kind: 'committed'; rebuilds: BlueGreenStatus[] }
  | { kind: 'failed'; error: string }
  | { kind: 'stopped' };
