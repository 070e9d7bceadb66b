import { fold, sessionDecider, sessionStream, type EventStore, type ExpectedRevision, type RecordedEvent, type SessionEvent, type SessionState } from '@paperlink/domain';

/**
 * A session's state for a refresh that presents a token of `generation` (ADR 0022), without
 * reading every rotation of a long-lived session: its first two events (`SessionStarted`, and the
 * `UserLoggedIn` recorded with it), then its stream from the rotation that made `generation` on.
 * The rotations skipped only set generations that a later one overwrites, and nothing follows a
 * revocation, so the state is the one a full fold gives. When the stream is not laid out that way
 * (the generation's rotation is not where expected), the whole stream is folded.
 */
export async function loadSessionForRefresh(events: EventStore, sessionId: string, generation: number): Promise<{ state: SessionState; expected: ExpectedRevision }> {
  const stream = sessionStream(sessionId);
  const head = await events.readStream(stream, { maxCount: 2 });
  if (head.length === 0) return { state: sessionDecider.initialState(), expected: 'no_stream' };
  const offset = head[1]?.type === 'UserLoggedIn' ? 1 : 0;
  const from = Math.max(head.length, offset + Math.max(generation, 1));
  const tail = await events.readStream(stream, { fromRevision: from });
  const laidOut = generation === 0 || from > offset + generation || isRotation(tail[0], generation);
  const recorded = laidOut ? [...head, ...tail] : await events.readStream(stream);
  return { state: fold(sessionDecider, recorded as unknown as SessionEvent[]), expected: recorded[recorded.length - 1]!.revision };
}

function isRotation(e: RecordedEvent | undefined, generation: number): boolean {
  return e?.type === 'SessionRefreshed' && (e.data as { generation?: unknown }).generation === generation;
}
