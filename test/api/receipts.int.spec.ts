import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';
import { imageOf, labelledReader, labels } from '../support/labelled-reader';
import { png } from '../support/images';

let api: Api;
let ada: Account;
let bo: Account;
let flaky = false;
const reader = labelledReader({ failing: () => flaky });

beforeAll(async () => {
  api = await startApi({}, undefined, { reader });
  ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
  bo = await registerAccount(api, { firstName: 'Bo', lastName: 'User' });
  await invite(api, ada, bo, 'user');
});
afterAll(() => api?.close());

/**
 * Every receipt file under the data folder's receipt store (not counting temporary ones, nor the
 * print copies the OCR job keeps beside the files it read: `<sha256>.print-v1`, ADR 0018).
 */
function storedFiles(): string[] {
  const root = join(api.dataDir, 'files');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true }).filter((d) => d.isFile() && !d.parentPath.endsWith('tmp') && /^[0-9a-f]{64}$/.test(d.name)).map((d) => d.name);
}

async function upload(who: Account, bytes: Buffer, name: string, companyId?: string) {
  return api.http.post('/api/receipts/upload').set(who.headers(companyId)).attach('receipt', bytes, name);
}

async function settled(who: Account, id: string, companyId?: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const res = await api.http.get(`/api/receipts/${id}`).set(who.headers(companyId));
    const r = res.body.receipt as Record<string, unknown>;
    if (r && (r.processing_status === 'completed' || r.processing_status === 'failed')) return r;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`receipt ${id} never settled`);
}

