import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invite, registerAccount, startApi, type Api } from '../support/harness';

let api: Api;
beforeAll(async () => {
  api = await startApi({ LOGIN_MAX_FAILURES_PER_ADDRESS: '1000' });
});
afterAll(async () => api.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function signIn(email: string, password: string) {
  const res = await api.http.post('/api/auth/login').send({ email, password });
  expect(res.status).toBe(200);
  return { accessToken: res.body.accessToken as string, refreshToken: res.body.refreshToken as string };
}

describe('a password change ends every other session (ASVS 3.3.3)', () => {
  it('refuses the other sessions\' access and refresh tokens and keeps the current one', async () => {
    const acc = await registerAccount(api);
    const laptop = await signIn(acc.email, acc.password);
    const phone = await signIn(acc.email, acc.password);
    const tablet = await signIn(acc.email, acc.password);
    for (const s of [laptop, phone, tablet]) expect((await api.http.get('/api/auth/profile').set(bearer(s.accessToken))).status).toBe(200);

    const changed = await api.http.put('/api/auth/password').set(bearer(laptop.accessToken)).send({ currentPassword: acc.password, newPassword: 'N3wPassword!' });
    expect(changed.status).toBe(200);

    // the other sessions (including the one that registered) are over, at once
    for (const token of [phone.accessToken, tablet.accessToken, acc.accessToken]) {
      const res = await api.http.get('/api/auth/profile').set(bearer(token));
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('session_revoked');
    }
    for (const token of [phone.refreshToken, tablet.refreshToken, acc.refreshToken]) {
      expect((await api.http.post('/api/auth/refresh').send({ refreshToken: token })).status).toBe(401);
    }
    // the session that changed the password goes on working, and can refresh
    expect((await api.http.get('/api/auth/profile').set(bearer(laptop.accessToken))).status).toBe(200);
    const refreshed = await api.http.post('/api/auth/refresh').send({ refreshToken: laptop.refreshToken });
    expect(refreshed.status).toBe(200);
    expect((await api.http.get('/api/transactions').set({ ...bearer(refreshed.body.accessToken), 'x-company-id': acc.companyId })).status).toBe(200);
    // the old password is gone, the new one signs in
    expect((await api.http.post('/api/auth/login').send({ email: acc.email, password: acc.password })).status).toBe(401);
    await signIn(acc.email, 'N3wPassword!');
  });

  it('a wrong current password ends nothing', async () => {
    const acc = await registerAccount(api);
    const other = await signIn(acc.email, acc.password);
    const res = await api.http.put('/api/auth/password').set(bearer(acc.accessToken)).send({ currentPassword: 'Wrong1234x', newPassword: 'N3wPassword!' });
    expect(res.status).toBe(400);
    expect((await api.http.get('/api/auth/profile').set(bearer(other.accessToken))).status).toBe(200);
    expect((await api.http.post('/api/auth/refresh').send({ refreshToken: other.refreshToken })).status).toBe(200);
  });

  it('a session started after the change is not affected by it', async () => {
    const acc = await registerAccount(api);
    expect((await api.http.put('/api/auth/password').set(bearer(acc.accessToken)).send({ currentPassword: acc.password, newPassword: 'N3wPassword!' })).status).toBe(200);
    const later = await signIn(acc.email, 'N3wPassword!');
    expect((await api.http.get('/api/auth/profile').set(bearer(later.accessToken))).status).toBe(200);
    expect((await api.http.get('/api/auth/profile').set(bearer(acc.accessToken))).status).toBe(200);
  });
});

describe('an admin removing a member ends their access to that company at once', () => {
  it('refuses the removed member\'s still-valid token for that company and never mints one with it', async () => {
    const owner = await registerAccount(api);
    const member = await registerAccount(api);
    await invite(api, owner, member, 'manager');
    const inCompany = { ...bearer(member.accessToken), 'x-company-id': owner.companyId };
    expect((await api.http.get('/api/transactions').set(inCompany)).status).toBe(200);
    const joined = await api.http.post('/api/auth/refresh').set('x-company-id', owner.companyId).send({ refreshToken: member.refreshToken });
    expect(joined.status).toBe(200);
    expect(decodeJwt(joined.body.accessToken)).toMatchObject({ companyId: owner.companyId, role: 'manager' });

    const removed = await api.http.delete(`/api/companies/current/users/${member.userId}`).set(owner.headers());
    expect(removed.status).toBe(200);

    // the access token minted while a member (role claim 'manager' inside) is refused for that company
    const stale = { ...bearer(joined.body.accessToken), 'x-company-id': owner.companyId };
    for (const [method, path] of [['get', '/api/transactions'], ['get', '/api/receipts'], ['get', '/api/companies/current/users'], ['get', '/api/companies/current']] as const) {
      const res = await api.http[method](path).set(stale);
      expect(res.status, path).toBe(403);
      expect(res.body.code).toBe('not_a_member');
    }
    expect((await api.http.post('/api/companies/current/invite').set(stale).send({ email: owner.email })).status).toBe(403);
    expect((await api.http.get(`/api/companies/${owner.companyId}`).set(bearer(joined.body.accessToken))).status).toBe(403);
    // their refresh asking for that company gets their own company, never the one they left
    const after = await api.http.post('/api/auth/refresh').set('x-company-id', owner.companyId).send({ refreshToken: joined.body.refreshToken });
    expect(after.status).toBe(200);
    const claims = decodeJwt(after.body.accessToken);
    expect(claims.companyId).toBe(member.companyId);
    expect(claims.role).toBe('admin');
    // and their own company still works
    expect((await api.http.get('/api/transactions').set({ ...bearer(after.body.accessToken), 'x-company-id': member.companyId })).status).toBe(200);
  });

  it('a role change takes effect at once, whatever role the token claims', async () => {
    const owner = await registerAccount(api);
    const member = await registerAccount(api);
    await invite(api, owner, member, 'admin');
    const joined = await api.http.post('/api/auth/refresh').set('x-company-id', owner.companyId).send({ refreshToken: member.refreshToken });
    expect(decodeJwt(joined.body.accessToken)).toMatchObject({ companyId: owner.companyId, role: 'admin' });
    expect((await api.http.put(`/api/companies/current/users/${member.userId}/role`).set(owner.headers()).send({ role: 'user' })).status).toBe(200);
    const res = await api.http.get('/api/companies/current/users').set({ ...bearer(joined.body.accessToken), 'x-company-id': owner.companyId });
    expect(res.status).toBe(403);
  });
});
