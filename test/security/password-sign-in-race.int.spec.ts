import type { EventStore, StreamAppend } from '@paperlink/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';
import { plainHasher } from '../support/sign-ins';

/**
 * ADR 0022: a sign-in no longer appends to `user-<id>`, so it no longer conflicts with a password
 * change. A sign-in that checked the old password must still end, whichever of the two is
 * appended first. The event store holds one chosen append until the other request has run.
 */
interface Gate { match: (appends: StreamAppend[]) => boolean; reached: () => void; release: Promise<void> }
let gate: Gate | undefined;
function gated(inner: EventStore): EventStore {
  return new Proxy(inner, {
    get(target, key, receiver) {
      if (key === 'appendMany') {
        return async (appends: StreamAppend[]) => {
          const g = gate;
          if (g?.match(appends)) {
            gate = undefined;
            g.reached();
            await g.release;
          }
          return target.appendMany(appends);
        };
      }
      const value: unknown = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
/** Holds the next append that has an event of `type`; resolves when it is held, with a release. */
function hold(type: string): { held: Promise<void>; release: () => void } {
  let release!: () => void;
  let reached!: () => void;
  const held = new Promise<void>((r) => (reached = r));
  gate = { match: (appends) => appends.some((a) => a.events.some((e) => e.type === type)), reached, release: new Promise<void>((r) => (release = r)) };
  return { held, release };
}

let api: Api;
beforeAll(async () => {
  api = await startApi({ LOGIN_MAX_FAILURES_PER_ADDRESS: '1000' }, undefined, { hasher: plainHasher, wrapEvents: gated });
});
afterAll(() => api?.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const signIn = (acc: Account, password = acc.password) => api.http.post('/api/auth/login').send({ email: acc.email, password });
const change = (token: string, acc: Account) => api.http.put('/api/auth/password').set(bearer(token)).send({ currentPassword: acc.password, newPassword: 'Raced-Passw0rd' });

/** Until the session's tokens are refused (its end is appended just after its answer), at most 2 s. */
async function ended(tokens: { accessToken: string; refreshToken: string }): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    const profile = await api.http.get('/api/auth/profile').set(bearer(tokens.accessToken));
    if (profile.status === 401) return (await api.http.post('/api/auth/refresh').send({ refreshToken: tokens.refreshToken })).status === 401;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe('a sign-in with the old password racing a password change', () => {
  it('appended after the change: the sign-in ends its own session', async () => {
    const acc = await registerAccount(api);
    const laptop = (await signIn(acc)).body as { accessToken: string };
    const { held, release } = hold('SessionStarted');
    const racing = signIn(acc).then((r) => r); // (supertest sends on then) checks the old password, then waits at its append
    await held;
    expect((await change(laptop.accessToken, acc)).status).toBe(200);
    release();
    const res = await racing;
    expect(res.status).toBe(200);
    expect(await ended(res.body)).toBe(true);
    // the session that changed it goes on, and the new password signs in and stays
    expect((await api.http.get('/api/auth/profile').set(bearer(laptop.accessToken))).status).toBe(200);
    const fresh = await signIn(acc, 'Raced-Passw0rd');
    expect(fresh.status).toBe(200);
    expect((await api.http.get('/api/auth/profile').set(bearer(fresh.body.accessToken))).status).toBe(200);
  });

  it('appended after the change read the sessions, before it was appended: the change ends it', async () => {
    const acc = await registerAccount(api);
    const laptop = (await signIn(acc)).body as { accessToken: string };
    const { held, release } = hold('UserPasswordChanged');
    const changing = change(laptop.accessToken, acc).then((r) => r); // has read the sessions, waits at its append
    await held;
    const racing = await signIn(acc);
    expect(racing.status).toBe(200);
    release();
    expect((await changing).status).toBe(200);
    expect(await ended(racing.body)).toBe(true);
    expect((await api.http.get('/api/auth/profile').set(bearer(laptop.accessToken))).status).toBe(200);
  });
});
