import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CommandBus, planReceipt } from '@paperlink/command-api';
import { SqliteEventStore } from '../eventstore/sqlite';
import { LocalBlobStore } from '../blobs/local';
import { OCR_JOB, ocrJobHandler, type ReceiptReader } from './ocr-job';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-ocrjob-'));
  dirs.push(dir);
  const events = new SqliteEventStore(':memory:');
  const bus = new CommandBus(events);
  const blobs = new LocalBlobStore(join(dir, 'files'));
  const bytes = Buffer.from('pretend image bytes');
  const { sha256 } = await blobs.put(bytes);
  let calls = 0;
  const reader: ReceiptReader = {
    read: async () => {
      calls++;
      return { source: 'ocr', text: 'SHOP\nTOTAL 9.99', fields: { date: '2024-01-02', totalCents: 999, merchant: 'SHOP', taxCents: null, description: null }, confidence: { totalCents: 0.9 }, ocrConfidence: 90, ms: 5 };
    },
  };
  const ctx = { requestId: 'r1', correlationId: 'r1', companyId: 'c1', userId: 'u1', role: 'admin' as const, now: new Date() };
  await bus.run(ctx, () => planReceipt(bus, 'rc1', 'c1', () => ({ type: 'UploadReceipt', data: { receiptId: 'rc1', companyId: 'c1', userId: 'u1', originalName: 'a.jpg', contentType: 'image/jpeg', size: bytes.length, sha256, kind: 'jpeg', duplicateOf: null, via: 'multipart' } }), () => ({})));
  const handler = ocrJobHandler({ bus, blobs, reader });
  const job = { id: 'ocr-rc1-0', type: OCR_JOB, companyId: 'c1', payload: { receiptId: 'rc1', run: 0, sha256 }, causationId: 'e', correlationId: 'r1', attempt: 1 };
  return { events, bus, ctx, handler, job, calls: () => calls };
}

describe('OCR job', () => {
  it('records a run once: running the same job again reads nothing and appends nothing', async () => {
    const { events, handler, job, calls } = await setup();
    await handler.run(job);
    await handler.run(job);
    await handler.run({ ...job, attempt: 2 });
    expect(calls()).toBe(1);
    expect((await events.readStream('receipt-rc1')).map((e) => e.type)).toEqual(['ReceiptUploaded', 'ReceiptProcessingStarted', 'ReceiptRead']);
    await events.close();
  });

  it('ignores a stale run and a receipt deleted meanwhile', async () => {
    const { events, bus, ctx, handler, job, calls } = await setup();
    await handler.run({ ...job, payload: { ...job.payload, run: 3 } });
    expect(calls()).toBe(0);
    await bus.run({ ...ctx, requestId: 'r2' }, () => planReceipt(bus, 'rc1', 'c1', () => ({ type: 'DeleteReceipt', actorId: 'u1', role: 'admin' }), () => ({})));
    await handler.run(job);
    expect(calls()).toBe(0);
    expect((await events.readStream('receipt-rc1')).map((e) => e.type)).toEqual(['ReceiptUploaded', 'ReceiptDeleted']);
    await events.close();
  });
});