async function pdf(draw: (doc: PDFKit.PDFDocument) => void): Promise<Buffer> {
  const PDFDocument = (await import('pdfkit')).default;
  const doc = new PDFDocument({ size: 'A6' });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((r) => doc.on('end', () => r()));
  draw(doc);
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

describe('receipts API', () => {
  it('uploads a real receipt (multipart), reads it in the background, and lists it with the spec fields', async () => {
    const l = labels[0]!;
    const res = await upload(ada, imageOf(l.id), `${l.id}.jpg`);
    expect(res.status).toBe(201);
    expect(res.body.receipt).toMatchObject({ original_filename: `${l.id}.jpg`, processing_status: 'pending', content_type: 'image/jpeg' });
    const r = await settled(ada, res.body.receipt.id);
    expect(r).toMatchObject({ processing_status: 'completed', extracted_date: l.date, extracted_amount: l.total, extracted_merchant: l.merchant, match_count: 0, match_status: 'unmatched', created_by_first_name: 'Ada' });
    const list = await api.http.get('/api/receipts').set(ada.headers());
    expect(list.body.pagination).toMatchObject({ total: 1, pages: 1 });
    expect(Object.keys(list.body.receipts[0])).toEqual(expect.arrayContaining(['id', 'original_filename', 'upload_date', 'extracted_date', 'extracted_amount', 'extracted_merchant', 'extracted_description', 'file_size', 'processing_status', 'match_count', 'created_by_first_name', 'created_by_last_name']));
  });

  it('takes the presigned path: presign, PUT the bytes to the signed URL, commit', async () => {
    const l = labels[1]!;
    const bytes = imageOf(l.id);
    const pre = await api.http.post('/api/receipts/presign').set(ada.headers()).send({ originalName: 'lunch.jpg', contentType: 'image/jpeg', size: bytes.length });
    expect(pre.status).toBe(200);
    expect(pre.body.uploadUrl).toMatch(/^\/api\/receipts\/direct\//);
    const put = await api.http.put(pre.body.uploadUrl).set('content-type', 'image/jpeg').send(bytes);
    expect(put.status).toBe(200);
    const commit = await api.http.post('/api/receipts/commit').set(ada.headers()).send({ key: pre.body.key, originalName: 'lunch.jpg', size: bytes.length, contentType: 'image/jpeg' });
    expect(commit.status).toBe(201);
    const r = await settled(ada, commit.body.receipt.id);
    expect(r).toMatchObject({ original_filename: 'lunch.jpg', extracted_amount: l.total });
    // A key is one receipt: committing it again is refused, and another member cannot use it.
    expect((await api.http.post('/api/receipts/commit').set(ada.headers()).send({ key: pre.body.key, originalName: 'again.jpg' })).status).toBe(409);
    expect((await api.http.post('/api/receipts/commit').set(bo.headers(ada.companyId)).send({ key: pre.body.key, originalName: 'x.jpg' })).status).toBe(404);
  });

  it('refuses tampered upload links and uploads without a token', async () => {
    const pre = await api.http.post('/api/receipts/presign').set(ada.headers()).send({ originalName: 'a.jpg', contentType: 'image/jpeg', size: 10 });
    // A character well inside the signature (the last base64url character holds padding bits: changing
    // only those decodes to the same bytes, which made this test fail at random).
    const url = pre.body.uploadUrl as string;
    const at = url.length - 10;
    const tampered = url.slice(0, at) + (url[at] === 'A' ? 'B' : 'A') + url.slice(at + 1);
    expect((await api.http.put(tampered).send(imageOf(labels[2]!.id))).status).toBe(401);
    expect((await api.http.post('/api/receipts/presign').send({ originalName: 'a.jpg' })).status).toBe(401);
    expect((await api.http.post('/api/receipts/presign').set(ada.headers()).send({ originalName: 'big.jpg', size: 11 * 1024 * 1024 })).status).toBe(413);
  });

  it('refuses every bad file with a clear 4xx and stores nothing', async () => {
    const before = storedFiles().length;
    const jpeg = imageOf(labels[3]!.id);
    const cases: Array<[string, Buffer, number, string]> = [
      ['text with a .jpg name', Buffer.from('just some text, not an image at all'), 415, 'unsupported_type'],
      ['a Word file named .pdf', Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(600)]), 415, 'unsupported_type'],
      ['a pixel bomb', png(50_000, 50_000), 400, 'too_many_pixels'],
      ['a truncated JPEG', jpeg.subarray(0, Math.floor(jpeg.length / 2)), 400, 'truncated'],
      ['a PNG without its end', png(100, 100, { withEnd: false }), 400, 'truncated'],
      ['an empty file', Buffer.alloc(0), 400, 'empty'],
      ['a PDF with no text and blank pages.pdf', await pdf(() => {}), 400, 'pdf_without_content'],
      ['a damaged PDF.pdf', Buffer.concat([Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n'), Buffer.alloc(300, 0x41), Buffer.from('\n%%EOF\n')]), 400, 'corrupt'],
    ];
    for (const [what, bytes, status, code] of cases) {
      const res = await upload(ada, bytes, what.includes('.pdf') ? 'x.pdf' : 'x.jpg');
      expect({ what, status: res.status, code: res.body.code }).toEqual({ what, status, code });
      expect(typeof res.body.error).toBe('string');
    }
    const big = Buffer.concat([jpeg, Buffer.alloc(10 * 1024 * 1024)]);
    const res = await upload(ada, big, 'big.jpg');
    expect(res.status).toBe(413);
    // The same checks guard the direct path.
    const pre = await api.http.post('/api/receipts/presign').set(ada.headers()).send({ originalName: 'x.jpg', size: 20 });
    expect((await api.http.put(pre.body.uploadUrl).send(Buffer.from('not an image'))).status).toBe(415);
    expect(storedFiles().length).toBe(before);
    expect((await api.http.get('/api/receipts').set(ada.headers())).body.pagination.total).toBe(2);
  });

  it('flags the same bytes uploaded twice and finds duplicates by bytes or by merchant, date and amount', async () => {
    const l = labels[4]!;
    const first = await upload(ada, imageOf(l.id), 'first.jpg');
    const second = await upload(ada, imageOf(l.id), 'second.jpg');
    expect(second.body.duplicate).toBe(true);
    expect(second.body.receipt.duplicate_of).toBe(first.body.receipt.id);
    await settled(ada, second.body.receipt.id);
    const check = await api.http.post(`/api/receipts/${second.body.receipt.id}/duplicate-check`).set(ada.headers());
    expect(check.body.duplicateAnalysis.isDuplicate).toBe(true);
    expect(check.body.duplicateAnalysis.duplicates.map((d: { id: string }) => d.id)).toEqual([first.body.receipt.id]);
    const solo = await api.http.get(`/api/receipts/${(await api.http.get('/api/receipts?sortBy=upload_date&sortOrder=asc').set(ada.headers())).body.receipts[0].id}/duplicates`).set(ada.headers());
    expect(solo.body.duplicateAnalysis).toEqual({ isDuplicate: false, duplicates: [] });
  });

  it('serves view, download and thumbnail with their types, and keeps members to their own receipts', async () => {
    const l = labels[5]!;
    const mine = await upload(bo, imageOf(l.id), 'bo receipt.jpg', ada.companyId);
    const id = mine.body.receipt.id as string;
    const view = await api.http.get(`/api/receipts/${id}/view`).set(bo.headers(ada.companyId)).buffer(true);
    expect(view.headers['content-type']).toBe('image/jpeg');
    expect(Buffer.compare(view.body as Buffer, imageOf(l.id))).toBe(0);
    const dl = await api.http.get(`/api/receipts/${id}/download`).set(bo.headers(ada.companyId));
    expect(dl.headers['content-disposition']).toContain('attachment; filename="bo receipt.jpg"');
    const thumb = await api.http.get(`/api/receipts/${id}/thumbnail`).set(bo.headers(ada.companyId)).buffer(true);
    expect(thumb.headers['content-type']).toBe('image/jpeg');
    expect((thumb.body as Buffer).length).toBeLessThan(imageOf(l.id).length);
    // Bo sees only his; Ada (admin) sees all, and can filter by user.
    expect((await api.http.get('/api/receipts').set(bo.headers(ada.companyId))).body.pagination.total).toBe(1);
    const adaList = await api.http.get('/api/receipts').query({ userId: bo.userId }).set(ada.headers());
    expect(adaList.body.receipts.map((r: { id: string }) => r.id)).toEqual([id]);
    const adasReceipt = (await api.http.get('/api/receipts').query({ userId: ada.userId }).set(ada.headers())).body.receipts[0].id;
    for (const path of ['', '/view', '/download', '/thumbnail', '/duplicates']) {
      expect((await api.http.get(`/api/receipts/${adasReceipt}${path}`).set(bo.headers(ada.companyId))).status).toBe(404);
    }
    expect((await api.http.put(`/api/receipts/${adasReceipt}`).set(bo.headers(ada.companyId)).send({ extracted_merchant: 'X' })).status).toBe(404);
    expect((await api.http.delete(`/api/receipts/${adasReceipt}`).set(bo.headers(ada.companyId))).status).toBe(404);
    // Another company sees none of it.
    const eve = await registerAccount(api);
    expect((await api.http.get(`/api/receipts/${id}`).set(eve.headers())).status).toBe(404);
    expect((await api.http.get(`/api/receipts/${id}`).set(eve.headers(ada.companyId))).status).toBe(403);
  });

  it('records corrections as events, validates them, and keeps them when OCR runs again', async () => {
    const l = labels[6]!;
    const up = await upload(ada, imageOf(l.id), 'c.jpg');
    const id = up.body.receipt.id as string;
    const read = await settled(ada, id);
    // Where each field was read, for the details view to outline (page fractions).
    expect(read.field_boxes).toEqual({ merchant: [0.1, 0.05, 0.9, 0.1], date: [0.1, 0.2, 0.6, 0.24], totalCents: [0.5, 0.7, 0.9, 0.74] });
    expect((await api.http.put(`/api/receipts/${id}`).set(ada.headers()).send({ extracted_date: '2024-02-30' })).status).toBe(400);
    expect((await api.http.put(`/api/receipts/${id}`).set(ada.headers()).send({ extracted_amount: 'abc' })).status).toBe(400);
    // the money rule of imports and transaction edits (two decimals, at most 999,999,999.99)
    for (const bad of [12.345, 1000000000, 1e13, -99999999999.99]) {
      const refused = await api.http.put(`/api/receipts/${id}`).set(ada.headers()).send({ extracted_amount: bad });
      expect(refused.status, String(bad)).toBe(400);
      expect(refused.body.error).toBe('Amount must have at most 2 decimal places and at most 999,999,999.99');
    }
    expect((await api.http.put(`/api/receipts/${id}`).set(ada.headers()).send({ extracted_tax: 0.001 })).body.details[0].field).toBe('extracted_tax');
    const fix = await api.http.put(`/api/receipts/${id}`).set(ada.headers()).send({ extracted_merchant: 'Corner Cafe', extracted_amount: 12.5 });
    expect(fix.status).toBe(200);
    expect(fix.body.receipt).toMatchObject({ extracted_merchant: 'Corner Cafe', extracted_amount: 12.5, extracted_date: l.date });
    expect(fix.body.receipt.corrected_fields.sort()).toEqual(['merchant', 'totalCents']);
    // A corrected value was not read where its box was: only the date keeps its box.
    expect(fix.body.receipt.field_boxes).toEqual({ date: [0.1, 0.2, 0.6, 0.24] });
    const again = await api.http.post(`/api/receipts/${id}/reprocess`).set(ada.headers());
    expect(again.status).toBe(200);
    const r = await settled(ada, id);
    expect(r).toMatchObject({ processing_status: 'completed', extracted_merchant: 'Corner Cafe', extracted_amount: 12.5, extracted_date: l.date });
    const events = await api.paperlink.adapters.events.readStream(`receipt-${id}`);
    expect(events.map((e) => e.type)).toEqual(['ReceiptUploaded', 'ReceiptProcessingStarted', 'ReceiptRead', 'ReceiptCorrected', 'ReceiptReprocessRequested', 'ReceiptProcessingStarted', 'ReceiptRead']);
    expect((events[2]!.data as { text: string }).text).toContain('TOTAL');
  });

  it('ends in failed with the reason after retries, keeps the file, and reads it on request', async () => {
    flaky = true;
    const l = labels[7]!;
    const up = await upload(ada, imageOf(l.id), 'f.jpg');
    const id = up.body.receipt.id as string;
    const failed = await (async () => {
      for (let i = 0; i < 400; i++) {
        const r = (await api.http.get(`/api/receipts/${id}`).set(ada.headers())).body.receipt;
        if (r.processing_status === 'failed') return r;
        await new Promise((res) => setTimeout(res, 50));
      }
      throw new Error('never failed');
    })();
    expect(failed.failure_reason).toContain('engine crashed');
    flaky = false;
    expect((await api.http.get(`/api/receipts/${id}/view`).set(ada.headers())).status).toBe(200);
    await api.http.post(`/api/receipts/${id}/reprocess`).set(ada.headers()).expect(200);
    expect(await settled(ada, id)).toMatchObject({ processing_status: 'completed', failure_reason: null, extracted_amount: l.total });
  }, 30_000);

  it('accepts a PDF with no text but something printed (a scan to OCR), and when OCR finds no text ends it in failed with the reason, keeping the file', async () => {
    const up = await upload(ada, await pdf((doc) => doc.rect(20, 20, 40, 40).stroke()), 'blank.pdf');
    expect(up.status).toBe(201);
    expect(up.body.receipt.content_type).toBe('application/pdf');
    const r = await settled(ada, up.body.receipt.id);
    expect(r).toMatchObject({ processing_status: 'failed', failure_reason: 'No text was found in this file. Check that it is a receipt, or upload a clearer scan.' });
    const view = await api.http.get(`/api/receipts/${up.body.receipt.id}/view`).set(ada.headers());
    expect(view.headers['content-type']).toBe('application/pdf');
    await api.http.delete(`/api/receipts/${up.body.receipt.id}`).set(ada.headers()).expect(200);
  });

  it('filters, sorts and pages receipts (20 a page by default)', async () => {
    const all = (await api.http.get('/api/receipts').query({ limit: 100 }).set(ada.headers())).body.receipts as Array<{ id: string; extracted_amount: number | null; processing_status: string }>;
    const asc = (await api.http.get('/api/receipts').query({ sortBy: 'extracted_amount', sortOrder: 'asc' }).set(ada.headers())).body.receipts as typeof all;
    const amounts = asc.map((r) => r.extracted_amount).filter((a): a is number => a !== null);
    expect(amounts).toEqual([...amounts].sort((a, b) => a - b));
    const done = (await api.http.get('/api/receipts').query({ processingStatus: 'completed' }).set(ada.headers())).body;
    expect(done.pagination.total).toBe(all.filter((r) => r.processing_status === 'completed').length);
    const page = (await api.http.get('/api/receipts').query({ limit: 2, page: 2 }).set(ada.headers())).body;
    expect(page.receipts).toHaveLength(2);
    expect(page.pagination.pages).toBe(Math.ceil(all.length / 2));
    expect((await api.http.get('/api/receipts').query({ processingStatus: 'nope' }).set(ada.headers())).status).toBe(400);
  });

  it('deletes a receipt: gone from reads, its file kept for other receipts with the same bytes', async () => {
    const list = (await api.http.get('/api/receipts').query({ limit: 100 }).set(ada.headers())).body.receipts as Array<{ id: string; original_filename: string }>;
    const second = list.find((r) => r.original_filename === 'second.jpg')!;
    const first = list.find((r) => r.original_filename === 'first.jpg')!;
    expect((await api.http.delete(`/api/receipts/${second.id}`).set(ada.headers())).body).toMatchObject({ message: 'Receipt deleted successfully' });
    expect((await api.http.get(`/api/receipts/${second.id}`).set(ada.headers())).status).toBe(404);
    expect((await api.http.get(`/api/receipts/${first.id}/view`).set(ada.headers())).status).toBe(200);
  });
});
