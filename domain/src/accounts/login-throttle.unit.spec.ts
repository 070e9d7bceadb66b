import { describe, expect, it } from 'vitest';
import { fold } from '../core/decider';
import { TooManyRequestsError } from '../core/errors';
import { loginDelayMs, loginRetryAfterSeconds, MAX_LOGIN_FAILURES_PER_ACCOUNT, userDecider, type UserEvent, type UserState } from './user';

const T0 = Date.parse('2026-11-23T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const registered: UserEvent = { type: 'UserRegistered', data: { userId: 'u1', email: 'a@example.com', firstName: 'A', lastName: 'B', passwordHash: 'h', registeredAt: at(0) } };
const failed = (ms: number, source?: string): UserEvent => ({ type: 'UserLoginFailed', data: { userId: 'u1', at: at(ms), ...(source ? { source } : {}) } });
const loggedIn = (ms: number, source?: string): UserEvent => ({ type: 'UserLoggedIn', data: { userId: 'u1', sessionId: 's', at: at(ms), ...(source ? { source } : {}) } });
const state = (...events: UserEvent[]): UserState => fold(userDecider, [registered, ...events]);

describe('sign-in throttling per account and address', () => {
  it('delays grow exponentially after the free failures and are capped', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 9, 10, 100].map(loginDelayMs)).toEqual([0, 0, 0, 1000, 2000, 4000, 8000, 60_000, 60_000, 60_000]);
  });

  it('an address that failed waits after its latest failure; another address does not', () => {
    const s = state(failed(0, 'A'), failed(10, 'A'), failed(20, 'A'), failed(30, 'A'));
    // 4 failures: 2 s after A's latest
    expect(loginRetryAfterSeconds(s, at(1030), 'A')).toBe(1);
    expect(loginRetryAfterSeconds(s, at(2031), 'A')).toBe(0);
    expect(loginRetryAfterSeconds(s, at(40), 'B')).toBe(0);
  });

  it('at the hourly maximum an address that failed is stopped until the window frees a slot, a clean one is not', () => {
    const events = Array.from({ length: MAX_LOGIN_FAILURES_PER_ACCOUNT }, (_, i) => failed(i * 1000, `bot${i}`));
    const s = state(...events);
    expect(loginRetryAfterSeconds(s, at(200_000), 'bot7')).toBe(3600 - 200);
    expect(loginRetryAfterSeconds(s, at(200_000), 'owner')).toBe(0);
    // once its own failure is more than an hour old, the address is clean again
    expect(loginRetryAfterSeconds(s, at(3_600_001 + 60_000), 'bot1')).toBe(0);
  });

  it('an address the account signed in from before is only delayed, never stopped by the maximum', () => {
    const bots = Array.from({ length: MAX_LOGIN_FAILURES_PER_ACCOUNT }, (_, i) => failed(i, `bot${i}`));
    const s = state(loggedIn(0, 'home'), ...bots, failed(500, 'home'));
    expect(loginRetryAfterSeconds(s, at(501), 'home')).toBe(60);
    expect(loginRetryAfterSeconds(s, at(60_501), 'home')).toBe(0);
    expect(loginRetryAfterSeconds(s, at(60_501), 'bot3')).toBeGreaterThan(3000);
  });

  it('a success clears the failures of its own address only, so an owner cannot be used to reset an attack', () => {
    const s = state(failed(0, 'bot'), failed(1, 'bot'), failed(2, 'bot'), failed(3, 'home'), loggedIn(4, 'home'));
    expect(s.status === 'registered' && s.recentFailures.map((f) => f.source)).toEqual(['bot', 'bot', 'bot']);
    expect(loginRetryAfterSeconds(s, at(5), 'bot')).toBe(1);
  });

  it('events of older versions (no address) still count, and an old success still clears them all', () => {
    const old = Array.from({ length: MAX_LOGIN_FAILURES_PER_ACCOUNT }, (_, i) => failed(i));
    expect(loginRetryAfterSeconds(state(...old), at(1000))).toBeGreaterThan(3000);
    expect(loginRetryAfterSeconds(state(...old), at(1000), 'new')).toBe(0);
    expect(state(...old, loggedIn(200)).status === 'registered' && state(...old, loggedIn(200))).toMatchObject({ recentFailures: [] });
  });

  it('failures older than the hour are forgotten', () => {
    const s = state(failed(0, 'A'), failed(1, 'A'), failed(2, 'A'), failed(3_700_000, 'A'));
    expect(s.status === 'registered' && s.recentFailures).toHaveLength(1);
  });

  it('the decider refuses a throttled attempt and tags what it records', () => {
    const s = state(failed(0, 'A'), failed(1, 'A'), failed(2, 'A'));
    expect(() => userDecider.decide({ type: 'RecordLogin', passwordValid: true, sessionId: 's', now: at(3), source: 'A' }, s)).toThrow(TooManyRequestsError);
    expect(userDecider.decide({ type: 'RecordLogin', passwordValid: false, sessionId: 's', now: at(3), source: 'B' }, s)).toEqual([failed(3, 'B')]);
  });
});
