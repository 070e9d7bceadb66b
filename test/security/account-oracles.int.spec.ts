/**
 * Answers that told an attacker about accounts. Registration was a password oracle outside the sign-in throttle: for an account that belongs to
 * no company (its last company removed it), POST /auth/register with its e-mail answered 409 for a
 * wrong password and 201 with tokens for the right one (120 guesses in 6 s, none counted). Now a
 * taken e-mail is 409 whatever the password, never tokens, and each 409 spends the address's
 * budget of failed sign-ins (ADR 0004).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invite, registerAccount, startApi, type Api } from '../support/harness';

describe('registration never signs in to an existing account', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi({ LOGIN_MAX_FAILURES_PER_ADDRESS: '6' });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('an account with no company: the right password answers as a wrong one, 409 and no tokens', async () => {
    const lone = await registerAccount(api);
    const colleague = await registerAccount(api);
    // The colleague becomes an admin of lone's company and removes lone: lone belongs to no company.
    await invite(api, lone, colleague, 'admin');
    const removed = await api.http.delete(`/api/companies/current/users/${lone.userId}`).set(colleague.headers(lone.companyId));
    expect(removed.status).toBe(200);
    const login = await api.http.post('/api/auth/login').send({ email: lone.email, password: lone.password });
    expect(login.status).toBe(200);
    expect(login.body.companies ?? []).toEqual([]);

    const body = { firstName: 'X', lastName: 'Y', email: lone.email, companyName: 'Takeover' };
    const right = await api.http.post('/api/auth/register').send({ ...body, password: lone.password });
    const wrong = await api.http.post('/api/auth/register').send({ ...body, password: 'Wrong-guess-1' });
    expect(right.status).toBe(409);
    expect(right.body.accessToken).toBeUndefined();
    expect({ status: wrong.status, code: wrong.body.code, error: wrong.body.error }).toEqual({ status: right.status, code: right.body.code, error: right.body.error });
  });

  it('taken e-mails spend the address\'s budget of failed sign-ins: past it registration and sign-in answer 429', async () => {
    const taken = await Promise.all([1, 2, 3].map(() => registerAccount(api)));
    const statuses: number[] = [];
    // Other tests of this app have spent 2 of the address's 6 failures; 4 more fill it.
    for (const a of taken.slice(0, 2)) {
      statuses.push((await api.http.post('/api/auth/register').send({ firstName: 'X', lastName: 'Y', email: a.email, password: 'Passw0rdOK', companyName: 'Z' })).status);
      statuses.push((await api.http.post('/api/auth/login').send({ email: a.email, password: 'Wrong-guess-2' })).status);
    }
    expect(statuses).toEqual([409, 401, 409, 401]);
    const next = await api.http.post('/api/auth/register').send({ firstName: 'X', lastName: 'Y', email: taken[2]!.email, password: 'Passw0rdOK', companyName: 'Z' });
    expect(next.status).toBe(429);
    expect(next.body.code).toBe('register_rate_limited');
    expect(Number(next.headers['retry-after'])).toBeGreaterThan(0);
    expect((await api.http.post('/api/auth/login').send({ email: taken[2]!.email, password: 'Wrong-guess-3' })).status).toBe(429);
  });
});

describe('an invitation tells no one whether an e-mail has an account', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  it('a registered and an unregistered address get the same answer, naming no one (it was their id and full name, or 404)', async () => {
    const prober = await registerAccount(api);
    const target = await registerAccount(api, { firstName: 'Secret', lastName: 'Person' });
    const answer = async (email: string) => {
      const res = await api.http.post('/api/companies/current/invite').set(prober.headers()).send({ email, role: 'user' });
      return { status: res.status, body: JSON.stringify(res.body).replaceAll(email, '<email>') };
    };
    const known = await answer(target.email);
    const unknown = await answer(`nobody-${Date.now()}@example.com`);
    expect(known).toEqual(unknown);
    expect(known.status).toBe(201);
    expect(known.body).not.toMatch(/Secret|Person|[0-9a-f]{8}-[0-9a-f]{4}-/);
  });
});
