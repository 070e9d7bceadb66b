import {
  homeOf,
  signInAttemptsStream,
  signInHour,
  signInSourceStream,
  userDecider,
  userSnapshotStream,
  userStream,
  USER_SNAPSHOT_VERSION,
  type EventStore,
  type ExpectedRevision,
  type RecordedEvent,
  type UserEvent,
  type UserSnapshotTaken,
  type UserState,
} from '@paperlink/domain';
import type { Plan } from '../core/bus';

/**
 * The streams of a user, read the way ADR 0022 sizes them (docs/decisions/0022-session-streams.md):
 * `user-<id>` from its latest checkpoint, and, for a sign-in decision, the attempts of this hour
 * and the last, and the mark of the caller's address. None of them grows with past sign-ins.
 */

type Append = Plan['appends'][number];

/** A user stream's tail longer than this (only streams written before ADR 0022 get there) is checkpointed. */
export const USER_CHECKPOINT_AFTER = 50;

export interface LoadedUser {
  state: UserState;
  /** Revision to expect when appending to `user-<id>`. */
  expected: ExpectedRevision;
  /** A checkpoint to append with the plan when the tail read was long (else undefined). */
  checkpoint?: Append;
}

const revisionOf = (recorded: RecordedEvent[]): ExpectedRevision => (recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1]!.revision);

/** The user's state: its latest checkpoint, then the events after it. */
export async function loadUser(events: EventStore, userId: string): Promise<LoadedUser> {
  const checkpoints = await events.readStream(userSnapshotStream(userId));
  const latest = [...checkpoints].reverse().map((e) => e as unknown as UserSnapshotTaken).find((e) => e.data.version === USER_SNAPSHOT_VERSION);
  const from = latest ? latest.data.revision + 1 : 0;
  const tail = await events.readStream(userStream(userId), { fromRevision: from });
  let state = latest ? latest.data.state : userDecider.initialState();
  for (const e of tail) state = userDecider.evolve(state, e as unknown as UserEvent);
  const expected: ExpectedRevision = tail.length > 0 ? tail[tail.length - 1]!.revision : latest ? latest.data.revision : 'no_stream';
  if (tail.length <= USER_CHECKPOINT_AFTER || typeof expected !== 'number') return { state, expected };
  const snapshot: UserSnapshotTaken = { type: 'UserSnapshotTaken', data: { userId, revision: expected, version: USER_SNAPSHOT_VERSION, state } };
  return { state, expected, checkpoint: { streamId: userSnapshotStream(userId), expectedRevision: revisionOf(checkpoints), events: [snapshot] } };
}

export interface LoadedSignIn {
  user: LoadedUser;
  /** The user's state with the throttle's failures of the last hour and the caller's address mark folded in. */
  state: UserState;
  /** This hour's attempts stream and the revision to expect there. */
  attempts: { streamId: string; expected: ExpectedRevision };
}

/** What a throttle decision at `now` about the address tagged `source` reads. */
export async function loadSignIn(events: EventStore, userId: string, now: string, source?: string): Promise<LoadedSignIn> {
  const hour = signInHour(now);
  const [user, previous, current, mark] = await Promise.all([
    loadUser(events, userId),
    events.readStream(signInAttemptsStream(userId, hour - 1)),
    events.readStream(signInAttemptsStream(userId, hour)),
    source === undefined ? Promise.resolve([]) : events.readStream(signInSourceStream(userId, source), { maxCount: 1 }),
  ]);
  let state = user.state;
  for (const e of [...previous, ...current, ...mark]) state = userDecider.evolve(state, e as unknown as UserEvent);
  return { user, state, attempts: { streamId: signInAttemptsStream(userId, hour), expected: revisionOf(current) } };
}

/**
 * The appends that record a user's decided events, each in its stream: account events in
 * `user-<id>` (at the revision read), attempts in this hour's stream (at the revision read), a
 * sign-in in the new session's stream (after its SessionStarted), an address mark in its own.
 */
export function userAppends(loaded: LoadedSignIn | LoadedUser, decided: UserEvent[], session?: Append): Append[] {
  const user = 'user' in loaded ? loaded.user : loaded;
  const by = (home: ReturnType<typeof homeOf>) => decided.filter((e) => homeOf(e) === home);
  const out: Append[] = [];
  const attempts = by('attempts');
  if (attempts.length > 0) {
    if (!('attempts' in loaded)) throw new Error('attempts decided without reading their stream');
    out.push({ streamId: loaded.attempts.streamId, expectedRevision: loaded.attempts.expected, events: attempts });
  }
  for (const e of by('source')) {
    const data = (e as Extract<UserEvent, { type: 'UserSignInSourceRecorded' }>).data;
    out.push({ streamId: signInSourceStream(data.userId, data.source), expectedRevision: 'no_stream', events: [e] });
  }
  const signIns = by('session');
  if (signIns.length > 0) {
    if (!session) throw new Error('a sign-in decided without its session');
    out.push({ ...session, events: [...session.events, ...signIns] });
  } else if (session) out.push(session);
  const own = by('user');
  if (own.length > 0) out.push({ streamId: userStream(userIdOf(decided)), expectedRevision: user.expected, events: own });
  if (user.checkpoint) out.push(user.checkpoint);
  return out;
}

const userIdOf = (decided: UserEvent[]): string => (decided[0]!.data as { userId: string }).userId;
