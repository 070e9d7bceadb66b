import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';

/**
 * Ids like `__proto__` were found as existing records (the master data state
 * was a plain object keyed by id), and company B's `PUT /masterdata/categories/__proto__` moved
 * company C's item into B's list. Every `:id`-like route param is checked at the edge, and no
 * in-memory map is a plain object keyed by input.
 */
const EVIL = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf', '__defineGetter__'];

let api: Api;
let b: Account;
let c: Account;
let cMember: Account;
beforeAll(async () => {
  api = await startApi();
  b = await registerAccount(api, { companyName: 'Company B' });
  c = await registerAccount(api, { companyName: 'Company C' });
  cMember = await registerAccount(api, { companyName: 'Company C2' });
  await invite(api, c, cMember, 'user');
});
afterAll(async () => api.close());

/** Everything company C can read, to compare before and after the attack. */
async function snapshotOfC(): Promise<unknown> {
  const h = c.headers();
  const lists = await Promise.all([
    ...['categories', 'job_numbers', 'cost_codes'].map((k) => api.http.get(`/api/masterdata/${k}`).set(h)),
    api.http.get('/api/transactions').set(h),
    api.http.get('/api/receipts').set(h),
    api.http.get('/api/matches').set(h),
    api.http.get('/api/companies/current/users').set(h),
    api.http.get('/api/companies/current').set(h),
  ]);
  return lists.map((r) => ({ status: r.status, body: r.body }));
}

/** Every route family with an id in its path, as [method, path]; `:id` is replaced by the evil id. */
function routes(companyId: string): Array<[string, string, object?]> {
  return [
    ['put', '/api/masterdata/categories/:id', { name: 'Pwned' }],
    ['delete', '/api/masterdata/categories/:id'],
    ['put', '/api/masterdata/job_numbers/:id', { name: 'Pwned' }],
    ['delete', '/api/masterdata/job_numbers/:id'],
    ['put', '/api/masterdata/cost_codes/:id', { name: 'Pwned' }],
    ['delete', '/api/masterdata/cost_codes/:id'],
    ['get', '/api/transactions/:id'],
    ['put', '/api/transactions/:id', { description: 'Pwned', amount: 1 }],
    ['delete', '/api/transactions/:id'],
    ['get', '/api/receipts/:id'],
    ['get', '/api/receipts/:id/view'],
    ['get', '/api/receipts/:id/download'],
    ['get', '/api/receipts/:id/thumbnail'],
    ['get', '/api/receipts/:id/duplicates'],
    ['post', '/api/receipts/:id/duplicate-check', {}],
    ['put', '/api/receipts/:id', { extracted_merchant: 'Pwned' }],
    ['post', '/api/receipts/:id/reprocess', {}],
    ['delete', '/api/receipts/:id'],
    ['post', '/api/matches/find/:id', {}],
    ['put', '/api/matches/:id/confirm'],
    ['put', '/api/matches/:id/reject'],
    ['delete', '/api/matches/:id'],
    ['put', '/api/companies/current/users/:id/role', { role: 'admin' }],
    ['delete', '/api/companies/current/users/:id'],
    ['get', '/api/companies/:id'],
    ['get', '/api/companies/:id/users'],
    ['put', '/api/companies/:id', { name: 'Pwned' }],
    ['post', '/api/companies/:id/invite', { email: 'x@example.com', role: 'user' }],
    ['put', `/api/companies/${companyId}/users/:id/role`, { role: 'admin' }],
    ['delete', `/api/companies/${companyId}/users/:id`],
  ];
}

type Method = 'get' | 'put' | 'post' | 'delete';

describe('ids like __proto__ and constructor', () => {
  it("company B's PUT /masterdata/categories/__proto__ leaves company C's list alone", async () => {
    // The attack as reported: C touches the id first (today this "succeeds"), then B renames it.
    const before = await snapshotOfC();
    const first = await api.http.put('/api/masterdata/categories/__proto__').set(c.headers()).send({ name: 'Mine' });
    const second = await api.http.put('/api/masterdata/categories/__proto__').set(b.headers()).send({ name: 'Pwned' });
    for (const res of [first, second]) {
      expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    }
    expect(await snapshotOfC()).toEqual(before);
    const bCats = await api.http.get('/api/masterdata/categories').set(b.headers());
    expect(bCats.body).toEqual([]);
  });

  it('every :id route family answers 4xx to prototype names, and nothing of company C changes', async () => {
    await api.http.post('/api/masterdata/categories').set(c.headers()).send({ name: 'Travel' }).expect(201);
    const before = await snapshotOfC();
    const failures: string[] = [];
    for (const id of EVIL) {
      for (const who of [b, c]) {
        for (const [method, path, body] of routes(who.companyId)) {
          const url = path.replace(':id', encodeURIComponent(id));
          let req = api.http[method as Method](url).set(who.headers());
          if (body) req = req.send(body);
          const res = await req;
          if (res.status < 400 || res.status >= 500 || typeof res.body?.code !== 'string') failures.push(`${method.toUpperCase()} ${url} as ${who === b ? 'B' : 'C'} -> ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(await snapshotOfC()).toEqual(before);
  });

  it('an id that is not one of ours is refused at the edge with a clear message', async () => {
    const res = await api.http.put('/api/masterdata/categories/constructor').set(c.headers()).send({ name: 'X' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('invalid_id');
    expect(res.body.error).toMatch(/not a valid id/i);
    // A well-formed id that does not exist is still a plain 404 from the command.
    const missing = await api.http.put('/api/masterdata/categories/0190a5b2-1c2d-7e3f-8a4b-5c6d7e8f9a0b').set(c.headers()).send({ name: 'X' });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('item_not_found');
  });

  it('a cost code cannot point at a prototype name as its category', async () => {
    const res = await api.http.post('/api/masterdata/cost_codes').set(c.headers()).send({ name: '01-1000', category_id: '__proto__' });
    expect(res.status).toBe(400);
    expect((await api.http.get('/api/masterdata/cost_codes').set(c.headers())).body).toEqual([]);
  });

  it('a manual match with prototype names as ids is refused', async () => {
    for (const id of EVIL) {
      const res = await api.http.post('/api/matches').set(c.headers()).send({ receiptId: id, transactionId: id });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
  });
});
