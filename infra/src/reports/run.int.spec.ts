/**
 * A report's flow control and abort, through the real worker pool: a response that does not
 * take bytes stops the rendering (rows stop being asked for) instead of filling memory, and a
 * client that goes away stops the worker, which is then free for the next task.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { ReportMeta, ReportRow, ReportSource } from '@paperlink/domain';
import { WorkerPool } from '../workers/pool';
import { HIGH_WATER } from './protocol';
import { renderReport } from './run';

const RECEIPTS_DEV = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'data', 'receipts-dev');
const scan = readFileSync(join(RECEIPTS_DEV, readdirSync(RECEIPTS_DEV).find((f) => f.endsWith('.jpg'))!));
const PAGES = 8;
const PER_PAGE = 30;

const meta: ReportMeta = {
  type: 'transactions', format: 'pdf', title: 'Flow', company: 'Acme', generatedBy: 'Test', generatedAt: '2026-11-23T00:00:00.000Z', period: 'All dates', receiptLinkBase: 'http://localhost',
  settings: { includeMatched: true, includeUnmatched: true, includeOCRData: false, maxPagesPerReceipt: 1, groupBy: 'date', includeAnalytics: false, includeCharts: false, includeSummary: false, includeDetails: true },
};

/** Pages of rows, each row with a receipt scan (so the PDF is large), counting the pages served. */
function source(): ReportSource & { served: number } {
  const s = {
    served: 0,
    async next(): Promise<{ rows: ReportRow[]; done: boolean }> {
      const p = s.served++;
      const rows: ReportRow[] = Array.from({ length: PER_PAGE }, (_, i) => ({
        type: 'transaction', id: `t${p}-${i}`, date: '2026-01-02', description: `Row ${p}-${i}`, amountCents: -100, salesTaxCents: null, category: null, jobNumber: null, costCode: null,
        owner: 'Test', receipts: ['r.jpg'], attachments: [{ receiptId: `r${p}-${i}`, filename: 'r.jpg', kind: 'jpeg', bytes: new Uint8Array(scan) }],
      }));
      return { rows, done: p + 1 >= PAGES };
    },
  };
  return s;
}

const pool = new WorkerPool({ size: 1 });
afterAll(() => pool.close());

const until = async (check: () => boolean, ms: number) => {
  for (const end = Date.now() + ms; Date.now() < end && !check(); ) await new Promise((r) => setTimeout(r, 50));
};

describe('report streaming', () => {
  it('pauses while the response takes no bytes, and finishes once it does', async () => {
    let held: Array<() => void> = [];
    let received = 0;
    let blocked = true;
    const out = new Writable({
      highWaterMark: 64 * 1024,
      write(chunk: Buffer, _e, cb) {
        received += chunk.length;
        if (blocked) held.push(cb);
        else cb();
      },
    });
    const src = source();
    const done = renderReport(pool, { meta, admin: true }, src, out);
    // The worker fills what may be in flight, then waits: rows stop being asked for.
    await until(() => received > 0, 30_000);
    await new Promise((r) => setTimeout(r, 1500));
    const servedWhileBlocked = src.served;
    expect(servedWhileBlocked).toBeLessThan(PAGES);
    expect(received).toBeLessThanOrEqual(HIGH_WATER + 512 * 1024);
    blocked = false;
    for (const cb of held.splice(0)) cb();
    await done;
    out.end();
    expect(src.served).toBe(PAGES);
    expect(received).toBeGreaterThan(PAGES * PER_PAGE * scan.length * 0.9);
    held = [];
  }, 120_000);

  it('stops the worker when the client goes away, and the pool serves the next task', async () => {
    const out = new Writable({
      write(_chunk: Buffer, _e, cb) {
        setTimeout(cb, 5);
      },
    });
    const src = source();
    const done = renderReport(pool, { meta, admin: true }, src, out);
    await until(() => src.served > 1, 30_000);
    out.destroy();
    await expect(done).rejects.toThrow(/client went away/);
    expect(src.served).toBeLessThan(PAGES);
    const spun = await pool.run('spin', { ms: 1 });
    expect(spun.spun).toBe(1);
  }, 120_000);
});
