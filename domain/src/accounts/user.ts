import { type Decider } from '../core/decider';
import { TooManyRequestsError, UnauthorizedError, ValidationError } from '../core/errors';
import { requireName, throwIfProblems } from './validation';

export const LOGIN_FAILURE_WINDOW_MS = 60 * 60 * 1000;
export const MAX_LOGIN_FAILURES_PER_ACCOUNT = 100;

export type UserEvent =
  | { type: 'UserRegistered'; data: { userId: string; email: string; firstName: string; lastName: string; passwordHash: string; registeredAt: string } }
  | { type: 'UserProfileUpdated'; data: { userId: string; firstName: string; lastName: string } }
  | { type: 'UserPasswordChanged'; data: { userId: string; passwordHash: string; changedAt: string } }
  | { type: 'UserLoggedIn'; data: { userId: string; sessionId: string; at: string } }
  | { type: 'UserLoginFailed'; data: { userId: string; at: string } }
  | { type: 'UserSessionsRevoked'; data: { userId: string; at: string } };

export type UserState =
  | { status: 'none' }
  | {
      status: 'registered';
      userId: string;
      email: string;
      firstName: string;
      lastName: string;
      passwordHash: string;
      /** Times of failed logins in the last hour, oldest first. */
      recentFailures: string[];
      sessionsRevokedAt?: string;
    };

export type UserCommand =
  | { type: 'RegisterUser'; userId: string; email: string; firstName: string; lastName: string; passwordHash: string; now: string }
  | { type: 'UpdateProfile'; firstName: string; lastName: string }
  | { type: 'ChangePassword'; currentPasswordValid: boolean; newPasswordHash: string; now: string }
  | { type: 'RecordLogin'; passwordValid: boolean; sessionId: string; now: string }
  | { type: 'RevokeAllSessions'; now: string };

function recentFailures(state: Extract<UserState, { status: 'registered' }>, now: string): string[] {
  const since = Date.parse(now) - LOGIN_FAILURE_WINDOW_MS;
  return state.recentFailures.filter((t) => Date.parse(t) > since);
}

/** Seconds until a failed-login slot frees up, or 0 when the account may try now. */
export function loginRetryAfterSeconds(state: UserState, now: string): number {
  if (state.status !== 'registered') return 0;
  const failures = recentFailures(state, now);
  if (failures.length < MAX_LOGIN_FAILURES_PER_ACCOUNT) return 0;
  const oldest = Date.parse(failures[failures.length - MAX_LOGIN_FAILURES_PER_ACCOUNT]!);
  return Math.max(1, Math.ceil((oldest + LOGIN_FAILURE_WINDOW_MS - Date.parse(now)) / 1000));
}

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({ status: 'none' }),

  evolve(state, event) {
    switch (event.type) {
      case 'UserRegistered':
        return { status: 'registered', ...event.data, recentFailures: [] };
    }
    if (state.status !== 'registered') return state;
    switch (event.type) {
      case 'UserProfileUpdated':
        return { ...state, firstName: event.data.firstName, lastName: event.data.lastName };
      case 'UserPasswordChanged':
        return { ...state, passwordHash: event.data.passwordHash };
      case 'UserLoggedIn':
        return { ...state, recentFailures: [] };
      case 'UserLoginFailed':
        return { ...state, recentFailures: [...state.recentFailures, event.data.at].slice(-MAX_LOGIN_FAILURES_PER_ACCOUNT) };
      case 'UserSessionsRevoked':
        return { ...state, sessionsRevokedAt: event.data.at };
    }
  },

  decide(command, state) {
    if (command.type === 'RegisterUser') {
      if (state.status !== 'none') throw new ValidationError('An account with this email already exists');
      const { type: _t, now, ...data } = command;
      return [{ type: 'UserRegistered', data: { ...data, registeredAt: now } }];
    }
    if (state.status !== 'registered') throw new UnauthorizedError('Invalid email or password', 'invalid_credentials');
    const userId = state.userId;
    switch (command.type) {
      case 'UpdateProfile': {
        const firstName = command.firstName.trim();
        const lastName = command.lastName.trim();
        if (!firstName || !lastName) throw new ValidationError('First name and last name are required');
        throwIfProblems([
          ...requireName(firstName, 'firstName', 'First name is required'),
          ...requireName(lastName, 'lastName', 'Last name is required'),
        ]);
        if (firstName === state.firstName && lastName === state.lastName) return [];
        return [{ type: 'UserProfileUpdated', data: { userId, firstName, lastName } }];
      }
      case 'ChangePassword':
        if (!command.currentPasswordValid) {
          throw new ValidationError('Current password is incorrect', [{ field: 'currentPassword', message: 'Current password is incorrect' }], 'wrong_password');
        }
        return [{ type: 'UserPasswordChanged', data: { userId, passwordHash: command.newPasswordHash, changedAt: command.now } }];
      case 'RecordLogin': {
        const wait = loginRetryAfterSeconds(state, command.now);
        if (wait > 0) throw new TooManyRequestsError('Too many failed sign-in attempts. Try again later.', wait, 'login_rate_limited');
        if (!command.passwordValid) return [{ type: 'UserLoginFailed', data: { userId, at: command.now } }];
        return [{ type: 'UserLoggedIn', data: { userId, sessionId: command.sessionId, at: command.now } }];
      }
      case 'RevokeAllSessions':
        return [{ type: 'UserSessionsRevoked', data: { userId, at: command.now } }];
    }
  },
};
