import { type Decider } from '../core/decider';
import { TooManyRequestsError, UnauthorizedError, ValidationError } from '../core/errors';
import { requireName, throwIfProblems } from './validation';

/**
 * Sign-in throttling per account (docs/decisions/0004-sign-in-throttling.md). Failures are
 * counted per account over the last hour, each with the keyed tag of the address it came from.
 * An address with no failure against the account in that hour is always checked, so that no
 * one can lock the owner out. An address that has failed waits before its next try, longer
 * the more the account has failed (exponential, capped), and is stopped once the account has
 * had its hourly maximum of failures (unless the account has signed in from it before).
 */
export const LOGIN_FAILURE_WINDOW_MS = 60 * 60 * 1000;
export const MAX_LOGIN_FAILURES_PER_ACCOUNT = 100;
/** Failures an account may have in the window before addresses that failed must wait between tries. */
export const LOGIN_FREE_FAILURES = 3;
export const LOGIN_BASE_DELAY_MS = 1000;
export const LOGIN_MAX_DELAY_MS = 60_000;
/** Addresses (tags) of successful sign-ins remembered per account in user streams written before ADR 0022. */
const KNOWN_SOURCES = 20;

/**
 * Where each event of a user is recorded (docs/decisions/0022-session-streams.md). Only what a
 * decision about the account needs stays in `user-<id>`; every sign-in goes to the stream of the
 * session it starts, and the throttle's failures to a stream per user and hour, so that no
 * stream a refresh, sign-in or sign-out reads grows with the number of past sign-ins. Streams
 * written before keep every kind of event in `user-<id>`, and `evolve` still folds them there.
 */
export type UserEventHome = 'user' | 'session' | 'attempts' | 'source';

export type UserEvent =
  | { type: 'UserRegistered'; data: { userId: string; email: string; firstName: string; lastName: string; passwordHash: string; registeredAt: string } }
  | { type: 'UserProfileUpdated'; data: { userId: string; firstName: string; lastName: string } }
  /** `source`: keyed tag of the address the change came from (absent in events of older versions). */
  | { type: 'UserPasswordChanged'; data: { userId: string; passwordHash: string; changedAt: string; source?: string } }
  /** `source`: keyed tag of the address (absent in events of older versions). */
  | { type: 'UserLoggedIn'; data: { userId: string; sessionId: string; at: string; source?: string } }
  | { type: 'UserLoginFailed'; data: { userId: string; at: string; source?: string } }
  /** A wrong current password on a password change: a failed attempt of the account, like a failed sign-in. */
  | { type: 'UserPasswordChangeFailed'; data: { userId: string; sessionId: string; at: string; source: string } }
  | { type: 'UserSessionsRevoked'; data: { userId: string; at: string } }
  /** A success (sign-in or password change) from the address tagged `source` clears its failures of the last hour. */
  | { type: 'UserLoginFailuresCleared'; data: { userId: string; source: string; at: string } }
  /** The first successful sign-in from the address tagged `source`: from then on it is exempt from the hourly cap. */
  | { type: 'UserSignInSourceRecorded'; data: { userId: string; source: string; at: string } };

/** The stream kind an event of a user belongs in (see UserEventHome). */
export function homeOf(event: UserEvent): UserEventHome {
  switch (event.type) {
    case 'UserRegistered':
    case 'UserProfileUpdated':
    case 'UserPasswordChanged':
    case 'UserSessionsRevoked':
      return 'user';
    case 'UserLoggedIn':
      return 'session';
    case 'UserLoginFailed':
    case 'UserPasswordChangeFailed':
    case 'UserLoginFailuresCleared':
      return 'attempts';
    case 'UserSignInSourceRecorded':
      return 'source';
  }
}

/** The hour (since the epoch) whose attempts stream records an attempt at `at`. */
export function signInHour(at: string | number): number {
  return Math.floor((typeof at === 'number' ? at : Date.parse(at)) / LOGIN_FAILURE_WINDOW_MS);
}

