import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';

const BANK = resolve(import.meta.dirname, '../../../shared/data/bank-csv');
const file = (name: string) => readFileSync(resolve(BANK, name));
type Truth = { rows: number; receipt_to_transaction: Record<string, { date: string; description: string; amount: number } | null> };
const truth = (name: string) => JSON.parse(readFileSync(resolve(BANK, name), 'utf8')) as Truth;

let api: Api;
let admin: Account;
let dana: Account;
beforeAll(async () => {
  api = await startApi();
  admin = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
  dana = await registerAccount(api, { firstName: 'Dana', lastName: 'Smith' });
  await invite(api, admin, dana, 'user');
});
afterAll(async () => api.close());

async function listAll(acc: Account, query: Record<string, string> = {}) {
  const res = await api.http.get('/api/transactions').query({ limit: '500', ...query }).set(acc.headers(admin.companyId));
  expect(res.status).toBe(200);
  return res.body as { transactions: Array<Record<string, unknown>>; pagination: { total: number; pages: number } };
}

describe('transaction import', () => {
  it('imports the spec layout, assigns rows to members by name, and every truth line is there', async () => {
    const res = await api.http.post('/api/transactions/import').set(admin.headers()).attach('csvFile', file('spec.csv'), 'spec.csv');
    expect(res.status).toBe(200);
    const t = truth('spec.truth.json');
    expect(res.body.total).toBe(t.rows);
    expect(res.body.imported + res.body.skipped).toBe(t.rows);
    expect(res.body.userMatching.matched).toBeGreaterThan(0);
    expect(res.body.userMatching.details.length).toBeGreaterThanOrEqual(20);
    const all = await listAll(admin);
    expect(all.pagination.total).toBe(res.body.imported);
    const have = new Set(all.transactions.map((x) => `${x.transaction_date}|${x.description}|${x.amount}`));
    for (const line of Object.values(t.receipt_to_transaction)) {
      if (line) expect(have.has(`${line.date}|${line.description}|${line.amount}`)).toBe(true);
    }
    const danas = all.transactions.filter((x) => x.created_by_first_name === 'Dana');
    expect(danas.length).toBeGreaterThan(0);
    const mine = await listAll(dana);
    expect(mine.pagination.total).toBe(danas.length);
    expect(mine.transactions.every((x) => x.user_id === dana.userId)).toBe(true);
  });

  it('re-importing the same file adds nothing', async () => {
    const before = (await listAll(admin)).pagination.total;
    const res = await api.http.post('/api/transactions/import').set(admin.headers()).attach('csvFile', file('spec.csv'), 'spec.csv');
    expect(res.status).toBe(200);
    expect(res.body.imported).toBe(0);
    expect(res.body.skipped).toBe(truth('spec.truth.json').rows);
    expect((await listAll(admin)).pagination.total).toBe(before);
  });

  it('skips the same lines in another layout (same date, description and amount)', async () => {
    const before = (await listAll(admin)).pagination.total;
    const res = await api.http.post('/api/transactions/import').set(admin.headers()).attach('csvFile', file('chase.csv'), 'chase.csv');
    expect(res.status).toBe(200);
    expect(res.body.imported).toBe(0);
    expect((await listAll(admin)).pagination.total).toBe(before);
  });

  it('imports Chase and Capital One statements into fresh companies with signed amounts', async () => {
    for (const name of ['chase', 'capitalone']) {
      const owner = await registerAccount(api);
      const res = await api.http.post('/api/transactions/import').set(owner.headers()).attach('csvFile', file(`${name}.csv`), `${name}.csv`);
      expect(res.status).toBe(200);
      const t = truth(`${name}.truth.json`);
      expect(res.body.imported).toBe(t.rows);
      const all = await api.http.get('/api/transactions').query({ limit: '500' }).set(owner.headers());
      const have = new Set(all.body.transactions.map((x: Record<string, unknown>) => `${x.transaction_date}|${x.description}|${x.amount}`));
      for (const line of Object.values(t.receipt_to_transaction)) if (line) expect(have.has(`${line.date}|${line.description}|${line.amount}`)).toBe(true);
    }
  });

  it('refuses files that are not CSV, empty or binary, and stores nothing', async () => {
    const owner = await registerAccount(api);
    const h = owner.headers();
    const notCsv = await api.http.post('/api/transactions/import').set(h).attach('csvFile', Buffer.from('hello'), 'notes.txt');
    expect(notCsv.status).toBe(400);
    expect(notCsv.body.error).toBe('Please select a CSV file');
    const none = await api.http.post('/api/transactions/import').set(h);
    expect(none.status).toBe(400);
    const empty = await api.http.post('/api/transactions/import').set(h).attach('csvFile', Buffer.alloc(0), 'empty.csv');
    expect(empty.status).toBe(422);
    expect(empty.body.code).toBe('empty_file');
    const binary = await api.http.post('/api/transactions/import').set(h).attach('csvFile', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13, 0, 1, 2, 3, 0, 0, 255]), 'photo.csv');
    expect(binary.status).toBe(422);
    expect(binary.body.code).toBe('binary_file');
    const headerOnly = await api.http.post('/api/transactions/import').set(h).attach('csvFile', Buffer.from('Transaction Date,Description,Amount\n'), 'h.csv');
    expect(headerOnly.status).toBe(422);
    expect(headerOnly.body.code).toBe('header_only');
    const unknown = await api.http.post('/api/transactions/import').set(h).attach('csvFile', Buffer.from('Foo,Bar,Baz\n1,2,3\n4,5,6\n'), 'odd.csv');
    expect(unknown.status).toBe(422);
    expect(unknown.body.code).toBe('mapping_required');
    expect(unknown.body.details.header).toEqual(['Foo', 'Bar', 'Baz']);
    expect((await api.http.get('/api/transactions').set(h)).body.pagination.total).toBe(0);
  });

  it('reports unparsable rows with a reason and imports the rest in one go', async () => {
    const owner = await registerAccount(api);
    const csv = 'Transaction Date,Description,Amount\n2024-01-05,Coffee,-4.50\nnot a date,Broken,-1.00\n2024-01-06,Lunch,abc\n2024-01-07,Taxi,-12.00\n';
    const res = await api.http.post('/api/transactions/import').set(owner.headers()).attach('csvFile', Buffer.from(csv), 'mixed.csv');
    expect(res.status).toBe(200);
    expect(res.body.imported).toBe(2);
    expect(res.body.rowErrors).toHaveLength(2);
    expect(res.body.rowErrors[0].row).toBe(3);
    expect(res.body.rowErrors[0].reason).toBeTruthy();
  });
});

