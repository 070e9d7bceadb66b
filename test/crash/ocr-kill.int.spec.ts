import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../infra/src/eventstore/sqlite';
import { startServerProcess } from '../support/process';
import { labels, RECEIPTS_DEV } from '../support/labelled-reader';

const dir = mkdtempSync(join(tmpdir(), 'paperlink-ocr-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface ReceiptRow {
  id: string;
  processing_status: string;
}

describe('OCR jobs across a crash', () => {
  it('finishes every receipt after a SIGKILL in the middle of OCR, recording each result once', async () => {
    const env = { DATA_DIR: dir, JWT_SECRET: 'y'.repeat(40), OCR_WORKERS: '1' };
    let server = await startServerProcess(env);
    const reg = await fetch(`${server.url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ firstName: 'K', lastName: 'Ill', email: `kill-${Date.now()}@example.com`, password: 'Passw0rdOK', companyName: 'Crash Receipts' }),
    }).then((r) => r.json() as Promise<{ accessToken: string; company: { id: string } }>);
    const headers = { authorization: `Bearer ${reg.accessToken}`, 'x-company-id': reg.company.id };
    const picked = labels.slice(10, 14);
    for (const l of picked) {
      const form = new FormData();
      form.append('receipt', new Blob([readFileSync(join(RECEIPTS_DEV, `${l.id}.jpg`))], { type: 'image/jpeg' }), `${l.id}.jpg`);
      const res = await fetch(`${server.url}/api/receipts/upload`, { method: 'POST', headers, body: form });
      expect(res.status).toBe(201);
    }
    const list = async () => ((await (await fetch(`${server.url}/api/receipts?limit=50`, { headers })).json()) as { receipts: ReceiptRow[] }).receipts;
    // Kill while a receipt is being read (with one worker, the others wait their turn).
    for (let i = 0; i < 600; i++) {
      if ((await list()).some((r) => r.processing_status === 'processing')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const before = await list();
    expect(before.some((r) => r.processing_status === 'processing')).toBe(true);
    expect(before.every((r) => r.processing_status === 'completed')).toBe(false);
    await server.stop('SIGKILL');

    server = await startServerProcess(env);
    let after: ReceiptRow[] = [];
    try {
      for (let i = 0; i < 600; i++) {
        after = await list();
        if (after.every((r) => r.processing_status === 'completed' || r.processing_status === 'failed')) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(after.map((r) => r.processing_status)).toEqual(picked.map(() => 'completed'));
    } finally {
      await server.stop();
    }
    // Each receipt's result is recorded once, though the job of the one being read ran twice.
    const events = new SqliteEventStore(join(dir, 'events.sqlite'));
    try {
      for (const r of after) {
        const types = (await events.readStream(`receipt-${r.id}`)).map((e) => e.type);
        expect(types.filter((t) => t === 'ReceiptRead')).toHaveLength(1);
        expect(types.filter((t) => t === 'ReceiptReadFailed')).toHaveLength(0);
      }
    } finally {
      await events.close();
    }
  }, 240_000);
});
