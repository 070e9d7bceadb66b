/**
 * ADR 0008: a large statement import used to hold the request thread for seconds
 * (200,000 rows stalled /api/health for 28 s; 100,000 rows for 5-10 s here). Parsing runs in
 * the worker pool, and what stays on the request thread (appends, projection, auto-match)
 * yields between slices. /api/health is asked every 20 ms from the moment the upload starts
 * until the rows are listed (and the auto-match run after), and the slowest answer must stay under
 * 1.5 s (generous for a noisy shared 2-core machine; today's main holds it 5-11 s).
 * Also: the row limit per import, stated in the refusal.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';

function statement(rows: number, prefix = 'CARD PURCHASE'): Buffer {
  const lines = ['Transaction Date,Description,Amount,Category'];
  for (let i = 0; i < rows; i++) {
    lines.push(`2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')},${prefix} ${i} STORE ${i % 97},-${(1 + (i % 50_000)) / 100},${['Travel', 'Meals', 'Fuel'][i % 3]}`);
  }
  return Buffer.from(lines.join('\n'));
}

describe('a large statement import', () => {
  let api: Api;
  let owner: Account;
  beforeAll(async () => {
    api = await startApi();
    owner = await registerAccount(api);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('does not hold the server: /api/health answers within 1.5 s throughout a 100,000-row import', async () => {
    const ROWS = 100_000;
    const file = statement(ROWS);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    const latencies: number[] = [];
    let running = true;
    // The client runs in the server's process: a stall lands in its timers as much as in its
    // requests, so an answer's latency counts from when the request was due (20 ms after the last).
    const probe = (async () => {
      let due = performance.now();
      while (running) {
        const res = await api.http.get('/api/health');
        const now = performance.now();
        latencies.push(now - due);
        expect(res.status).toBe(200);
        due = now + 20;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    delay.enable();
    try {
      const res = await api.http.post('/api/transactions/import').set(owner.headers()).attach('csvFile', file, 'big.csv');
      expect(res.status).toBe(200);
      expect(res.body.imported).toBe(ROWS);
      // Until the rows are projected and listed, then a little longer (the auto-match run that follows).
      for (let i = 0; i < 600; i++) {
        const list = await api.http.get('/api/transactions').query({ limit: '1' }).set(owner.headers());
        if (list.body.pagination?.total === ROWS) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      await new Promise((r) => setTimeout(r, 1_500));
    } finally {
      running = false;
      await probe;
      delay.disable();
    }
    const worst = Math.max(...latencies);
    const maxDelayMs = delay.max / 1e6;
    console.log(`health during import: ${latencies.length} answers, slowest ${worst.toFixed(0)} ms; event-loop delay max ${maxDelayMs.toFixed(0)} ms`);
    expect(latencies.length).toBeGreaterThan(20);
    expect(worst).toBeLessThan(1_500);
    expect(maxDelayMs).toBeLessThan(1_500);
  });
});

describe('the row limit of an import', () => {
  let api: Api;
  let owner: Account;
  beforeAll(async () => {
    api = await startApi({ MAX_IMPORT_ROWS: '1000' });
    owner = await registerAccount(api);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('refuses a file with more rows, saying how many it has and how many an import takes', async () => {
    const res = await api.http.post('/api/transactions/import').set(owner.headers()).attach('csvFile', statement(1_001), 'big.csv');
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      code: 'too_many_rows',
      error: 'This file has 1,001 rows; an import takes at most 1,000 rows. Split the file.',
    });
    const list = await api.http.get('/api/transactions').set(owner.headers());
    expect(list.body.pagination.total).toBe(0);
  });

  it('takes a file of exactly the limit', async () => {
    const res = await api.http.post('/api/transactions/import').set(owner.headers()).attach('csvFile', statement(1_000, 'ONLINE ORDER'), 'ok.csv');
    expect(res.status).toBe(200);
    expect(res.body.imported).toBe(1_000);
  });
});