describe('column mapping for unknown layouts', () => {
  it('imports with the mapping the user chose, and remembers it for the next file with that header', async () => {
    const owner = await registerAccount(api);
    const h = owner.headers();
    const csv = 'When,What,How much,Ref\n05/01/2024,Hotel Lisboa,-180.00,A1\n06/01/2024,Taxi,-12.50,A2\n';
    const first = await api.http.post('/api/transactions/import').set(h).attach('csvFile', Buffer.from(csv), 'bank.csv');
    expect(first.status).toBe(422);
    const mapping = { date: 0, description: 1, amount: 2, externalId: 3, dateOrder: 'dmy', amountSign: 'expense-negative' };
    const mapped = await api.http.post('/api/transactions/import').set(h).field('mapping', JSON.stringify(mapping)).attach('csvFile', Buffer.from(csv), 'bank.csv');
    expect(mapped.status).toBe(200);
    expect(mapped.body.imported).toBe(2);
    const next = 'When,What,How much,Ref\n07/01/2024,Dinner,-40.00,A3\n';
    const remembered = await api.http.post('/api/transactions/import').set(h).attach('csvFile', Buffer.from(next), 'bank2.csv');
    expect(remembered.status).toBe(200);
    expect(remembered.body.imported).toBe(1);
    const list = await api.http.get('/api/transactions').set(h);
    expect(list.body.transactions.map((t: { transaction_date: string; amount: number }) => [t.transaction_date, t.amount])).toEqual([
      ['2024-01-07', -40], ['2024-01-06', -12.5], ['2024-01-05', -180],
    ]);
  });
});

