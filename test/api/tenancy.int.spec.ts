import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';

/**
 * Every endpoint that exists, called by a user of another company: 403 or 404, never data.
 * New endpoints are added to ENDPOINTS as they are built.
 */
type Victim = Account & { transactionId: string; categoryId: string };
const ENDPOINTS: Array<[method: 'get' | 'put' | 'post' | 'delete', path: (victim: Victim) => string, body?: object]> = [
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
  ['get', () => '/api/audit/verify'],
  ['get', () => '/api/audit/export'],
  ['get', () => '/api/masterdata/categories'],
  ['get', () => '/api/masterdata/job_numbers'],
  ['get', () => '/api/masterdata/cost_codes'],
  ['post', () => '/api/masterdata/categories', { name: 'Pwned' }],
  ['put', (v) => `/api/masterdata/categories/${v.categoryId}`, { name: 'Pwned' }],
  ['delete', (v) => `/api/masterdata/categories/${v.categoryId}`],
  ['post', () => '/api/masterdata/categories/import'],
  ['get', () => '/api/transactions'],
  ['get', (v) => `/api/transactions/${v.transactionId}`],
  ['put', (v) => `/api/transactions/${v.transactionId}`, { description: 'x', category: 'x', job_number: 'x', cost_code: 'x', amount: 1 }],
  ['delete', (v) => `/api/transactions/${v.transactionId}`],
  ['post', () => '/api/transactions/import'],
];

let api: Api;
let victim: Victim;
let intruder: Account;
beforeAll(async () => {
  api = await startApi();
  const v = await registerAccount(api, { companyName: 'Victim Co' });
  const csv = 'Transaction Date,Description,Amount\n2024-02-01,VICTIM SECRET LUNCH,-99.00\n';
  await api.http.post('/api/transactions/import').set(v.headers()).attach('csvFile', Buffer.from(csv), 'v.csv').expect(200);
  const tx = await api.http.get('/api/transactions').set(v.headers());
  const cat = await api.http.post('/api/masterdata/categories').set(v.headers()).send({ name: 'Victim Category' });
  victim = Object.assign(v, { transactionId: tx.body.transactions[0].id as string, categoryId: cat.body.id as string });
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
    expect(text).not.toContain('VICTIM SECRET');
    expect(text).not.toContain('Victim Category');
    // with their own company header, /companies/{victim} paths still refuse
    if (url.includes(victim.companyId)) {
      const own = api.http[method.toLowerCase() as 'get'](url).set(intruder.headers());
      const res2 = body ? await own.send(body) : await own;
      expect([403, 404]).toContain(res2.status);
    }
  });

  it('left the victim company unchanged', async () => {
    const res = await api.http.get('/api/companies/current').set(victim.headers());
    expect(res.body.company).toMatchObject({ name: 'Victim Co', userCount: 1, transactionCount: 1 });
    const tx = await api.http.get(`/api/transactions/${victim.transactionId}`).set(victim.headers());
    expect(tx.body.transaction.description).toBe('VICTIM SECRET LUNCH');
    expect((await api.http.get('/api/masterdata/categories').set(victim.headers())).body).toEqual([{ id: victim.categoryId, name: 'Victim Category' }]);
  });

  it('an intruder using their own company header cannot reach the victim records either', async () => {
    expect((await api.http.get(`/api/transactions/${victim.transactionId}`).set(intruder.headers())).status).toBe(404);
    expect((await api.http.put(`/api/transactions/${victim.transactionId}`).set(intruder.headers()).send({ description: 'x', category: 'x', job_number: 'x', cost_code: 'x', amount: 1 })).status).toBe(404);
    expect((await api.http.delete(`/api/transactions/${victim.transactionId}`).set(intruder.headers())).status).toBe(404);
    expect((await api.http.put(`/api/masterdata/categories/${victim.categoryId}`).set(intruder.headers()).send({ name: 'Pwned' })).status).toBe(404);
  });
});
