import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '@paperlink/domain';
import { loadsPdfjs, TaskTimeoutError, WorkerPool } from './pool';
import { asOwner } from './owner';

describe('the worker pool', () => {
  const pool = new WorkerPool({ size: 2 });
  afterAll(() => pool.close());

  it('runs tasks off the calling thread, in parallel, and large results come back whole', async () => {
    const started = performance.now();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const results = await Promise.all([pool.run('spin', { ms: 300 }), pool.run('spin', { ms: 300 })]);
    clearInterval(timer);
    expect(results.map((r) => r.spun)).toEqual([300, 300]);
    expect(results[0]!.items).toHaveLength(10_000);
    expect(results[0]!.items[9_999]).toBe(9_999);
    // The calling thread kept its timers running while the workers spun.
    expect(ticks).toBeGreaterThan(10);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('gives back a task’s typed error with its status, code and message', async () => {
    const error = await pool.run('spin', { ms: 1, fail: { status: 422, code: 'too_many_rows', message: 'Split the file.' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 422, code: 'too_many_rows', message: 'Split the file.' });
  });

  it('stops a worker idle for idleMs (its heap with it), never a busy one, and starts one again on demand', async () => {
    const p = new WorkerPool({ size: 2, idleMs: 300 });
    try {
      await Promise.all([p.run('spin', { ms: 1 }), p.run('spin', { ms: 1 })]);
      expect(p.workers).toBe(2);
      // One worker busy for longer than idleMs: it stays; the idle one goes.
      const busy = p.run('spin', { ms: 900 });
      await new Promise((r) => setTimeout(r, 600));
      expect(p.workers).toBe(1);
      await busy;
      await new Promise((r) => setTimeout(r, 600));
      expect(p.workers).toBe(0);
      expect(await p.run('spin', { ms: 1 })).toMatchObject({ spun: 1 });
      expect(p.workers).toBe(1);
    } finally {
      await p.close();
    }
  });

  it('stops a worker that reads PDFs after pdfIdleMs, sooner than the others', async () => {
    const p = new WorkerPool({ size: 2, idleMs: 60_000, pdfIdleMs: 200 });
    try {
      const pdf = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF');
      await Promise.all([p.run('pdfText', { bytes: new Uint8Array(pdf) }).catch(() => null), p.run('spin', { ms: 1 })]);
      expect(p.workers).toBe(2);
      await new Promise((r) => setTimeout(r, 600));
      expect(p.workers).toBe(1); // the PDF reader went; the other waits its 60 s
    } finally {
      await p.close();
    }
  });

  it('reads PDFs only in workers started with pdfjs loaded ahead of tsx, the same module pdf.ts imports', async () => {
    const p = new WorkerPool({ size: 2 });
    try {
      expect(await p.run('pdfjsProbe', undefined)).toEqual({ preloaded: true, same: true });
      expect(p.workers).toBe(1);
      // Two plain tasks at once: one takes the idle PDF reader (free now), the other a new plain worker.
      await Promise.all([p.run('spin', { ms: 200 }), p.run('spin', { ms: 200 })]);
      expect(p.workers).toBe(2);
      // A PDF task with both idle takes the PDF reader, never the plain worker.
      expect(await p.run('pdfjsProbe', undefined)).toEqual({ preloaded: true, same: true });
      expect(p.workers).toBe(2);
    } finally {
      await p.close();
    }
    const one = new WorkerPool({ size: 1 });
    try {
      await one.run('spin', { ms: 1 });
      expect(one.workers).toBe(1);
      // The pool is full with an idle plain worker: it is stopped and a PDF reader started in its place.
      expect(await one.run('pdfjsProbe', undefined)).toEqual({ preloaded: true, same: true });
      expect(one.workers).toBe(1);
      // With only the PDF reader there, a plain task runs in it rather than wait.
      await one.run('spin', { ms: 1 });
      expect(one.workers).toBe(1);
      expect(await one.run('pdfjsProbe', undefined)).toEqual({ preloaded: true, same: true });
    } finally {
      await one.close();
    }
  });

  it('counts as PDF reading the PDF tasks, a PDF thumbnail and a PDF report (its receipt pages may be PDFs), nothing else', () => {
    for (const task of ['checkPdf', 'pdfText', 'renderPdf'] as const) expect(loadsPdfjs(task, {})).toBe(true);
    expect(loadsPdfjs('thumbnail', { kind: 'pdf' })).toBe(true);
    expect(loadsPdfjs('thumbnail', { kind: 'jpeg' })).toBe(false);
    expect(loadsPdfjs('report', { meta: { format: 'pdf' } })).toBe(true);
    expect(loadsPdfjs('report', { meta: { format: 'excel' } })).toBe(false);
    expect(loadsPdfjs('statement', {})).toBe(false);
  });

  it('stops a task past its time limit, and the pool goes on with a new worker', async () => {
    const error = await pool.run('spin', { ms: 5_000 }, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskTimeoutError);
    // Work over the company's records is not a file someone sent: 503, not "send a smaller file".
    expect(error).toMatchObject({ status: 503, code: 'analysis_too_long' });
    expect(new TaskTimeoutError(60, 'statement')).toMatchObject({ status: 422, code: 'file_too_complex' });
    expect(await pool.run('spin', { ms: 1 })).toMatchObject({ spun: 1 });
  });

  it('sends large inputs in parts and parses statements like the domain does', async () => {
    const csv = Buffer.from(['Date,Description,Amount', ...Array.from({ length: 9_000 }, (_, i) => `2024-01-02,SHOP ${i},-1.${String(i % 100).padStart(2, '0')}`)].join('\n'));
    const parsed = await pool.run('statement', { bytes: new Uint8Array(csv), options: {} });
    expect(parsed.rows).toHaveLength(9_000);
    expect(parsed.rows[8_999]).toMatchObject({ description: 'SHOP 8999', date: '2024-01-02' });
    const proposals = await pool.run('autoMatch', {
      receipts: [{ id: 'r1', totalCents: 1234, date: '2024-01-02', merchant: 'SHOP 5' }],
      transactions: Array.from({ length: 6_000 }, (_, i) => ({ id: `t${i}`, amountCents: -(1000 + i), date: '2024-01-02', description: `SHOP ${i}` })),
      options: {},
    });
    expect(proposals.map((p) => p.transactionId)).toContain('t234');
  });

  describe('shared fairly between companies', () => {
    it('a company runs at most all but one worker: another company\'s task starts at once behind its burst', async () => {
      const p = new WorkerPool({ size: 2 });
      try {
        // Warm both workers, so the measure is the queue, not a thread's start.
        await Promise.all([p.run('spin', { ms: 1 }), p.run('spin', { ms: 1 })]);
        const started = performance.now();
        const burst = Array.from({ length: 4 }, () => asOwner('company:a', () => p.run('spin', { ms: 300 })));
        await new Promise((r) => setTimeout(r, 20));
        const quiet = await asOwner('company:b', async () => {
          await p.run('spin', { ms: 20 });
          return performance.now() - started;
        });
        await Promise.all(burst);
        const busy = performance.now() - started;
        // B did not wait for A's tasks (with one queue it waited for two of them, 600 ms or more).
        expect(quiet).toBeLessThan(busy / 3);
      } finally {
        await p.close();
      }
    });

    it('free workers serve the companies in turn, each in its own order', async () => {
      const p = new WorkerPool({ size: 1 });
      try {
        await p.run('spin', { ms: 1 });
        const order: string[] = [];
        const send = (owner: string, n: number) => asOwner(owner, () => p.run('spin', { ms: 5 }).then(() => order.push(`${owner.slice(-1)}${n}`)));
        const blocker = p.run('spin', { ms: 100 });
        const all = [1, 2, 3].map((n) => send('company:a', n)).concat([1, 2].map((n) => send('company:b', n)), [send('company:c', 1)]);
        await Promise.all([blocker, ...all]);
        expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
      } finally {
        await p.close();
      }
    });
  });
});
