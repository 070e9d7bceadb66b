import { REFRESH_GRACE_MS } from '@paperlink/domain';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerAccount, startApi, type Api } from '../support/harness';

/**
 * A reused refresh token sent again with the X-Request-Id of its first use
 * got the old answer back (and working tokens) long after the parallel-tab grace, bypassing
 * reuse detection. The clock is moved with fake Dates (timers stay real).
 */
let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());
afterEach(() => {
  vi.useRealTimers();
});

describe('refresh with a replayed X-Request-Id', () => {
  it('after the grace, a reused refresh token revokes the family even with the request id of its first use', async () => {
    const acc = await registerAccount(api);
    let now = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now);

    const first = await api.http.post('/api/auth/refresh').set('x-request-id', 'refresh-first-use-1').send({ refreshToken: acc.refreshToken });
    expect(first.status).toBe(200);
    const { accessToken, refreshToken } = first.body as { accessToken: string; refreshToken: string };
    expect(refreshToken).not.toBe(acc.refreshToken);

    now += REFRESH_GRACE_MS + 1_000;
    vi.setSystemTime(now);
    const replay = await api.http.post('/api/auth/refresh').set('x-request-id', 'refresh-first-use-1').send({ refreshToken: acc.refreshToken });
    expect(replay.status).toBe(401);
    expect(replay.body.accessToken).toBeUndefined();
    expect(replay.body.refreshToken).toBeUndefined();

    // The whole family is gone: the tokens of the first use stop working.
    expect((await api.http.post('/api/auth/refresh').send({ refreshToken })).status).toBe(401);
    expect((await api.http.get('/api/companies').set({ authorization: `Bearer ${accessToken}` })).status).toBe(401);
  });

  it('within the grace, a retry with the same request id gets the same answer (parallel tabs, lost responses)', async () => {
    const acc = await registerAccount(api);
    let now = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now);
    const first = await api.http.post('/api/auth/refresh').set('x-request-id', 'refresh-in-grace-1').send({ refreshToken: acc.refreshToken });
    expect(first.status).toBe(200);
    now += 2_000;
    vi.setSystemTime(now);
    const retry = await api.http.post('/api/auth/refresh').set('x-request-id', 'refresh-in-grace-1').send({ refreshToken: acc.refreshToken });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect((await api.http.get('/api/companies').set({ authorization: `Bearer ${first.body.accessToken}` })).status).toBe(200);
  });

  it("another session's refresh token with a known request id gets nothing of that request's answer", async () => {
    const victim = await registerAccount(api);
    const attacker = await registerAccount(api);
    const first = await api.http.post('/api/auth/refresh').set('x-request-id', 'refresh-victim-0001').send({ refreshToken: victim.refreshToken });
    expect(first.status).toBe(200);
    const stolen = await api.http.post('/api/auth/refresh').set('x-request-id', 'refresh-victim-0001').send({ refreshToken: attacker.refreshToken });
    expect(stolen.body.accessToken).not.toBe(first.body.accessToken);
    expect(stolen.status).toBe(409);
    expect(stolen.body.code).toBe('request_id_reused');
  });
});
