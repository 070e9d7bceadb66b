import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';

/**
 * Every endpoint that exists, called by a user of another company: 403 or 404, never data.
 * New endpoints are added to ENDPOINTS as they are built.
 */
const ENDPOINTS: Array<[method: 'get' | 'put' | 'post' | 'delete', path: (victim: Account) => string, body?: object]> = [
  ['get', () => '/api/companies/current'],
  ['put', () => '/api/companies/current', { name: 'Pwned' }],
  ['post', () => '/api/companies/current/invite', { email: 'x@example.com', role: 'admin' }],
  ['get', () => '/api/companies/current/users'],
  ['get', () => '/api/companies/current/users/filter'],
  ['put', (v) => `/api/companies/current/users/${v.userId}/role`, { role: 'user' }],
  ['delete', (v) => `/api/companies/current/users/${v.userId}`],
  ['get', (v) => `/api/companies/${v.companyId}`],
  ['put', (v) => `/api/companies/${v.companyId}`, { name: 'Pwned' }],
  ['get', (v) => `/api/companies/${v.companyId}/users`],
  ['get', (v) => `/api/companies/${v.companyId}/users/filter`],
  ['post', (v) => `/api/companies/${v.companyId}/invite`, { email: 'x@example.com' }],
  ['put', (v) => `/api/companies/${v.companyId}/users/${v.userId}/role`, { role: 'user' }],
  ['delete', (v) => `/api/companies/${v.companyId}/users/${v.userId}`],
  ['get', () => '/api/masterdata/categories'],
  ['get', () => '/api/masterdata/job_numbers'],
  ['get', () => '/api/masterdata/cost_codes'],
  ['post', () => '/api/masterdata/categories', { name: 'Pwned' }],
  ['put', () => '/api/masterdata/categories/some-id', { name: 'Pwned' }],
  ['delete', () => '/api/masterdata/categories/some-id'],
  ['get', () => '/api/transactions'],
  ['get', () => '/api/transactions/some-id'],
  ['put', () => '/api/transactions/some-id', { description: 'x', category: 'x', job_number: 'x', cost_code: 'x', amount: 1 }],
  ['delete', () => '/api/transactions/some-id'],
  ['post', () => '/api/transactions/import'],
];

let api: Api;
let victim: Account;
let intruder: Account;
beforeAll(async () => {
  api = await startApi();
  victim = await registerAccount(api, { companyName: 'Victim Co' });
  intruder = await registerAccount(api, { companyName: 'Intruder Co' });
});
afterAll(async () => api.close());

describe('tenancy: a user of another company gets 403 or 404, never data', () => {
  it.each(ENDPOINTS.map(([m, p, b]) => [m.toUpperCase(), p, b] as const))('%s %s', async (method, path, body) => {
    const url = path(victim);
    const req = api.http[method.toLowerCase() as 'get'](url).set(intruder.headers(victim.companyId));
    const res = body ? await req.send(body) : await req;
    expect([403, 404]).toContain(res.status);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain('Victim Co');
    expect(text).not.toContain(victim.email);
    // with their own company header, /companies/{victim} paths still refuse
    if (url.includes(victim.companyId)) {
      const own = api.http[method.toLowerCase() as 'get'](url).set(intruder.headers());
      const res2 = body ? await own.send(body) : await own;
      expect([403, 404]).toContain(res2.status);
    }
  });

  it('left the victim company unchanged', async () => {
    const res = await api.http.get('/api/companies/current').set(victim.headers());
    expect(res.body.company).toMatchObject({ name: 'Victim Co', userCount: 1 });
  });
});
