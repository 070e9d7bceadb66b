import { describe, expect, it } from 'vitest';
import { fold } from '../core/decider';
import { TooManyRequestsError } from '../core/errors';
import { loginRetryAfterSeconds, MAX_LOGIN_FAILURES_PER_ACCOUNT, passwordChangeRetryAfterSeconds, userDecider, type UserEvent, type UserState } from './user';

const T0 = Date.parse('2026-11-23T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const registered: UserEvent = { type: 'UserRegistered', data: { userId: 'u1', email: 'a@example.com', firstName: 'A', lastName: 'B', passwordHash: 'h', registeredAt: at(0) } };
const wrong = (ms: number, source: string, sessionId = 'stolen'): UserEvent => ({ type: 'UserPasswordChangeFailed', data: { userId: 'u1', sessionId, at: at(ms), source } });
const loginFailed = (ms: number, source: string): UserEvent => ({ type: 'UserLoginFailed', data: { userId: 'u1', at: at(ms), source } });
const state = (...events: UserEvent[]): UserState => fold(userDecider, [registered, ...events]);
const change = (ms: number, valid: boolean, source: string, sessionId: string) =>
  ({ type: 'ChangePassword', currentPasswordValid: valid, newPasswordHash: valid ? 'h2' : '', now: at(ms), source, sessionId }) as const;

describe('wrong current passwords are failed attempts of the account', () => {
  it('the decider records a wrong current password as an event (no secret in it) instead of refusing with nothing recorded', () => {
    expect(userDecider.decide(change(5, false, 'A', 's1'), state())).toEqual([{ type: 'UserPasswordChangeFailed', data: { userId: 'u1', sessionId: 's1', at: at(5), source: 'A' } }]);
  });

  it('they delay the address and the session as failed sign-ins do, and a sign-in from that address too', () => {
    const s = state(wrong(0, 'A'), wrong(10, 'A'), wrong(20, 'A'));
    expect(passwordChangeRetryAfterSeconds(s, at(30), 'A', 'stolen')).toBe(1);
    // another address with the same session: held back by the session
    expect(passwordChangeRetryAfterSeconds(s, at(30), 'B', 'stolen')).toBe(1);
    // another session at another address: free
    expect(passwordChangeRetryAfterSeconds(s, at(30), 'B', 'fresh')).toBe(0);
    expect(loginRetryAfterSeconds(s, at(30), 'A')).toBe(1);
    expect(() => userDecider.decide(change(30, true, 'A', 'stolen'), s)).toThrow(TooManyRequestsError);
    expect(userDecider.decide(change(30, true, 'B', 'fresh'), s)[0]!.type).toBe('UserPasswordChanged');
  });

  it('they count towards the hourly maximum, and a session is never exempt from it', () => {
    const bots = Array.from({ length: MAX_LOGIN_FAILURES_PER_ACCOUNT - 1 }, (_, i) => loginFailed(i, `bot${i}`));
    const s = state({ type: 'UserLoggedIn', data: { userId: 'u1', sessionId: 'stolen', at: at(0), source: 'home' } }, ...bots, wrong(500, 'home'));
    // the known address only waits, but the session that failed is stopped
    expect(loginRetryAfterSeconds(s, at(60_501), 'home')).toBe(0);
    expect(passwordChangeRetryAfterSeconds(s, at(60_501), 'home', 'stolen')).toBeGreaterThan(3000);
    expect(passwordChangeRetryAfterSeconds(s, at(60_501), 'bot3', 'fresh')).toBeGreaterThan(3000);
  });

  it('a successful change clears the failures of its own address only; older events without a tag clear nothing', () => {
    const s = state(wrong(0, 'A', 's1'), loginFailed(1, 'B'));
    const [changed] = userDecider.decide(change(2, true, 'A', 's2'), s);
    const after = fold(userDecider, [registered, wrong(0, 'A', 's1'), loginFailed(1, 'B'), changed!]);
    expect(after.status === 'registered' && after.recentFailures.map((f) => f.source)).toEqual(['B']);
    const old = state(wrong(0, 'A'), { type: 'UserPasswordChanged', data: { userId: 'u1', passwordHash: 'h2', changedAt: at(1) } });
    expect(old.status === 'registered' && old.recentFailures).toHaveLength(1);
  });
});
