import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';
import { copySignIn, plainHasher, probing, type Probe } from '../support/sign-ins';

/**
 * ADR 0022: a refresh, a sign-in and a sign-out read the same number of
 * events whether the user has signed in 7 times or 2,007 times. The 2,000 extra sign-ins are
 * copies of what one real sign-in appended (wherever the product records it), so the test
 * fails if any of those requests reads the sign-in history, wherever that history lives.
 */
const probe: Probe = { read: 0 };
let api: Api;
let acc: Account;

beforeAll(async () => {
  api = await startApi({ LOGIN_MAX_FAILURES_PER_ADDRESS: '100000' }, undefined, { hasher: plainHasher, wrapEvents: probing(probe) });
  acc = await registerAccount(api);
});
afterAll(() => api?.close());

const login = async () => {
  const res = await api.http.post('/api/auth/login').send({ email: acc.email, password: acc.password });
  expect(res.status).toBe(200);
  return res.body as { accessToken: string; refreshToken: string };
};

/** Events the command side read while `fn` ran (the system otherwise quiet). */
async function eventsRead(fn: () => Promise<unknown>): Promise<number> {
  await api.paperlink.runner.waitFor(await api.paperlink.adapters.events.headPosition(), 5000);
  probe.read = 0;
  await fn();
  return probe.read;
}

/** Events read by a sign-in, a refresh of that session, and its sign-out. */
async function costs(): Promise<{ signIn: number; refresh: number; signOut: number }> {
  let tokens = { accessToken: '', refreshToken: '' };
  const signIn = await eventsRead(async () => (tokens = await login()));
  const refresh = await eventsRead(async () => {
    const res = await api.http.post('/api/auth/refresh').send({ refreshToken: tokens.refreshToken });
    expect(res.status).toBe(200);
    tokens = res.body;
  });
  const signOut = await eventsRead(async () => expect((await api.http.post('/api/auth/logout').send({ refreshToken: tokens.refreshToken })).status).toBe(200));
  return { signIn, refresh, signOut };
}

describe('the cost of a session does not follow the number of past sign-ins', () => {
  it('reads as many events with 2,007 past sign-ins as with 7', async () => {
    for (let i = 0; i < 5; i++) await login();
    // one sign-in, recorded as the product appended it
    probe.capture = [];
    const model = await login();
    const recorded = probe.capture;
    delete probe.capture;

    const few = await costs();
    await copySignIn(api.paperlink.adapters.events, recorded, decodeJwt(model.accessToken).sid as string, 2000);
    let signIns = 0;
    for (let after = 0; ; ) {
      const page = await api.paperlink.adapters.events.readAll({ after, maxCount: 10_000 });
      if (page.length === 0) break;
      signIns += page.filter((e) => e.type === 'UserLoggedIn' && (e.data as { userId: string }).userId === acc.userId).length;
      after = page[page.length - 1]!.position;
    }
    expect(signIns).toBeGreaterThanOrEqual(2000);
    const many = await costs();

    console.log(`events read with 7 / 2,007 past sign-ins: sign-in ${few.signIn} / ${many.signIn}, refresh ${few.refresh} / ${many.refresh}, sign-out ${few.signOut} / ${many.signOut}`);
    expect(many).toEqual(few);
    expect(many.refresh).toBeLessThanOrEqual(10);
    expect(many.signIn).toBeLessThanOrEqual(10);
    expect(many.signOut).toBeLessThanOrEqual(10);
    // the users read model still shows the latest sign-in
    const profile = await api.http.get('/api/auth/profile').set({ authorization: `Bearer ${(await login()).accessToken}` });
    expect(profile.status).toBe(200);
  }, 60_000);
});
