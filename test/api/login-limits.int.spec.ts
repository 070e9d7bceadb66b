import { afterEach, describe, expect, it } from 'vitest';
import { registerAccount, startApi, type Api } from '../support/harness';

let api: Api | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('failed sign-in limits', () => {
  it('allows at most 100 failed sign-ins an hour per account, then answers 429 with Retry-After', async () => {
    api = await startApi({ LOGIN_MAX_FAILURES_PER_ADDRESS: '100000' });
    const acc = await registerAccount(api);
    for (let i = 0; i < 100; i++) {
      const res = await api.http.post('/api/auth/login').send({ email: acc.email, password: `Wrong${i}xx` });
      expect(res.status).toBe(401);
    }
    const limited = await api.http.post('/api/auth/login').send({ email: acc.email, password: acc.password });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('login_rate_limited');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // another account is not affected
    const other = await registerAccount(api);
    expect((await api.http.post('/api/auth/login').send({ email: other.email, password: other.password })).status).toBe(200);
  }, 120_000);

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
