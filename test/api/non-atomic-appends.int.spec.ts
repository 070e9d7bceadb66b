import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppendResult, EventStore, StreamAppend } from '@paperlink/domain';
import { registerAccount, startApi, type Api } from '../support/harness';

/**
 * docs/decisions/0016-multi-stream-commands-on-eventstoredb.md): on
 * EventStoreDB appendMany appends stream after stream, and a failure half-way keeps the streams
 * appended before it. The event store here behaves so, and fails once after a given number of
 * streams; a command must leave a state its retry completes.
 */
function nonAtomic(inner: EventStore, control: { failAfter?: number }): EventStore {
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'appendMany') {
        return async (appends: StreamAppend[]): Promise<AppendResult[]> => {
          const out: AppendResult[] = [];
          for (const [i, a] of appends.entries()) {
            if (control.failAfter === i) {
              control.failAfter = undefined;
              throw new Error('connection to the event store lost');
            }
            out.push(...(await target.appendMany([a])));
          }
          return out;
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('multi-stream commands on a non-atomic appendMany', () => {
  const control: { failAfter?: number } = {};
  let api: Api;
  beforeAll(async () => {
    api = await startApi({}, undefined, { wrapEvents: (events) => nonAtomic(events, control) });
  });
  afterAll(async () => api?.close());

  it('a registration that fails after claiming the email can be retried (the claim is taken over)', async () => {
    const body = { firstName: 'Half', lastName: 'Way', email: `half-${Date.now()}@example.com`, password: 'Passw0rdOK', companyName: 'Half Way Ltd' };
    control.failAfter = 1; // the email claim is appended, the user is not
    expect((await api.http.post('/api/auth/register').send(body)).status).toBe(500);
    const retried = await api.http.post('/api/auth/register').send(body);
    expect(retried.status).toBe(201);
    const login = await api.http.post('/api/auth/login').send({ email: body.email, password: body.password });
    expect(login.status).toBe(200);
    expect(login.body.user.id).toBe(retried.body.user.id);
    expect(login.body.companies.map((c: { name: string }) => c.name)).toEqual(['Half Way Ltd']);
    // Once registered, the address is taken as ever.
    expect((await api.http.post('/api/auth/register').send({ ...body, companyName: 'Other' })).status).toBe(409);
  });

  it('a registration that fails after the user (before the company) is resumed by a retry with the password; not with another', async () => {
    const body = { firstName: 'Late', lastName: 'Stop', email: `late-${Date.now()}@example.com`, password: 'Passw0rdOK', companyName: 'Late Stop Ltd' };
    control.failAfter = 2; // the email claim and the user are appended, the company and the session are not
    expect((await api.http.post('/api/auth/register').send(body)).status).toBe(500);
    // The account signs in but belongs to no company.
    const before = await api.http.post('/api/auth/login').send({ email: body.email, password: body.password });
    expect(before.status).toBe(200);
    expect(before.body.companies ?? []).toEqual([]);
    // Someone else's retry (another password) does not get the account.
    const stranger = await api.http.post('/api/auth/register').send({ ...body, password: 'Stranger0K99', companyName: 'Takeover' });
    expect(stranger.status).toBe(409);
    const retried = await api.http.post('/api/auth/register').send(body);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(retried.body.user.id).toBe(before.body.user.id);
    const login = await api.http.post('/api/auth/login').send({ email: body.email, password: body.password });
    expect(login.body.companies.map((c: { name: string }) => c.name)).toEqual(['Late Stop Ltd']);
    // The resumed company's id is a well-formed id the API takes (X-Company-ID), and the user is its admin.
    const current = await api.http.get('/api/companies/current').set({ authorization: `Bearer ${login.body.accessToken}`, 'x-company-id': retried.body.company.id });
    expect(current.status, JSON.stringify(current.body)).toBe(200);
    // Complete now: registering again is refused, with the password too.
    expect((await api.http.post('/api/auth/register').send(body)).status).toBe(409);
  });

  it('a password change that fails half-way has ended the other sessions and kept the old password; the retry changes it', async () => {
    const me = await registerAccount(api);
    const other = await api.http.post('/api/auth/login').send({ email: me.email, password: me.password });
    expect(other.status).toBe(200);
    const change = { currentPassword: me.password, newPassword: 'N3wPassw0rdOK' };

    control.failAfter = 1; // the first stream is appended, then the store fails
    const failed = await api.http.put('/api/auth/password').set(me.headers()).send(change);
    expect(failed.status).toBe(500);
    expect(control.failAfter).toBeUndefined();
    // The other session has ended, and the old password still signs in (never: a new password with other sessions open).
    expect((await api.http.post('/api/auth/refresh').send({ refreshToken: other.body.refreshToken })).status).toBe(401);
    expect((await api.http.post('/api/auth/login').send({ email: me.email, password: me.password })).status).toBe(200);

    const retried = await api.http.put('/api/auth/password').set(me.headers()).send(change);
    expect(retried.status).toBe(200);
    expect((await api.http.post('/api/auth/login').send({ email: me.email, password: change.newPassword })).status).toBe(200);
    expect((await api.http.post('/api/auth/login').send({ email: me.email, password: me.password })).status).toBe(401);
  });
});
