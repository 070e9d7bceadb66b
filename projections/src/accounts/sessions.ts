import type { Doc, ReadStore, RecordedEvent, SessionEvent } from '@paperlink/domain';
import type { Projection } from '../core/projection';

export const SESSIONS = 'sessions';

export interface SessionDoc extends Doc {
  userId: string;
  startedAt: string;
  expiresAt: string;
  revoked: boolean;
}

export function evolveSession(doc: SessionDoc | null, event: SessionEvent): SessionDoc | null {
  switch (event.type) {
    case 'SessionStarted':
      return { _id: event.data.sessionId, userId: event.data.userId, startedAt: event.data.startedAt, expiresAt: event.data.expiresAt, revoked: false };
    case 'SessionRefreshed':
      return doc && { ...doc, expiresAt: event.data.expiresAt };
    case 'SessionRevoked':
      return doc && { ...doc, revoked: true };
  }
}

export const sessionsProjection: Projection = {
  name: 'sessions',
  version: 1,
  collections: { [SESSIONS]: [['userId']] },
  handles: new Set(['SessionStarted', 'SessionRefreshed', 'SessionRevoked']),
  async apply(event: RecordedEvent, view) {
    const e = event as unknown as SessionEvent;
    await view.update<SessionDoc>(SESSIONS, e.data.sessionId, (doc) => evolveSession(doc, e));
  },
};

export async function getSession(store: ReadStore, id: string): Promise<SessionDoc | null> {
  return store.collection<SessionDoc>(SESSIONS).findOne({ _id: id });
}

/** The user's sessions that are neither revoked nor expired at `now` (an ISO time). */
export async function activeSessionsOfUser(store: ReadStore, userId: string, now: string): Promise<SessionDoc[]> {
  const docs = await store.collection<SessionDoc>(SESSIONS).find({ userId });
  return docs.filter((d) => !d.revoked && d.expiresAt > now);
}