/** Version of the user state a checkpoint holds; a checkpoint of another version is ignored. */
export const USER_SNAPSHOT_VERSION = 1;
/** A checkpoint of a user stream: the state folded up to and including `revision`. */
export interface UserSnapshotTaken {
  type: 'UserSnapshotTaken';
  data: { userId: string; revision: number; version: number; state: UserState };
}

export type UserState =
  | { status: 'none' }
  | {
      status: 'registered';
      userId: string;
      email: string;
      firstName: string;
      lastName: string;
      passwordHash: string;
      /**
       * Failed logins and wrong current passwords of the last hour (as of the latest one), oldest
       * first, with the tag of their address (and the session, for a password change).
       */
      recentFailures: Array<{ at: string; source?: string; sessionId?: string }>;
      /** Tags of addresses the user has signed in from, newest last. */
      knownSources: string[];
      sessionsRevokedAt?: string;
    };

export type UserCommand =
  | { type: 'RegisterUser'; userId: string; email: string; firstName: string; lastName: string; passwordHash: string; now: string }
  | { type: 'UpdateProfile'; firstName: string; lastName: string }
  /** `source`: tag of the caller's address; `sessionId`: the caller's session (both throttle wrong current passwords). */
  | { type: 'ChangePassword'; currentPasswordValid: boolean; newPasswordHash: string; now: string; source: string; sessionId: string }
  | { type: 'RecordLogin'; passwordValid: boolean; sessionId: string; now: string; source?: string }
  | { type: 'RevokeAllSessions'; now: string };

function withinWindow<T extends { at: string }>(failures: T[], now: string | number): T[] {
  const since = (typeof now === 'number' ? now : Date.parse(now)) - LOGIN_FAILURE_WINDOW_MS;
  return failures.filter((f) => Date.parse(f.at) > since);
}

/** How long an address that has failed waits after its latest failure, given the account's failures. */
export function loginDelayMs(accountFailures: number): number {
  if (accountFailures < LOGIN_FREE_FAILURES) return 0;
  return Math.min(LOGIN_MAX_DELAY_MS, LOGIN_BASE_DELAY_MS * 2 ** Math.min(accountFailures - LOGIN_FREE_FAILURES, 20));
}

/**
 * Seconds before a sign-in from the address tagged `source` may be checked, or 0 when it may
 * now. An address without failures against the account in the last hour is never held back.
 */
export function loginRetryAfterSeconds(state: UserState, now: string, source?: string): number {
  if (state.status !== 'registered') return 0;
  const known = source !== undefined && state.knownSources.includes(source);
  return retryAfterSeconds(state, now, (f) => source === undefined || f.source === source, known);
}

/**
 * Seconds before a password change from the address tagged `source`, in session `sessionId`,
 * may check the current password, or 0 when it may now. Wrong current passwords are failures
 * of the account under the sign-in policy; the session counts as an address would (and is
 * never exempt from the hourly cap), so a stolen token does not start afresh at a new address.
 */
export function passwordChangeRetryAfterSeconds(state: UserState, now: string, source: string, sessionId: string): number {
  if (state.status !== 'registered') return 0;
  return Math.max(loginRetryAfterSeconds(state, now, source), retryAfterSeconds(state, now, (f) => f.sessionId === sessionId, false));
}

/** The 429 of a password change the policy holds back. */
export function passwordChangeRateLimited(seconds: number): TooManyRequestsError {
  return new TooManyRequestsError('Too many wrong current passwords. Try again later.', seconds, 'password_change_rate_limited');
}

type Registered = Extract<UserState, { status: 'registered' }>;
type Failure = Registered['recentFailures'][number];

function retryAfterSeconds(state: Registered, now: string, isOwn: (f: Failure) => boolean, known: boolean): number {
  const t = Date.parse(now);
  const failures = withinWindow(state.recentFailures, t);
  const own = failures.filter(isOwn);
  if (own.length === 0) return 0;
  const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
  if (failures.length >= MAX_LOGIN_FAILURES_PER_ACCOUNT && !known) {
    const frees = Date.parse(failures[failures.length - MAX_LOGIN_FAILURES_PER_ACCOUNT]!.at) + LOGIN_FAILURE_WINDOW_MS;
    return seconds(frees - t);
  }
  const until = Date.parse(own[own.length - 1]!.at) + loginDelayMs(failures.length);
  return until > t ? seconds(until - t) : 0;
}

