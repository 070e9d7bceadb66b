import { type Decider } from '../core/decider';
import { UnauthorizedError } from '../core/errors';

/** How long after a rotation the previous refresh token still answers (parallel tabs refreshing at once). */
export const REFRESH_GRACE_MS = 10_000;

export type SessionEvent =
  | { type: 'SessionStarted'; data: { sessionId: string; userId: string; startedAt: string; expiresAt: string } }
  | { type: 'SessionRefreshed'; data: { sessionId: string; generation: number; at: string; expiresAt: string } }
  | { type: 'SessionRevoked'; data: { sessionId: string; reason: 'logout' | 'reuse_detected' | 'all_devices' | 'password_changed'; at: string } };

export type SessionState =
  | { status: 'none' }
  | { status: 'active' | 'revoked'; sessionId: string; userId: string; generation: number; rotatedAt: string; expiresAt: string; startedAt: string };

export type SessionCommand =
  | { type: 'StartSession'; sessionId: string; userId: string; now: string; expiresAt: string }
  /** Present a refresh token of `generation`; on success the session moves to a new generation. */
  | { type: 'RefreshSession'; generation: number; now: string; expiresAt: string; userSessionsRevokedAt?: string }
  | { type: 'RevokeSession'; reason: 'logout' | 'all_devices' | 'password_changed'; now: string };

/** What a refresh decided, read off the events (the generation whose token to hand out). */
export function refreshOutcome(state: SessionState, events: SessionEvent[]): number | undefined {
  const refreshed = events.find((e) => e.type === 'SessionRefreshed');
  if (refreshed) return refreshed.data.generation;
  if (events.length === 0 && state.status === 'active') return state.generation;
  return undefined;
}

/**
 * When the generation a refresh hands out was issued: the rotation's time, so that a parallel
 * refresh inside the grace gets the winner's tokens byte for byte (issued again at its own time
 * they differed whenever the two fell in different seconds).
 */
export function refreshIssuedAt(state: SessionState, events: SessionEvent[]): string | undefined {
  const refreshed = events.find((e) => e.type === 'SessionRefreshed');
  if (refreshed) return refreshed.data.at;
  if (events.length === 0 && state.status === 'active') return state.rotatedAt;
  return undefined;
}

const expired = () => new UnauthorizedError('Your session has expired. Please sign in again.', 'session_expired');

export const sessionDecider: Decider<SessionState, SessionCommand, SessionEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'SessionStarted':
        return { status: 'active', ...event.data, generation: 0, rotatedAt: event.data.startedAt };
      case 'SessionRefreshed':
        return state.status === 'none' ? state : { ...state, generation: event.data.generation, rotatedAt: event.data.at, expiresAt: event.data.expiresAt };
      case 'SessionRevoked':
        return state.status === 'none' ? state : { ...state, status: 'revoked' };
      default:
        // The session's stream also records the sign-in that started it (UserLoggedIn, ADR 0022).
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'StartSession':
        return [{ type: 'SessionStarted', data: { sessionId: command.sessionId, userId: command.userId, startedAt: command.now, expiresAt: command.expiresAt } }];
      case 'RevokeSession':
        if (state.status !== 'active') return [];
        return [{ type: 'SessionRevoked', data: { sessionId: state.sessionId, reason: command.reason, at: command.now } }];
      case 'RefreshSession': {
        if (state.status !== 'active') throw expired();
        if (Date.parse(state.expiresAt) <= Date.parse(command.now)) throw expired();
        if (command.userSessionsRevokedAt && state.startedAt <= command.userSessionsRevokedAt) throw expired();
        if (command.generation === state.generation) {
          return [{ type: 'SessionRefreshed', data: { sessionId: state.sessionId, generation: state.generation + 1, at: command.now, expiresAt: command.expiresAt } }];
        }
        const withinGrace = Date.parse(command.now) - Date.parse(state.rotatedAt) <= REFRESH_GRACE_MS;
        if (command.generation === state.generation - 1 && withinGrace) return []; // a parallel refresh: same answer as the winner
        // An old token came back: someone holds a copy. Revoke the whole family.
        return [{ type: 'SessionRevoked', data: { sessionId: state.sessionId, reason: 'reuse_detected', at: command.now } }];
      }
    }
  },
};
