import type { Doc, ReadStore, RecordedEvent, UserEvent } from '@paperlink/domain';
import type { Projection } from '../core/projection';

export const USERS = 'users';

export interface UserDoc extends Doc {
  email: string;
  firstName: string;
  lastName: string;
  emailVerified: boolean;
  memberSince: string;
  lastLogin: string | null;
  sessionsRevokedAt: string | null;
}

/** Pure: the user document after an event. */
export function evolveUser(doc: UserDoc | null, event: UserEvent): UserDoc | null {
  switch (event.type) {
    case 'UserRegistered':
      return {
        _id: event.data.userId,
        email: event.data.email,
        firstName: event.data.firstName,
        lastName: event.data.lastName,
        emailVerified: false,
        memberSince: event.data.registeredAt,
        lastLogin: event.data.registeredAt,
        sessionsRevokedAt: null,
      };
    case 'UserProfileUpdated':
      return doc && { ...doc, firstName: event.data.firstName, lastName: event.data.lastName };
    case 'UserLoggedIn':
      return doc && { ...doc, lastLogin: event.data.at };
    case 'UserSessionsRevoked':
      return doc && { ...doc, sessionsRevokedAt: event.data.at };
    case 'UserPasswordChanged':
    case 'UserLoginFailed':
    case 'UserPasswordChangeFailed':
    case 'UserLoginFailuresCleared':
    case 'UserSignInSourceRecorded':
      return doc;
  }
}

export const usersProjection: Projection = {
  name: 'users',
  version: 1,
  collections: { [USERS]: [['email']] },
  handles: new Set(['UserRegistered', 'UserProfileUpdated', 'UserLoggedIn', 'UserSessionsRevoked']),
  async apply(event: RecordedEvent, view) {
    const e = event as unknown as UserEvent;
    await view.update<UserDoc>(USERS, e.data.userId, (doc) => evolveUser(doc, e));
  },
};

export async function getUser(store: ReadStore, id: string): Promise<UserDoc | null> {
  return store.collection<UserDoc>(USERS).findOne({ _id: id });
}

export async function getUsers(store: ReadStore, ids: string[]): Promise<Map<string, UserDoc>> {
  const docs = await store.collection<UserDoc>(USERS).find({ _id: { $in: ids } });
  return new Map(docs.map((d) => [d._id, d]));
}