/** The clearing of an address's failures after a success there, when it has any in the last hour. */
function clearedFailures(state: Registered, userId: string, source: string, at: string): UserEvent[] {
  const has = withinWindow(state.recentFailures, at).some((f) => f.source === source);
  return has ? [{ type: 'UserLoginFailuresCleared', data: { userId, source, at } }] : [];
}

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({ status: 'none' }),

  evolve(state, event) {
    switch (event.type) {
      case 'UserRegistered':
        return { status: 'registered', ...event.data, recentFailures: [], knownSources: [] };
    }
    if (state.status !== 'registered') return state;
    switch (event.type) {
      case 'UserProfileUpdated':
        return { ...state, firstName: event.data.firstName, lastName: event.data.lastName };
      case 'UserPasswordChanged': {
        // The current password was right from this address: as after a sign-in, its failures are cleared.
        const source = event.data.source;
        const recentFailures = source === undefined ? state.recentFailures : state.recentFailures.filter((f) => f.source !== source);
        return { ...state, passwordHash: event.data.passwordHash, recentFailures };
      }
      case 'UserLoggedIn': {
        const source = event.data.source;
        // Older events carry no address: then, as before, a success clears every failure.
        if (source === undefined) return { ...state, recentFailures: [] };
        return {
          ...state,
          recentFailures: state.recentFailures.filter((f) => f.source !== source),
          knownSources: [...state.knownSources.filter((s) => s !== source), source].slice(-KNOWN_SOURCES),
        };
      }
      case 'UserLoginFailed': {
        const failure = event.data.source === undefined ? { at: event.data.at } : { at: event.data.at, source: event.data.source };
        return { ...state, recentFailures: [...withinWindow(state.recentFailures, event.data.at), failure] };
      }
      case 'UserPasswordChangeFailed': {
        const { at, source, sessionId } = event.data;
        return { ...state, recentFailures: [...withinWindow(state.recentFailures, at), { at, source, sessionId }] };
      }
      case 'UserSessionsRevoked':
        return { ...state, sessionsRevokedAt: event.data.at };
      case 'UserLoginFailuresCleared':
        return { ...state, recentFailures: state.recentFailures.filter((f) => f.source !== event.data.source) };
      case 'UserSignInSourceRecorded':
        return state.knownSources.includes(event.data.source) ? state : { ...state, knownSources: [...state.knownSources, event.data.source] };
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
      case 'ChangePassword': {
        // Checked again here, where the append is guarded by the stream's revision (parallel tries serialise).
        const wait = passwordChangeRetryAfterSeconds(state, command.now, command.source, command.sessionId);
        if (wait > 0) throw passwordChangeRateLimited(wait);
        const { now: at, source, sessionId } = command;
        if (!command.currentPasswordValid) return [{ type: 'UserPasswordChangeFailed', data: { userId, sessionId, at, source } }];
        return [
          { type: 'UserPasswordChanged', data: { userId, passwordHash: command.newPasswordHash, changedAt: at, source } },
          ...clearedFailures(state, userId, source, at),
        ];
      }
      case 'RecordLogin': {
        const wait = loginRetryAfterSeconds(state, command.now, command.source);
        if (wait > 0) throw new TooManyRequestsError('Too many failed sign-in attempts. Try again later.', wait, 'login_rate_limited');
        const source = command.source === undefined ? {} : { source: command.source };
        if (!command.passwordValid) return [{ type: 'UserLoginFailed', data: { userId, at: command.now, ...source } }];
        const at = command.now;
        const tag = command.source;
        return [
          { type: 'UserLoggedIn', data: { userId, sessionId: command.sessionId, at, ...source } },
          ...(tag === undefined ? [] : clearedFailures(state, userId, tag, at)),
          ...(tag === undefined || state.knownSources.includes(tag) ? [] : [{ type: 'UserSignInSourceRecorded' as const, data: { userId, source: tag, at } }]),
        ];
      }
      case 'RevokeAllSessions':
        return [{ type: 'UserSessionsRevoked', data: { userId, at: command.now } }];
    }
  },
};
