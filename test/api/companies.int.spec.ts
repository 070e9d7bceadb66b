import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';

let api: Api;
let admin: Account;
let member: Account;
let manager: Account;
beforeAll(async () => {
  api = await startApi();
  admin = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin', companyName: 'Alpha' });
  member = await registerAccount(api, { firstName: 'Uma', lastName: 'User' });
  manager = await registerAccount(api, { firstName: 'Max', lastName: 'Manager' });
  await invite(api, admin, member, 'user');
  await invite(api, admin, manager, 'manager');
});
afterAll(async () => api.close());

describe('companies and team', () => {
  it('lists every company of a user with their role in each', async () => {
    const res = await api.http.get('/api/companies').set(member.headers());
    const roles = Object.fromEntries(res.body.companies.map((c: { name: string; role: string }) => [c.name, c.role]));
    expect(roles.Alpha).toBe('user');
    expect(res.body.companies).toHaveLength(2);
    const login = await api.http.post('/api/auth/login').send({ email: member.email, password: member.password });
    expect(login.body.companies).toHaveLength(2);
  });

  it('reads the current company from X-Company-ID with the caller role', async () => {
    const res = await api.http.get('/api/companies/current').set(member.headers(admin.companyId));
    expect(res.body.company).toMatchObject({ id: admin.companyId, name: 'Alpha', role: 'user', planType: 'BASIC', userCount: 3 });
    const byId = await api.http.get(`/api/companies/${admin.companyId}`).set(member.headers(admin.companyId));
    expect(byId.body.company).toEqual(res.body.company);
  });

  it('shows the team to admins and managers, not to users', async () => {
    const asAdmin = await api.http.get('/api/companies/current/users').set(admin.headers());
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body.users.map((u: { email: string; role: string }) => [u.email, u.role])).toEqual([
      [admin.email, 'admin'], [member.email, 'user'], [manager.email, 'manager'],
    ]);
    expect(asAdmin.body.users[0]).toEqual(expect.objectContaining({ id: admin.userId, firstName: 'Ada', lastName: 'Admin', joinedAt: expect.any(String) }));
    expect((await api.http.get('/api/companies/current/users').set(manager.headers(admin.companyId))).status).toBe(200);
    expect((await api.http.get('/api/companies/current/users').set(member.headers(admin.companyId))).status).toBe(403);
    const filter = await api.http.get('/api/companies/current/users/filter').set(admin.headers());
    expect(filter.body.users).toContainEqual({ id: member.userId, fullName: 'Uma User', role: 'user' });
  });

  it('lets only admins edit the company; name is required; empty domain becomes null', async () => {
    const asUser = await api.http.put('/api/companies/current').set(member.headers(admin.companyId)).send({ name: 'Hacked' });
    expect(asUser.status).toBe(403);
    const asManager = await api.http.put(`/api/companies/${admin.companyId}`).set(manager.headers(admin.companyId)).send({ name: 'Hacked' });
    expect(asManager.status).toBe(403);
    const empty = await api.http.put('/api/companies/current').set(admin.headers()).send({ name: '  ', domain: '' });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toBe('Company name is required');
    const ok = await api.http.put('/api/companies/current').set(admin.headers()).send({ name: 'Alpha Inc', domain: '' });
    expect(ok.status).toBe(200);
    expect(ok.body.company).toMatchObject({ name: 'Alpha Inc', domain: null });
    const withDomain = await api.http.put(`/api/companies/${admin.companyId}`).set(admin.headers()).send({ name: 'Alpha Inc', domain: 'Alpha.Example' });
    expect(withDomain.body.company.domain).toBe('alpha.example');
    expect((await api.http.get('/api/companies/current').set(admin.headers())).body.company).toMatchObject({ name: 'Alpha Inc', domain: 'alpha.example' });
  });

  it('adds existing users only, with role user by default, validates the email, and answers alike for an address of no account', async () => {
    const newcomer = await registerAccount(api);
    const noEmail = await api.http.post('/api/companies/current/invite').set(admin.headers()).send({ email: '' });
    expect(noEmail.body.error).toBe('Email address is required');
    const bad = await api.http.post('/api/companies/current/invite').set(admin.headers()).send({ email: 'nope' });
    expect(bad.body.error).toBe('Please enter a valid email address');
    const unknown = await api.http.post('/api/companies/current/invite').set(admin.headers()).send({ email: 'nobody-here@example.com' });
    expect(unknown.status).toBe(201);
    expect(unknown.body.invited).toEqual({ email: 'nobody-here@example.com', role: 'user' });
    const asUser = await api.http.post('/api/companies/current/invite').set(member.headers(admin.companyId)).send({ email: newcomer.email });
    expect(asUser.status).toBe(403);
    const ok = await api.http.post('/api/companies/current/invite').set(admin.headers()).send({ email: newcomer.email.toUpperCase() });
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual({ invited: { email: newcomer.email, role: 'user' }, message: `If ${newcomer.email} has a Paperlink account, it is now a member of the company as user.` });
    const again = await api.http.post('/api/companies/current/invite').set(admin.headers()).send({ email: newcomer.email });
    expect(again.status).toBe(409);
    expect((await api.http.get('/api/companies/current').set(newcomer.headers(admin.companyId))).body.company.role).toBe('user');
  });

  it('changes roles (admin only, never your own) and the new role applies at once', async () => {
    const own = await api.http.put(`/api/companies/current/users/${admin.userId}/role`).set(admin.headers()).send({ role: 'user' });
    expect(own.status).toBe(403);
    expect(own.body.error).toBe('You cannot change your own role');
    const asManager = await api.http.put(`/api/companies/current/users/${member.userId}/role`).set(manager.headers(admin.companyId)).send({ role: 'admin' });
    expect(asManager.status).toBe(403);
    const badRole = await api.http.put(`/api/companies/current/users/${member.userId}/role`).set(admin.headers()).send({ role: 'owner' });
    expect(badRole.status).toBe(400);
    const ok = await api.http.put(`/api/companies/current/users/${member.userId}/role`).set(admin.headers()).send({ role: 'manager' });
    expect(ok.status).toBe(200);
    expect(ok.body.user).toMatchObject({ id: member.userId, role: 'manager' });
    expect((await api.http.get('/api/companies/current/users').set(member.headers(admin.companyId))).status).toBe(200);
    await api.http.put(`/api/companies/current/users/${member.userId}/role`).set(admin.headers()).send({ role: 'user' });
    expect((await api.http.get('/api/companies/current/users').set(member.headers(admin.companyId))).status).toBe(403);
  });

  it('removes members (admin only, never yourself); a removed member loses access at once', async () => {
    const self = await api.http.delete(`/api/companies/current/users/${admin.userId}`).set(admin.headers());
    expect(self.status).toBe(403);
    expect(self.body.error).toBe('You cannot remove yourself from the company');
    expect((await api.http.delete(`/api/companies/current/users/${manager.userId}`).set(member.headers(admin.companyId))).status).toBe(403);
    const gone = await registerAccount(api);
    await invite(api, admin, gone);
    const ok = await api.http.delete(`/api/companies/${admin.companyId}/users/${gone.userId}`).set(admin.headers());
    expect(ok.status).toBe(200);
    expect((await api.http.get('/api/companies/current').set(gone.headers(admin.companyId))).status).toBe(403);
    const companies = await api.http.get('/api/companies').set(gone.headers());
    expect(companies.body.companies.map((c: { id: string }) => c.id)).not.toContain(admin.companyId);
    expect((await api.http.delete(`/api/companies/current/users/${gone.userId}`).set(admin.headers())).status).toBe(404);
  });
});
