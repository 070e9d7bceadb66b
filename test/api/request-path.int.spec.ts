import { REFRESH_GRACE_MS } from '@paperlink/domain';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerAccount, startApi, type Api } from '../support/harness';

/**
 * ADR 0029 (goal: a refresh p95 <= 20 ms): a refresh that rotates the session is answered
 * once its events are appended, without waiting for the projections (it changes only the
 * session's expiry in the read models, which no answer shows and the session guard does not
 * read); a refresh that revokes (reuse after the grace) still waits, so the family is refused
 * from its answer on. The clock is moved with fake Dates (timers stay real).
 */
let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('refresh on the request path', () => {
  it('a rotation does not wait for the read models; the new tokens work at once; a reuse after the grace waits and revokes', async () => {
    const acc = await registerAccount(api);
    const waits = vi.spyOn(api.paperlink.runner, 'waitFor');
    let now = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now);

    const rotated = await api.http.post('/api/auth/refresh').send({ refreshToken: acc.refreshToken });
    expect(rotated.status).toBe(200);
    expect(waits).not.toHaveBeenCalled();
    // The session guard reads what the rotation did not change: the new access token works.
    expect((await api.http.get('/api/companies').set({ authorization: `Bearer ${rotated.body.accessToken as string}` })).status).toBe(200);
    // A parallel tab within the grace gets tokens too, still without a wait.
    const parallel = await api.http.post('/api/auth/refresh').send({ refreshToken: acc.refreshToken });
    expect(parallel.status).toBe(200);
    expect(waits).not.toHaveBeenCalled();

    now += REFRESH_GRACE_MS + 1_000;
    vi.setSystemTime(now);
    const reused = await api.http.post('/api/auth/refresh').send({ refreshToken: acc.refreshToken });
    expect(reused.status).toBe(401);
    // The revocation is in the read models before the answer: the family's access token is refused at once.
    expect(waits).toHaveBeenCalled();
    expect((await api.http.get('/api/companies').set({ authorization: `Bearer ${rotated.body.accessToken as string}` })).status).toBe(401);
  });
});
