import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';
import { imageOf, labelledReader, labels } from '../support/labelled-reader';

/**
 * The reads a reviewer works from: one card line's receipts (the images beside a transaction row)
 * and, for every member, only what they may see.
 */
let api: Api;
let ada: Account;
let bo: Account;
const [adaLabel, boLabel] = labels;
const tx = new Map<string, string>();
const receipt = new Map<string, string>();

async function settled(who: Account, id: string) {
  for (let i = 0; i < 200; i++) {
    const r = (await api.http.get(`/api/receipts/${id}`).set(who.headers(ada.companyId))).body.receipt as { processing_status: string };
    if (r.processing_status === 'completed') return;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('receipt never completed');
}

beforeAll(async () => {
  api = await startApi({}, undefined, { reader: labelledReader() });
  ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
  bo = await registerAccount(api, { firstName: 'Bo', lastName: 'Berg' });
  await invite(api, ada, bo, 'user');
  const csv = [
    'Transaction Date,Description,Amount,Category,Job Number,Cost Code,First Name,Last Name',
    `${adaLabel!.date},BLUE HERON CAFE 0042,-${adaLabel!.total.toFixed(2)},,,,Ada,Admin`,
    `${boLabel!.date},GREEN LANTERN HARDWARE,-${boLabel!.total.toFixed(2)},,,,Bo,Berg`,
    '2024-02-11,BLUE HERON BAKERY,-7.25,,,,Bo,Berg',
  ].join('\n');
  expect((await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', Buffer.from(csv), 'feb-statement.csv')).body).toMatchObject({ imported: 3 });
  for (const t of (await api.http.get('/api/transactions').set(ada.headers())).body.transactions as Array<{ id: string; description: string }>) tx.set(t.description, t.id);
  for (const [name, who, l] of [['Ada', ada, adaLabel!], ['Bo', bo, boLabel!]] as const) {
    const up = await api.http.post('/api/receipts/upload').set(who.headers(ada.companyId)).attach('receipt', imageOf(l.id), `${name.toLowerCase()}-${l.id}.jpg`);
    expect(up.status).toBe(201);
    receipt.set(name, up.body.receipt.id);
    await settled(who, up.body.receipt.id);
  }
  const link = (who: Account, receiptId: string, transactionId: string) => api.http.post('/api/matches').set(who.headers(ada.companyId)).send({ receiptId, transactionId });
  expect((await link(ada, receipt.get('Ada')!, tx.get('BLUE HERON CAFE 0042')!)).status).toBeLessThan(300);
  expect((await link(bo, receipt.get('Bo')!, tx.get('GREEN LANTERN HARDWARE')!)).status).toBeLessThan(300);
});
afterAll(() => api?.close());

describe('the receipts of one card line', () => {
  it('GET /matches?transactionId answers that line\'s matches only, within the reader\'s scope', async () => {
    const of = (who: Account, transactionId: string) => api.http.get('/api/matches').query({ transactionId, status: 'confirmed' }).set(who.headers(ada.companyId));
    const cafe = await of(ada, tx.get('BLUE HERON CAFE 0042')!);
    expect(cafe.status).toBe(200);
    expect(cafe.body.map((m: { receipt_id: string }) => m.receipt_id)).toEqual([receipt.get('Ada')]);
    expect((await of(ada, tx.get('GREEN LANTERN HARDWARE')!)).body.map((m: { receipt_id: string }) => m.receipt_id)).toEqual([receipt.get('Bo')]);
    expect((await of(bo, tx.get('GREEN LANTERN HARDWARE')!)).body.map((m: { receipt_id: string }) => m.receipt_id)).toEqual([receipt.get('Bo')]);
    // Bo may not see Ada's line or its receipt.
    expect((await of(bo, tx.get('BLUE HERON CAFE 0042')!)).body).toEqual([]);
    expect((await of(ada, tx.get('BLUE HERON BAKERY')!)).body).toEqual([]);
    // The thumbnail the row shows is the receipt's own small JPEG.
    const thumb = await api.http.get(`/api/receipts/${receipt.get('Bo')}/thumbnail`).set(bo.headers(ada.companyId));
    expect(thumb.status).toBe(200);
    expect(thumb.headers['content-type']).toMatch(/image\/jpeg/);
  });
});

describe('one search over merchant, description, amount and file name (q), scoped', () => {
  const descriptions = async (who: Account, q: string) => {
    const res = await api.http.get('/api/transactions').query({ q }).set(who.headers(ada.companyId));
    expect(res.status, q).toBe(200);
    return (res.body.transactions as Array<{ description: string }>).map((t) => t.description).sort();
  };
  const receiptNames = async (who: Account, q: string) => {
    const res = await api.http.get('/api/receipts').query({ q }).set(who.headers(ada.companyId));
    expect(res.status, q).toBe(200);
    return (res.body.receipts as Array<{ original_filename: string }>).map((r) => r.original_filename).sort();
  };
  const matchReceipts = async (who: Account, q: string) => {
    const res = await api.http.get('/api/matches').query({ q }).set(who.headers(ada.companyId));
    expect(res.status, q).toBe(200);
    return (res.body as Array<{ original_filename: string }>).map((m) => m.original_filename).sort();
  };

  it('/transactions: a fragment of the merchant in any case, the amount, the statement\'s name; a member finds only their own', async () => {
    expect(await descriptions(ada, 'heron')).toEqual(['BLUE HERON BAKERY', 'BLUE HERON CAFE 0042']);
    expect(await descriptions(bo, 'heron')).toEqual(['BLUE HERON BAKERY']);
    expect(await descriptions(bo, 'cafe 00')).toEqual([]);
    expect(await descriptions(ada, '7.25')).toEqual(['BLUE HERON BAKERY']);
    expect(await descriptions(ada, '$7.25')).toEqual(['BLUE HERON BAKERY']);
    expect(await descriptions(bo, boLabel!.total.toFixed(2))).toEqual(['GREEN LANTERN HARDWARE']);
    expect((await descriptions(ada, 'feb-statement')).length).toBe(3);
    // Regular-expression characters are text.
    expect(await descriptions(ada, '.*')).toEqual([]);
    const page = await api.http.get('/api/transactions').query({ q: 'heron', limit: 1 }).set(ada.headers());
    expect(page.body.pagination).toMatchObject({ total: 2, pages: 2 });
    expect((await api.http.get('/api/transactions').query({ q: 'x'.repeat(101) }).set(ada.headers())).status).toBe(400);
  });

  it('/receipts: the merchant read, the file name and the total; a member finds only their own', async () => {
    const adaFile = `ada-${adaLabel!.id}.jpg`;
    const boFile = `bo-${boLabel!.id}.jpg`;
    const merchant = adaLabel!.merchant.slice(0, Math.min(6, adaLabel!.merchant.length)).toLowerCase();
    expect(await receiptNames(ada, merchant)).toContain(adaFile);
    expect(await receiptNames(bo, merchant)).not.toContain(adaFile);
    expect(await receiptNames(ada, 'bo-')).toEqual([boFile]);
    expect(await receiptNames(bo, 'ada-')).toEqual([]);
    expect(await receiptNames(bo, boLabel!.total.toFixed(2))).toEqual([boFile]);
  });

  it('/matches: by either side, and a member never through another member\'s records', async () => {
    expect(await matchReceipts(ada, 'heron cafe')).toEqual([`ada-${adaLabel!.id}.jpg`]);
    expect(await matchReceipts(ada, 'bo-')).toEqual([`bo-${boLabel!.id}.jpg`]);
    expect(await matchReceipts(ada, 'green lantern')).toEqual([`bo-${boLabel!.id}.jpg`]);
    expect(await matchReceipts(bo, 'green lantern')).toEqual([`bo-${boLabel!.id}.jpg`]);
    expect(await matchReceipts(bo, 'heron cafe')).toEqual([]);
    expect(await matchReceipts(bo, 'ada-')).toEqual([]);
    expect(await matchReceipts(ada, 'no such shop')).toEqual([]);
    expect((await matchReceipts(ada, '')).length).toBe(2);
  });
});

