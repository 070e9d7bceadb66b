import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAccount, startApi, type Api } from '../support/harness';

let api: Api;
beforeAll(async () => {
  api = await startApi({ LOGIN_MAX_FAILURES_PER_ADDRESS: '1000' });
});
afterAll(async () => api.close());

describe('POST /api/auth/register', () => {
  const valid = { firstName: ' Ana ', lastName: ' Lopez ', email: ' Ana.Lopez@Example.COM ', password: 'Secret123', companyName: ' Acme Ltd ' };

  it('creates the user, their company with them as admin, and a session; trims and lower-cases', async () => {
    const res = await api.http.post('/api/auth/register').send(valid);
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ email: 'ana.lopez@example.com', firstName: 'Ana', lastName: 'Lopez', currentRole: 'admin' });
    expect(res.body.company).toMatchObject({ name: 'Acme Ltd', role: 'admin', planType: 'BASIC' });
    expect(res.body.companies).toEqual([{ id: res.body.company.id, name: 'Acme Ltd', role: 'admin' }]);
    const claims = decodeJwt(res.body.accessToken);
    expect(claims).toMatchObject({ id: res.body.user.id, email: 'ana.lopez@example.com', firstName: 'Ana', lastName: 'Lopez', role: 'admin' });
    expect(claims.exp! - claims.iat!).toBe(900);
    expect(decodeJwt(res.body.refreshToken)).toMatchObject({ typ: 'refresh', gen: 0, sid: claims.sid });
    expect(decodeJwt(res.body.refreshToken).exp! - claims.iat!).toBe(30 * 24 * 3600);
    const companies = await api.http.get('/api/companies').set({ authorization: `Bearer ${res.body.accessToken}` });
    expect(companies.body.companies).toHaveLength(1);
    expect(companies.body.companies[0]).toMatchObject({ name: 'Acme Ltd', role: 'admin', userCount: 1 });
  });

  it('refuses a second account with the same email, whatever its case', async () => {
    const res = await api.http.post('/api/auth/register').send({ ...valid, email: 'ANA.LOPEZ@example.com' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'email_taken', error: 'An account with this email already exists' });
  });

  it('keeps email unique under concurrent registrations', async () => {
    const body = { ...valid, email: 'race@example.com' };
    const results = await Promise.all(Array.from({ length: 8 }, () => api.http.post('/api/auth/register').send(body)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(7);
  });

  it.each([
    [{ firstName: '  ' }, 'First name is required'],
    [{ lastName: '' }, 'Last name is required'],
    [{ companyName: ' ' }, 'Company name is required'],
    [{ email: '' }, 'Email is required'],
    [{ email: 'not-an-email' }, 'Email is invalid'],
    [{ password: '' }, 'Password is required'],
    [{ password: 'Sh0rt' }, 'Password must be at least 8 characters long'],
    [{ password: 'alllowercase1' }, 'Password must contain at least one uppercase letter, one lowercase letter, and one number'],
    [{ password: 'NoDigitsHere' }, 'Password must contain at least one uppercase letter, one lowercase letter, and one number'],
  ])('validates %j on the server: %s', async (change, message) => {
    const res = await api.http.post('/api/auth/register').send({ ...valid, email: `v${Math.random()}@example.com`, ...change });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(message);
    expect(res.body.details[0].message).toBe(message);
  });

  it('answers a non-string field with a clear 400, not a crash', async () => {
    const res = await api.http.post('/api/auth/register').send({ ...valid, firstName: { $gt: '' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
  });

  it('answers malformed JSON with 400', async () => {
    const res = await api.http.post('/api/auth/register').set('content-type', 'application/json').send('{"firstName":');
    expect(res.status).toBe(400);
  });
});

describe('POST /api/auth/login', () => {
  it('signs in with the right password (email in any case) and returns user, companies and tokens', async () => {
    const acc = await registerAccount(api);
    const res = await api.http.post('/api/auth/login').send({ email: acc.email.toUpperCase(), password: acc.password });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: acc.userId, currentRole: 'admin', currentCompany: { id: acc.companyId } });
    expect(res.body.companies).toEqual([expect.objectContaining({ id: acc.companyId, role: 'admin' })]);
    expect(res.body.accessToken).toBeTruthy();
    expect(res.body.refreshToken).toBeTruthy();
  });

  it('answers a wrong password and an unknown email the same way', async () => {
    const acc = await registerAccount(api);
    const wrong = await api.http.post('/api/auth/login').send({ email: acc.email, password: 'Wrong1234' });
    const unknown = await api.http.post('/api/auth/login').send({ email: 'nobody@example.com', password: 'Wrong1234' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'Invalid email or password', code: 'invalid_credentials' });
    expect(unknown.body).toEqual(wrong.body);
  });

  it('validates the form on the server too', async () => {
    expect((await api.http.post('/api/auth/login').send({ email: '', password: 'x' })).body.error).toBe('Email is required');
    expect((await api.http.post('/api/auth/login').send({ email: 'bad', password: 'x' })).body.error).toBe('Email is invalid');
    expect((await api.http.post('/api/auth/login').send({ email: 'a@b.co', password: '' })).body.error).toBe('Password is required');
  });
});

describe('profile and password', () => {
  it('reads and updates the profile; email cannot be changed; names are required', async () => {
    const acc = await registerAccount(api);
    const got = await api.http.get('/api/auth/profile').set(acc.headers());
    expect(got.body.user).toMatchObject({ id: acc.userId, email: acc.email, emailVerified: false, currentRole: 'admin' });
    expect(got.body.user.memberSince).toBeTruthy();
    const put = await api.http.put('/api/auth/profile').set(acc.headers()).send({ firstName: '  Zoe ', lastName: ' Chen ', email: 'evil@example.com' });
    expect(put.status).toBe(200);
    expect(put.body.user).toMatchObject({ firstName: 'Zoe', lastName: 'Chen', email: acc.email });
    const again = await api.http.get('/api/auth/profile').set(acc.headers());
    expect(again.body.user).toMatchObject({ firstName: 'Zoe', lastName: 'Chen', email: acc.email });
    const bad = await api.http.put('/api/auth/profile').set(acc.headers()).send({ firstName: ' ', lastName: 'Chen' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('First name and last name are required');
  });

  it('changes the password after checking the current one', async () => {
    const acc = await registerAccount(api);
    const missing = await api.http.put('/api/auth/password').set(acc.headers()).send({ currentPassword: acc.password });
    expect(missing.body.error).toBe('All password fields are required');
    const short = await api.http.put('/api/auth/password').set(acc.headers()).send({ currentPassword: acc.password, newPassword: 'Ab1' });
    expect(short.body.error).toBe('New password must be at least 8 characters long');
    const wrong = await api.http.put('/api/auth/password').set(acc.headers()).send({ currentPassword: 'Nope12345', newPassword: 'NewPassw0rd' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('Current password is incorrect');
    const ok = await api.http.put('/api/auth/password').set(acc.headers()).send({ currentPassword: acc.password, newPassword: 'NewPassw0rd' });
    expect(ok.status).toBe(200);
    expect((await api.http.post('/api/auth/login').send({ email: acc.email, password: acc.password })).status).toBe(401);
    expect((await api.http.post('/api/auth/login').send({ email: acc.email, password: 'NewPassw0rd' })).status).toBe(200);
  });
});

describe('tokens and sessions', () => {
  it('refuses requests without a valid token', async () => {
    expect((await api.http.get('/api/companies')).status).toBe(401);
    expect((await api.http.get('/api/companies').set('authorization', 'Bearer nonsense')).body.code).toBe('invalid_token');
  });

  it('rotates the refresh token on every use; the old one still answers briefly (parallel tabs)', async () => {
    const acc = await registerAccount(api);
    const first = await api.http.post('/api/auth/refresh').send({ refreshToken: acc.refreshToken });
    expect(first.status).toBe(200);
    expect(first.body.refreshToken).not.toBe(acc.refreshToken);
    expect(decodeJwt(first.body.refreshToken).gen).toBe(1);
    const parallel = await api.http.post('/api/auth/refresh').send({ refreshToken: acc.refreshToken });
    expect(parallel.status).toBe(200);
    expect(parallel.body.refreshToken).toBe(first.body.refreshToken);
    const second = await api.http.post('/api/auth/refresh').send({ refreshToken: first.body.refreshToken });
    expect(decodeJwt(second.body.refreshToken).gen).toBe(2);
    const me = await api.http.get('/api/auth/profile').set({ authorization: `Bearer ${second.body.accessToken}` });
    expect(me.status).toBe(200);
  });

  it('revokes the whole family when an old refresh token comes back', async () => {
    const acc = await registerAccount(api);
    const r1 = await api.http.post('/api/auth/refresh').send({ refreshToken: acc.refreshToken });
    const r2 = await api.http.post('/api/auth/refresh').send({ refreshToken: r1.body.refreshToken });
    expect(r2.status).toBe(200);
    // generation 0 is now two rotations old: reuse
    const stolen = await api.http.post('/api/auth/refresh').send({ refreshToken: acc.refreshToken });
    expect(stolen.status).toBe(401);
    const legit = await api.http.post('/api/auth/refresh').send({ refreshToken: r2.body.refreshToken });
    expect(legit.status).toBe(401);
    const access = await api.http.get('/api/companies').set({ authorization: `Bearer ${r2.body.accessToken}` });
    expect(access.status).toBe(401);
  });

  it('refuses a forged refresh token', async () => {
    const acc = await registerAccount(api);
    const [header, payload] = acc.refreshToken.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ ...decodeJwt(acc.refreshToken), gen: 5 })).toString('base64url');
    expect((await api.http.post('/api/auth/refresh').send({ refreshToken: `${header}.${forgedPayload}.${acc.refreshToken.split('.')[2]}` })).status).toBe(401);
    expect((await api.http.post('/api/auth/refresh').send({ refreshToken: `${header}.${payload}.AAAA` })).status).toBe(401);
    expect((await api.http.post('/api/auth/refresh').send({ refreshToken: acc.accessToken })).status).toBe(401);
    expect((await api.http.post('/api/auth/refresh').send({})).status).toBe(401);
  });

  it('logout revokes the session: its access and refresh tokens stop working', async () => {
    const acc = await registerAccount(api);
    const out = await api.http.post('/api/auth/logout').set(acc.headers()).send({ refreshToken: acc.refreshToken });
    expect(out.status).toBe(200);
    expect((await api.http.get('/api/companies').set(acc.headers())).status).toBe(401);
    expect((await api.http.post('/api/auth/refresh').send({ refreshToken: acc.refreshToken })).status).toBe(401);
  });

  it('logout-all ends every session of the user', async () => {
    const acc = await registerAccount(api);
    const other = await api.http.post('/api/auth/login').send({ email: acc.email, password: acc.password });
    expect((await api.http.post('/api/auth/logout-all').set(acc.headers())).status).toBe(200);
    expect((await api.http.get('/api/companies').set(acc.headers())).status).toBe(401);
    expect((await api.http.get('/api/companies').set({ authorization: `Bearer ${other.body.accessToken}` })).status).toBe(401);
    expect((await api.http.post('/api/auth/refresh').send({ refreshToken: other.body.refreshToken })).status).toBe(401);
    expect((await api.http.post('/api/auth/login').send({ email: acc.email, password: acc.password })).status).toBe(200);
  });
});

describe('idempotent retries with X-Request-Id', () => {
  it('a retried registration appends nothing new and returns the same answer', async () => {
    const body = { firstName: 'Re', lastName: 'Try', email: 'retry@example.com', password: 'Passw0rdOK', companyName: 'Retry Co' };
    const id = 'req-retry-registration-1';
    const head = await api.paperlink.adapters.events.headPosition();
    const a = await api.http.post('/api/auth/register').set('x-request-id', id).send(body);
    const afterFirst = await api.paperlink.adapters.events.headPosition();
    const b = await api.http.post('/api/auth/register').set('x-request-id', id).send(body);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body).toEqual(a.body);
    expect(afterFirst).toBeGreaterThan(head);
    expect(await api.paperlink.adapters.events.headPosition()).toBe(afterFirst);
  });

  it('a retried profile update returns the same answer and appends nothing', async () => {
    const acc = await registerAccount(api);
    const id = 'req-profile-update-1';
    const a = await api.http.put('/api/auth/profile').set(acc.headers()).set('x-request-id', id).send({ firstName: 'One', lastName: 'Two' });
    const head = await api.paperlink.adapters.events.headPosition();
    const b = await api.http.put('/api/auth/profile').set(acc.headers()).set('x-request-id', id).send({ firstName: 'One', lastName: 'Two' });
    expect(b.body).toEqual(a.body);
    expect(await api.paperlink.adapters.events.headPosition()).toBe(head);
  });

  it('refuses the same X-Request-Id for a different request', async () => {
    const acc = await registerAccount(api);
    const id = 'req-reused-for-another';
    await api.http.put('/api/auth/profile').set(acc.headers()).set('x-request-id', id).send({ firstName: 'A', lastName: 'B' });
    const other = await api.http.put('/api/auth/profile').set(acc.headers()).set('x-request-id', id).send({ firstName: 'C', lastName: 'D' });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('request_id_reused');
  });
});

describe('event metadata', () => {
  it('records company, user, request, correlation and causation ids and the time on each event', async () => {
    const acc = await registerAccount(api);
    await api.http.put('/api/companies/current').set(acc.headers()).set('x-request-id', 'req-meta-check-1').set('x-correlation-id', 'corr-42').send({ name: 'Meta Co', domain: 'meta.example' });
    const events = await api.paperlink.adapters.events.readStream(`company-${acc.companyId}`);
    const updated = events.find((e) => e.type === 'CompanyUpdated')!;
    expect(updated.metadata).toMatchObject({ companyId: acc.companyId, userId: acc.userId, requestId: 'req-meta-check-1', correlationId: 'corr-42', causationId: 'req-meta-check-1' });
    expect(Date.parse(updated.metadata.occurredAt)).toBeGreaterThan(Date.now() - 60_000);
  });
});
