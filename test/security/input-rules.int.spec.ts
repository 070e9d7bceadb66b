import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';

/**
 * ADR 0006: amounts that import accepts are amounts that edit accepts (one money rule:
 * two decimals at most, at most 999,999,999.99), and control characters and text direction
 * overrides in names and emails are refused with a clear 400.
 */
let api: Api;
let admin: Account;
beforeAll(async () => {
  api = await startApi();
  admin = await registerAccount(api);
});
afterAll(async () => api.close());

async function listAll(who: Account): Promise<Array<Record<string, unknown>>> {
  const res = await api.http.get('/api/transactions').query({ limit: '500' }).set(who.headers());
  expect(res.status).toBe(200);
  return res.body.transactions;
}

describe('one money rule for import and edit', () => {
  const csv = [
    'Transaction Date,Description,Amount',
    '2024-03-01,OK SMALL,-24.31',
    '2024-03-02,OK LARGEST,-999999999.99',
    '2024-03-03,THREE DECIMALS,-12.345',
    '2024-03-04,TOO LARGE,-1000000000.00',
    '2024-03-05,WAY TOO LARGE,-99999999999999999999',
    '2024-03-06,TRAILING ZERO,-7.500',
  ].join('\n');

  it('import refuses what edit refuses, and says why', async () => {
    const res = await api.http.post('/api/transactions/import').set(admin.headers()).attach('csvFile', Buffer.from(csv), 'rules.csv');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rows = await listAll(admin);
    expect(rows.map((r) => r.description).sort()).toEqual(['OK LARGEST', 'OK SMALL', 'TRAILING ZERO']);
    expect(res.body.rejected).toBe(3);
    expect(res.body.rowErrors).toEqual([
      { row: 4, reason: 'bad amount "-12.345" (at most 2 decimal places and at most 999,999,999.99)' },
      { row: 5, reason: 'amount out of range (at most 2 decimal places and at most 999,999,999.99)' },
      { row: 6, reason: 'amount out of range (at most 2 decimal places and at most 999,999,999.99)' },
    ]);
  });

  it('every amount the import accepted is saved again as it is by an edit', async () => {
    for (const row of await listAll(admin)) {
      const body = { description: row.description, category: 'C', job_number: 'J', cost_code: 'K', amount: row.amount, sales_tax: null };
      const res = await api.http.put(`/api/transactions/${row.id}`).set(admin.headers()).send(body);
      expect(res.status, `${row.description}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.transaction.amount).toBe(row.amount);
    }
  });

  it('edit refuses what import refuses, with the same rule in the message', async () => {
    const [row] = await listAll(admin);
    const base = { description: 'X', category: 'C', job_number: 'J', cost_code: 'K', sales_tax: null };
    for (const amount of [-12.345, -1000000000, 1e13, -99999999999999999999, '1e3', 0.1 + 0.2]) {
      const res = await api.http.put(`/api/transactions/${row!.id}`).set(admin.headers()).send({ ...base, amount });
      expect(res.status, String(amount)).toBe(400);
      expect(res.body.error).toMatch(/^Please enter a valid amount/);
    }
    const numeric = await api.http.put(`/api/transactions/${row!.id}`).set(admin.headers()).send({ ...base, amount: -12.345 });
    expect(numeric.body.error).toContain('at most 2 decimal places and at most 999,999,999.99');
    const tax = await api.http.put(`/api/transactions/${row!.id}`).set(admin.headers()).send({ ...base, amount: 1, sales_tax: 0.001 });
    expect(tax.status).toBe(400);
    expect(tax.body.details[0].field).toBe('sales_tax');
    for (const amount of [-999999999.99, '12.30', 0.5, 7]) {
      expect((await api.http.put(`/api/transactions/${row!.id}`).set(admin.headers()).send({ ...base, amount })).status, String(amount)).toBe(200);
    }
  });
});

const UNSAFE: Array<[string, string]> = [
  ['right-to-left override', '\u202e'],
  ['left-to-right embedding', '\u202a'],
  ['pop directional formatting', '\u202c'],
  ['first strong isolate', '\u2068'],
  ['pop directional isolate', '\u2069'],
  ['NUL', '\u0000'],
  ['escape', '\u001b'],
  ['newline', '\n'],
  ['DEL', '\u007f'],
  ['C1 control (CSI)', '\u009b'],
];

describe('control characters and direction overrides in names and emails', () => {
  it.each(UNSAFE)('registration refuses a %s in each name and in the email', async (_label, ch) => {
    const body = { firstName: 'Ann', lastName: 'Lee', email: `ann${Math.random().toString(36).slice(2)}@example.com`, password: 'Passw0rdOK', companyName: 'Acme' };
    for (const [field, value] of [
      ['firstName', `Bob${ch}gnp.exe`],
      ['lastName', `Le${ch}e`],
      ['companyName', `Acme${ch}Corp`],
      ['email', `ann${ch}x@example.com`],
    ] as const) {
      const res = await api.http.post('/api/auth/register').send({ ...body, [field]: value });
      expect(res.status, `${field}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error).toMatch(/control characters or text direction overrides|Email is invalid/);
    }
  });

  it('names and emails with such characters are refused everywhere they can be set', async () => {
    const rlo = '\u202e';
    const profile = await api.http.put('/api/auth/profile').set(admin.headers()).send({ firstName: `Ad${rlo}min`, lastName: 'X' });
    expect(profile.status).toBe(400);
    expect(profile.body.error).toBe('First name cannot contain control characters or text direction overrides');
    const company = await api.http.put('/api/companies/current').set(admin.headers()).send({ name: `Acme${rlo}` });
    expect(company.status).toBe(400);
    expect(company.body.error).toBe('Company name cannot contain control characters or text direction overrides');
    for (const kind of ['categories', 'job_numbers']) {
      const res = await api.http.post(`/api/masterdata/${kind}`).set(admin.headers()).send({ name: `Fuel${rlo}` });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/control characters or text direction overrides/);
    }
    const cat = await api.http.post('/api/masterdata/categories').set(admin.headers()).send({ name: 'Fuel' });
    expect((await api.http.put(`/api/masterdata/categories/${cat.body.id}`).set(admin.headers()).send({ name: `Fu\u0000el` })).status).toBe(400);
    const login = await api.http.post('/api/auth/login').send({ email: `${admin.email}\u0000`, password: admin.password });
    expect(login.status).toBe(400);
    const invite = await api.http.post('/api/companies/current/invite').set(admin.headers()).send({ email: `x${rlo}moc.elpmaxe@evil.com`, role: 'user' });
    expect(invite.status).toBe(400);
    expect(invite.body.error).toBe('Email cannot contain control characters or text direction overrides');
    // The names kept what they were.
    const me = await api.http.get('/api/auth/profile').set(admin.headers());
    expect(JSON.stringify(me.body)).not.toContain(rlo);
    expect((await api.http.get('/api/masterdata/categories').set(admin.headers())).body).toEqual([{ id: cat.body.id, name: 'Fuel' }]);
  });

  it('a master data CSV with such a name reports the row and imports the others', async () => {
    const file = Buffer.from(`Name\nTravel\nEvil\u202eName\nMeals\u2066x\u2069\nParking\n`);
    const res = await api.http.post('/api/masterdata/job_numbers/import').set(admin.headers()).attach('csvFile', file, 'jobs.csv');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.summary.imported).toBe(2);
    expect(res.body.details.errors.map((e: { error: string }) => e.error)).toEqual([
      'Name cannot contain control characters or text direction overrides.',
      'Name cannot contain control characters or text direction overrides.',
    ]);
    const names = (await api.http.get('/api/masterdata/job_numbers').set(admin.headers())).body.map((j: { name: string }) => j.name);
    expect(names).toEqual(['Parking', 'Travel']);
  });

  it('ordinary names in any script still work (accents, Arabic, Hebrew, CJK, an apostrophe)', async () => {
    for (const [firstName, lastName] of [["Zoë", "O'Brien"], ['محمد', 'عبدالله'], ['דוד', 'לוי'], ['美咲', '佐藤']]) {
      const res = await api.http.put('/api/auth/profile').set(admin.headers()).send({ firstName, lastName });
      expect(res.status, `${firstName} ${lastName}`).toBe(200);
    }
  });
});
