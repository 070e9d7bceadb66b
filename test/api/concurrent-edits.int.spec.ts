import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';

/**
 * ADR 0024: GET of a transaction, receipt or company answers its revision (ETag, and
 * `revision` in the body); a PUT with If-Match is refused with 412 when someone else changed the
 * record since, and nothing is written; without If-Match a PUT works as before.
 */
let api: Api;
let admin: Account;
let other: Account;
beforeAll(async () => {
  api = await startApi();
  admin = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
  other = await registerAccount(api, { firstName: 'Otto', lastName: 'Other' });
  await invite(api, admin, other, 'admin');
});
afterAll(async () => api.close());

const as = (acc: Account) => acc.headers(admin.companyId);

/** GET a record; its ETag and body revision must agree. */
async function read(acc: Account, path: string, key: string) {
  const res = await api.http.get(path).set(as(acc));
  expect(res.status).toBe(200);
  const body = res.body[key] as Record<string, unknown>;
  expect(res.headers.etag).toBe(`"${body.revision as number}"`);
  return { etag: res.headers.etag as string, body };
}

/** Two editors load the same record; the first saves, the second is refused until they reload. */
async function twoEditors(path: string, key: string, first: object, second: object, expectStaleText: RegExp, changed: (body: Record<string, unknown>) => unknown) {
  const a = await read(admin, path, key);
  const b = await read(other, path, key);
  expect(b.etag).toBe(a.etag);

  const saved = await api.http.put(path).set({ ...as(admin), 'If-Match': a.etag }).send(first);
  expect(saved.status).toBe(200);
  // The reply is the record as it now reads, with its new revision.
  expect(saved.body[key].revision).toBeGreaterThan(a.body.revision as number);

  const stale = await api.http.put(path).set({ ...as(other), 'If-Match': b.etag }).send(second);
  expect(stale.status).toBe(412);
  expect(stale.body).toMatchObject({ code: 'precondition_failed' });
  expect(stale.body.error).toMatch(expectStaleText);
  // Nothing of the second edit was written: the first one stands.
  const after = await read(other, path, key);
  expect(changed(after.body)).toBe(changed(saved.body[key]));
  expect(after.etag).toBe(`"${saved.body[key].revision as number}"`);

  // Reloaded, the second editor saves.
  const retried = await api.http.put(path).set({ ...as(other), 'If-Match': after.etag }).send(second);
  expect(retried.status).toBe(200);
  expect(changed(retried.body[key])).not.toBe(changed(saved.body[key]));

  // A tag that names no revision is refused too; `*` and no If-Match write as before.
  expect((await api.http.put(path).set({ ...as(admin), 'If-Match': '"not-a-revision"' }).send(first)).status).toBe(412);
  expect((await api.http.put(path).set({ ...as(admin), 'If-Match': '*' }).send(first)).status).toBe(200);
  const plain = await api.http.put(path).set(as(other)).send(second);
  expect(plain.status).toBe(200);
  return plain;
}

describe('concurrent edits', () => {
  it('a transaction: the second editor gets 412, then saves after reloading; without If-Match it works as before', async () => {
    const csv = 'Transaction Date,Description,Amount,Category,Job Number,Cost Code\n2024-03-01,COFFEE SHOP,-4.50,Meals,J1,C1\n';
    const imported = await api.http.post('/api/transactions/import').set(as(admin)).attach('csvFile', Buffer.from(csv), 'one.csv');
    expect(imported.status).toBe(200);
    const list = await api.http.get('/api/transactions').set(as(admin));
    const id = list.body.transactions[0].id as string;
    expect(list.body.transactions[0].revision).toBe(0);
    const edit = (description: string) => ({ description, amount: -4.5, category: 'Meals', job_number: 'J1', cost_code: 'C1' });
    await twoEditors(`/api/transactions/${id}`, 'transaction', edit('Coffee with client'), edit('Coffee, team'), /transaction was changed by someone else\. Reload/, (t) => t.description);
  });

  it('a receipt', async () => {
    const image = await sharp({ create: { width: 40, height: 60, channels: 3, background: { r: 255, g: 255, b: 255 } } }).png().toBuffer();
    const up = await api.http.post('/api/receipts/upload').set(as(admin)).attach('receipt', image, 'blank.png');
    expect(up.status).toBe(201);
    const id = up.body.receipt.id as string;
    // Reading the receipt changes it too: wait until the reader is done.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await api.http.get(`/api/receipts/${id}`).set(as(admin));
      if (['completed', 'failed'].includes(r.body.receipt.processing_status)) break;
      if (Date.now() > deadline) throw new Error('the receipt was never read');
      await new Promise((done) => setTimeout(done, 100));
    }
    await twoEditors(`/api/receipts/${id}`, 'receipt', { extracted_merchant: 'Corner Cafe' }, { extracted_merchant: 'Cafe on the corner' }, /receipt was changed by someone else\. Reload/, (r) => r.extracted_merchant);
  });

  it('the company', async () => {
    const plain = await twoEditors('/api/companies/current', 'company', { name: 'Ada & Co' }, { name: 'Ada and Company' }, /company was changed by someone else\. Reload/, (c) => c.name);
    expect(plain.body.company).toMatchObject({ id: admin.companyId, name: 'Ada and Company' });
  });
});
