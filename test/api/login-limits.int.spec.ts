import { afterEach, describe, expect, it } from 'vitest';
import { registerAccount, startApi, type Api } from '../support/harness';

let api: Api | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('failed sign-in limits', () => {
  // The policy is in docs/decisions/0004-sign-in-throttling.md; test/security/login-throttle.int.spec.ts has the attacks.
  it('allows at most 100 failed sign-ins an hour per account from addresses that failed, then answers 429 with Retry-After', async () => {
    api = await startApi({ LOGIN_MAX_FAILURES_PER_ADDRESS: '100000', TRUST_PROXY: 'loopback' });
    const acc = await registerAccount(api);
    const address = (i: number) => `198.51.100.${i + 1}`;
    for (let i = 0; i < 100; i++) {
      const res = await api.http.post('/api/auth/login').set('x-forwarded-for', address(i)).send({ email: acc.email, password: `Wrong${i}xx` });
      expect(res.status).toBe(401);
    }
    const limited = await api.http.post('/api/auth/login').set('x-forwarded-for', address(0)).send({ email: acc.email, password: acc.password });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('login_rate_limited');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // the owner, from an address that has not failed, is not locked out
    expect((await api.http.post('/api/auth/login').set('x-forwarded-for', '192.0.2.1').send({ email: acc.email, password: acc.password })).status).toBe(200);
    // another account is not affected
    const other = await registerAccount(api);
    expect((await api.http.post('/api/auth/login').set('x-forwarded-for', address(0)).send({ email: other.email, password: other.password })).status).toBe(200);
  }, 120_000);

  it('slows down repeated failures from one address at one account', async () => {
    api = await startApi({ LOGIN_MAX_FAILURES_PER_ADDRESS: '100000' });
    const acc = await registerAccount(api);
    for (let i = 0; i < 3; i++) expect((await api.http.post('/api/auth/login').send({ email: acc.email, password: `Wrong${i}xx` })).status).toBe(401);
    const slowed = await api.http.post('/api/auth/login').send({ email: acc.email, password: acc.password });
    expect(slowed.status).toBe(429);
    expect(Number(slowed.headers['retry-after'])).toBe(1);
  });

  it('limits failed sign-ins per address across accounts', async () => {
    api = await startApi({ LOGIN_MAX_FAILURES_PER_ADDRESS: '5', LOGIN_ADDRESS_WINDOW_SECONDS: '600' });
    const acc = await registerAccount(api);
    for (let i = 0; i < 5; i++) {
      expect((await api.http.post('/api/auth/login').send({ email: `ghost${i}@example.com`, password: 'Whatever1' })).status).toBe(401);
    }
    const limited = await api.http.post('/api/auth/login').send({ email: acc.email, password: acc.password });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });
});