describe('transaction list, edit and delete', () => {
  it('pages 50 at a time, sorts by date descending by default, and filters', async () => {
    const page1 = await api.http.get('/api/transactions').set(admin.headers());
    expect(page1.body.transactions).toHaveLength(50);
    const total = page1.body.pagination.total;
    expect(page1.body.pagination.pages).toBe(Math.ceil(total / 50));
    const dates = page1.body.transactions.map((t: { transaction_date: string }) => t.transaction_date);
    expect([...dates].sort().reverse()).toEqual(dates);
    const last = await api.http.get('/api/transactions').query({ page: String(page1.body.pagination.pages) }).set(admin.headers());
    expect(last.body.transactions).toHaveLength(total - 50 * (page1.body.pagination.pages - 1));
    const ranged = await listAll(admin, { startDate: '2018-03-01', endDate: '2018-03-31' });
    expect(ranged.transactions.length).toBeGreaterThan(0);
    expect(ranged.transactions.every((t) => String(t.transaction_date) >= '2018-03-01' && String(t.transaction_date) <= '2018-03-31')).toBe(true);
    const sized = await listAll(admin, { minAmount: '50', maxAmount: '100' });
    expect(sized.transactions.every((t) => Math.abs(Number(t.amount)) >= 50 && Math.abs(Number(t.amount)) <= 100)).toBe(true);
    const byAmount = await listAll(admin, { sortBy: 'amount', sortOrder: 'asc' });
    const amounts = byAmount.transactions.map((t) => Number(t.amount));
    expect([...amounts].sort((a, b) => a - b)).toEqual(amounts);
    const unmatched = await listAll(admin, { status: 'unmatched' });
    expect(unmatched.pagination.total).toBe(total);
    expect((await listAll(admin, { status: 'matched' })).pagination.total).toBe(0);
    const onlyDana = await listAll(admin, { userId: dana.userId });
    expect(onlyDana.transactions.every((t) => t.user_id === dana.userId)).toBe(true);
    const bad = await api.http.get('/api/transactions').query({ sortBy: 'password' }).set(admin.headers());
    expect(bad.status).toBe(400);
  });

  it('edits with validation; users edit only their own; only admins delete', async () => {
    const mine = (await listAll(dana)).transactions[0]!;
    const notMine = (await listAll(admin)).transactions.find((t) => t.user_id !== dana.userId)!;
    const body = { description: 'Fuel for site visit', category: 'PROJECT MANAGER', amount: -24.31, sales_tax: 1.2, job_number: 'J-100', cost_code: '01-3114' };
    const missing = await api.http.put(`/api/transactions/${mine.id}`).set(dana.headers(admin.companyId)).send({ ...body, job_number: ' ' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('Description, category, job number, and cost code are required');
    const badAmount = await api.http.put(`/api/transactions/${mine.id}`).set(dana.headers(admin.companyId)).send({ ...body, amount: 'lots' });
    expect(badAmount.body.error).toBe('Please enter a valid amount');
    const ok = await api.http.put(`/api/transactions/${mine.id}`).set(dana.headers(admin.companyId)).send(body);
    expect(ok.status).toBe(200);
    const got = await api.http.get(`/api/transactions/${mine.id}`).set(dana.headers(admin.companyId));
    expect(got.body.transaction).toMatchObject({ description: 'Fuel for site visit', category_name: 'PROJECT MANAGER', amount: -24.31, sales_tax: 1.2, job_number_name: 'J-100', cost_code_name: '01-3114' });
    const other = await api.http.put(`/api/transactions/${notMine.id}`).set(dana.headers(admin.companyId)).send(body);
    expect(other.status).toBe(404);
    expect((await api.http.get(`/api/transactions/${notMine.id}`).set(dana.headers(admin.companyId))).status).toBe(404);
    const userDelete = await api.http.delete(`/api/transactions/${mine.id}`).set(dana.headers(admin.companyId));
    expect(userDelete.status).toBe(403);
    const before = (await listAll(admin)).pagination.total;
    expect((await api.http.delete(`/api/transactions/${mine.id}`).set(admin.headers())).status).toBe(200);
    expect((await listAll(admin)).pagination.total).toBe(before - 1);
    expect((await api.http.get(`/api/transactions/${mine.id}`).set(admin.headers())).status).toBe(404);
  });

  it('keeps each transaction pointing at the file it came from', async () => {
    const t = (await listAll(admin)).transactions[0]!;
    expect(t.source).toMatchObject({ fileName: 'spec.csv', fileHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });
});
