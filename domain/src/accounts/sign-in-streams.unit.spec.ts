import { describe, expect, it } from 'vitest';
import { fold } from '../core/decider';
import { sessionDecider } from './session';
import { homeOf, loginRetryAfterSeconds, signInHour, userDecider, type UserEvent, type UserState } from './user';

/** ADR 0022: where a user's events go, and what a decision decides with the streams split. */
const T0 = Date.parse('2026-11-23T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const registered: UserEvent = { type: 'UserRegistered', data: { userId: 'u1', email: 'a@example.com', firstName: 'A', lastName: 'B', passwordHash: 'h', registeredAt: at(0) } };
const failed = (ms: number, source: string): UserEvent => ({ type: 'UserLoginFailed', data: { userId: 'u1', at: at(ms), source } });
const state = (...events: UserEvent[]): UserState => fold(userDecider, [registered, ...events]);
const signIn = (s: UserState, source: string, ms: number) => userDecider.decide({ type: 'RecordLogin', passwordValid: true, sessionId: 's1', now: at(ms), source }, s);

describe('a sign-in decided with the streams of ADR 0022', () => {
  it('from a new address: the sign-in (for the session stream) and the address mark, nothing for the user stream', () => {
    const events = signIn(state(), 'home', 10);
    expect(events.map((e) => [e.type, homeOf(e)])).toEqual([['UserLoggedIn', 'session'], ['UserSignInSourceRecorded', 'source']]);
  });

  it('from a marked address without failures: the sign-in only', () => {
    const s = state({ type: 'UserSignInSourceRecorded', data: { userId: 'u1', source: 'home', at: at(0) } });
    expect(signIn(s, 'home', 10).map((e) => e.type)).toEqual(['UserLoggedIn']);
  });

  it('from an address with failures this hour: their clearing, for the attempts stream; other addresses keep theirs', () => {
    const s = state(failed(0, 'home'), failed(1, 'bot'), { type: 'UserSignInSourceRecorded', data: { userId: 'u1', source: 'home', at: at(0) } });
    const events = signIn(s, 'home', 10);
    expect(events.map((e) => [e.type, homeOf(e)])).toEqual([['UserLoggedIn', 'session'], ['UserLoginFailuresCleared', 'attempts']]);
    const after = fold(userDecider, [registered, failed(0, 'home'), failed(1, 'bot'), events[1]!]);
    expect(after.status === 'registered' && after.recentFailures.map((f) => f.source)).toEqual(['bot']);
    // failures older than the hour need no clearing
    expect(signIn(s, 'home', 3_700_000).map((e) => e.type)).toEqual(['UserLoggedIn']);
  });

  it('a mark makes an address known: exempt from the hourly cap, still delayed', () => {
    const bots = Array.from({ length: 100 }, (_, i) => failed(i, `bot${i}`));
    const marked = state({ type: 'UserSignInSourceRecorded', data: { userId: 'u1', source: 'home', at: at(0) } }, ...bots, failed(500, 'home'));
    expect(loginRetryAfterSeconds(marked, at(501), 'home')).toBe(60);
    expect(loginRetryAfterSeconds(state(...bots, failed(500, 'home')), at(501), 'home')).toBeGreaterThan(3000);
  });

  it('a password change records the new hash in the user stream and clears its address in the attempts stream', () => {
    const s = state(failed(0, 'home'));
    const events = userDecider.decide({ type: 'ChangePassword', currentPasswordValid: true, newPasswordHash: 'h2', now: at(10), source: 'home', sessionId: 's1' }, s);
    expect(events.map((e) => [e.type, homeOf(e)])).toEqual([['UserPasswordChanged', 'user'], ['UserLoginFailuresCleared', 'attempts']]);
    const wrong = userDecider.decide({ type: 'ChangePassword', currentPasswordValid: false, newPasswordHash: '', now: at(10), source: 'x', sessionId: 's1' }, s);
    expect(wrong.map(homeOf)).toEqual(['attempts']);
  });

  it('attempts go to the stream of their hour; an hour and the one before cover the window', () => {
    expect(signInHour(at(0))).toBe(T0 / 3_600_000);
    expect(signInHour(at(3_599_999))).toBe(T0 / 3_600_000);
    expect(signInHour(at(3_600_000))).toBe(T0 / 3_600_000 + 1);
  });

  it('a session stream that also holds its sign-in folds as before', () => {
    const started = sessionDecider.decide({ type: 'StartSession', sessionId: 's1', userId: 'u1', now: at(0), expiresAt: at(1_000_000) }, sessionDecider.initialState());
    const s = fold(sessionDecider, [...started, { type: 'UserLoggedIn', data: { userId: 'u1', sessionId: 's1', at: at(0) } } as never]);
    expect(s).toMatchObject({ status: 'active', generation: 0, sessionId: 's1' });
  });
});
