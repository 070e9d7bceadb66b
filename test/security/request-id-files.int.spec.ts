import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';
import { png } from '../support/images';

/**
 * ADR 0003: two different uploads with one X-Request-Id: the second was acknowledged
 * (the first answer replayed) and dropped, because the fingerprint ignored the file.
 */

const csv = (description: string) => Buffer.from(`Transaction Date,Description,Amount\n2024-03-04,${description},-12.50\n`);

let api: Api;
let acc: Account;
beforeAll(async () => {
  api = await startApi({}, undefined, { noJobs: true });
  acc = await registerAccount(api);
});
afterAll(() => api?.close());

async function receiptCount(): Promise<number> {
  const res = await api.http.get('/api/receipts').query({ limit: '100' }).set(acc.headers());
  expect(res.status).toBe(200);
  return (res.body.receipts as unknown[]).length;
}

describe('one X-Request-Id, two different files', () => {
  it('multipart receipt upload: the same file again is a retry, another file is 409 request_id_reused', async () => {
    const a = png(100, 100, { seed: 1 });
    const b = png(100, 100, { seed: 2 });
    const first = await api.http.post('/api/receipts/upload').set(acc.headers()).set('x-request-id', 'files-upload-0001').attach('receipt', a, 'receipt.png');
    expect(first.status).toBe(201);
    const count = await receiptCount();
    const retry = await api.http.post('/api/receipts/upload').set(acc.headers()).set('x-request-id', 'files-upload-0001').attach('receipt', a, 'receipt.png');
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    const other = await api.http.post('/api/receipts/upload').set(acc.headers()).set('x-request-id', 'files-upload-0001').attach('receipt', b, 'receipt.png');
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('request_id_reused');
    expect(await receiptCount()).toBe(count);
  });

  it('statement import: another file under the same request id is 409 request_id_reused', async () => {
    const first = await api.http.post('/api/transactions/import').set(acc.headers()).set('x-request-id', 'files-import-0001').attach('csvFile', csv('Coffee'), 'statement.csv');
    expect(first.status).toBeLessThan(300);
    const retry = await api.http.post('/api/transactions/import').set(acc.headers()).set('x-request-id', 'files-import-0001').attach('csvFile', csv('Coffee'), 'statement.csv');
    expect(retry.status).toBe(first.status);
    expect(retry.body).toEqual(first.body);
    const other = await api.http.post('/api/transactions/import').set(acc.headers()).set('x-request-id', 'files-import-0001').attach('csvFile', csv('Train ticket'), 'statement.csv');
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('request_id_reused');
  });

  it('direct upload and commit: a commit after another file arrived under the same key and request id is 409', async () => {
    const pre = await api.http.post('/api/receipts/presign').set(acc.headers()).send({ originalName: 'direct.png', contentType: 'image/png', size: 200 });
    expect(pre.status).toBe(200);
    expect((await api.http.put(pre.body.uploadUrl).set('content-type', 'image/png').send(png(100, 100, { seed: 3 }))).status).toBe(200);
    const commit = { key: pre.body.key, originalName: 'direct.png' };
    const first = await api.http.post('/api/receipts/commit').set(acc.headers()).set('x-request-id', 'files-commit-00001').send(commit);
    expect(first.status).toBe(201);
    const retry = await api.http.post('/api/receipts/commit').set(acc.headers()).set('x-request-id', 'files-commit-00001').send(commit);
    expect(retry.body).toEqual(first.body);
    expect((await api.http.put(pre.body.uploadUrl).set('content-type', 'image/png').send(png(100, 100, { seed: 4 }))).status).toBe(200);
    const other = await api.http.post('/api/receipts/commit').set(acc.headers()).set('x-request-id', 'files-commit-00001').send(commit);
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('request_id_reused');
  });

  it('direct upload target: another body under the same request id is 409', async () => {
    const pre = await api.http.post('/api/receipts/presign').set(acc.headers()).send({ originalName: 'direct2.png', contentType: 'image/png', size: 200 });
    const first = await api.http.put(pre.body.uploadUrl).set('x-request-id', 'files-direct-00001').set('content-type', 'image/png').send(png(100, 100, { seed: 5 }));
    expect(first.status).toBe(200);
    const retry = await api.http.put(pre.body.uploadUrl).set('x-request-id', 'files-direct-00001').set('content-type', 'image/png').send(png(100, 100, { seed: 5 }));
    expect(retry.body).toEqual(first.body);
    const other = await api.http.put(pre.body.uploadUrl).set('x-request-id', 'files-direct-00001').set('content-type', 'image/png').send(png(100, 100, { seed: 6 }));
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('request_id_reused');
  });
});
