/**
 * The product's other calls at a company's real size (ADR 0029 decisions 10-13 and 17):
 * every GET the spec lists and the AI calls on one line, timed as the admin and as a member of
 * the big company of a lab/scale/scale-data.ts folder (1,000,000 transactions, 100,000 receipts and
 * matches by default), with /api/health polled beside each slow call (the request thread must
 * stay free); then the writes (edits, deletions, corrections, a small import, match decisions),
 * three each, with /api/health polled beside them (SCALE_CALLS_WRITES=0 leaves the folder as it
 * was). Baseline: /api/health alone, quiet, in the same run.
 *
 *   nice node --import tsx bench/scale-calls.ts                 (generates the folder; SCALE_TX etc. for less)
 *   SCALE_CALLS_DIR=/path/to/folder node --import tsx bench/scale-calls.ts   (a folder made by scale-data, reused)
 *
 * The folder is used in place when given (its read models are built on the first start, about
 * 4-5 minutes at 1,000,000 lines); a generated one is removed at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, stopServer } from './child-server';
import { fmt, median, percentile, row } from './lib';
import { generateScaleData, sizesFromEnv } from '../lab/scale/scale-data';

const SECRET = 'scale-bench-signing-secret-0123456789abcdef';
const PASSWORD = 'Passw0rdOK-scale';
const ADMIN = process.env.SCALE_CALLS_ADMIN ?? 'ada.admin.0@scale.example';
const REPEAT = Number(process.env.SCALE_CALLS_REPEAT ?? 9);

const given = process.env.SCALE_CALLS_DIR;
const dir = given ?? mkdtempSync(join(tmpdir(), 'paperlink-scale-calls-'));
if (!given) {
  const t = performance.now();
  await generateScaleData(dir, sizesFromEnv(), { secret: SECRET, log: (l) => console.log(`  generating: ${l}`) });
  console.log(`  generated in ${fmt((performance.now() - t) / 1000, 0)} s`);
}

const server = await startServer(dir, SECRET, { READ_STORE: 'sqlite' });
const base = server.base;

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; ms: number; json: Record<string, unknown> }> {
  const t = performance.now();
  const res = await fetch(`${base}${path}`, { method, headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  const ms = performance.now() - t;
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    /* not JSON */
  }
  return { status: res.status, ms, json };
}

/** Runs `work` with /api/health polled every 20 ms beside it (for `tailMs` after it too); the poll times. */
async function besideHealth<T>(work: () => Promise<T>, tailMs = 0): Promise<{ value: T; health: number[] }> {
  let done = false;
  const health: number[] = [];
  const poll = (async () => {
    while (!done) {
      health.push((await call('GET', '/health', {})).ms);
      await sleep(20);
    }
  })();
  const value = await work();
  if (tailMs > 0) await sleep(tailMs);
  done = true;
  await poll;
  return { value, health };
}

async function login(email: string): Promise<{ headers: Record<string, string>; companyId: string }> {
  for (;;) {
    const r = await call('POST', '/auth/login', {}, { email, password: PASSWORD });
    if (r.status === 200) {
      const user = r.json.user as { currentCompany: { id: string } };
      return { headers: { authorization: `Bearer ${r.json.accessToken as string}`, 'x-company-id': user.currentCompany.id }, companyId: user.currentCompany.id };
    }
    if (r.status !== 503) throw new Error(`login of ${email}: ${r.status} ${JSON.stringify(r.json).slice(0, 200)}`);
    await sleep(2000); // the read models are still being built
  }
}

try {
  // Caught up: the read models hold the whole log, and the jobs the start set off are done.
  const admin = await login(ADMIN);
  const t0 = performance.now();
  for (;;) {
    const d = await call('GET', '/health/details', admin.headers);
    const p = d.json.projections as { lag?: number } | undefined;
    if (d.status === 200 && p?.lag === 0) break;
    await sleep(2000);
  }
  console.log(`  read models caught up ${fmt((performance.now() - t0) / 1000, 0)} s after the first sign-in; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const users = await call('GET', '/companies/current/users', admin.headers);
  const list = (Array.isArray(users.json) ? users.json : (users.json.users as Array<{ email: string; role: string }>)) as Array<{ email: string; role: string }>;
  const memberEmail = list.find((u) => u.role === 'user')?.email;
  if (!memberEmail) throw new Error('no member in the big company');
  const member = await login(memberEmail);

  // Baseline: /api/health alone.
  const quiet: number[] = [];
  for (let i = 0; i < 200; i++) quiet.push((await call('GET', '/health', {})).ms);
  row('/api/health alone (baseline), p50 / p99 ms', `${fmt(median(quiet), 1)} / ${fmt(percentile(quiet, 99), 1)}`);

  const cid = admin.companyId;
  const gets = [
    '/matches?status=pending&limit=50', '/matches?status=confirmed&limit=50', '/matches?status=confirmed&limit=50&offset=500', '/matches/pending?limit=10', '/matches/stats',
    '/receipts?page=1&limit=20', '/receipts?page=50&limit=20', '/transactions?page=1&limit=50', '/transactions?page=1&limit=50&status=unmatched', '/transactions?page=1&limit=50&search=HOME',
    '/analytics/dashboard', '/analytics/dashboard?startDate=2025-01-01&endDate=2025-12-31', '/ai/dashboard/stats', '/ai/categorize/stats', '/ai/duplicates/groups', '/ai/calendar/insights',
    '/ai/matching/stats', '/auth/profile', '/companies', `/companies/${cid}`, '/exports/options', '/settings', '/masterdata/categories',
  ];
  for (const [who, h] of [['admin', admin.headers], ['member', member.headers]] as const) {
    for (const path of gets) {
      const ms: number[] = [];
      let status = 0;
      for (let i = 0; i < REPEAT; i++) {
        const r = await call('GET', path, h);
        status = r.status;
        ms.push(r.ms);
      }
      row(`${who} GET ${path} (ms: first, median, p95)`, `${fmt(ms[0]!, 1)}, ${fmt(median(ms), 1)}, ${fmt(percentile(ms, 95), 1)}`, status === 200 ? '' : `status ${status}`);
    }
  }

  // The slow ones, once each, with /api/health polled every 20 ms beside them.
  const line = ((await call('GET', '/transactions?page=3&limit=5', admin.headers)).json.transactions as Array<{ id: string }>)[0]!.id;
  const slow: Array<[method: string, path: string]> = [
    ['GET', '/ai/matching/recurring/patterns'], ['GET', '/ai/matching/recurring/patterns'],
    ['POST', `/ai/categorize/transaction/${line}`], ['POST', `/ai/recurring/detect/${line}`], ['POST', `/ai/duplicates/check/${line}`],
    ['POST', `/ai/matching/advanced/${line}`], ['POST', `/ai/analyze/comprehensive/${line}`],
  ];
  for (const [method, path] of slow) {
    const { value: r, health } = await besideHealth(() => call(method, path, admin.headers, method === 'POST' ? {} : undefined));
    row(`admin ${method} ${path.replace(line, '{id}')}: s; /api/health beside it p99 / max ms`, `${fmt(r.ms / 1000, 2)}; ${fmt(percentile(health, 99), 1)} / ${fmt(Math.max(...health), 1)}`, r.status === 200 ? `${health.length} polls` : `status ${r.status}`);
  }

  // The writes, three of each (they change the folder; SCALE_CALLS_WRITES=0 skips them), with
  // /api/health polled beside them: the jobs they set off (auto-match of their block) share the
  // request thread.
  if (process.env.SCALE_CALLS_WRITES !== '0') {
    const h = admin.headers;
    const txs = (await call('GET', '/transactions?page=7&limit=20', h)).json.transactions as Array<{ id: string; amount: number }>;
    const rcs = (await call('GET', '/receipts?page=7&limit=20', h)).json.receipts as Array<{ id: string }>;
    const confirmedPage = (await call('GET', '/matches?status=confirmed&limit=20&offset=200', h)).json;
    const confirmed = (Array.isArray(confirmedPage) ? confirmedPage : (confirmedPage.matches as Array<{ id: string }>)) as Array<{ id: string }>;
    const csv = (i: number) => `Date,Description,Amount\n${Array.from({ length: 10 }, (_, k) => `2024-06-${String(k + 1).padStart(2, '0')},BENCH SHOP ${i}-${k},-${(10 + k).toFixed(2)}`).join('\n')}`;
    const writes: Array<[label: string, run: (i: number) => Promise<{ status: number; ms: number }>]> = [
      ['PUT /transactions/{id}', (i) => call('PUT', `/transactions/${txs[i]!.id}`, h, { description: `Edited ${i}`, category: 'Travel', job_number: 'J-1', cost_code: '01-100', amount: txs[i]!.amount })],
      ['DELETE /transactions/{id}', (i) => call('DELETE', `/transactions/${txs[10 + i]!.id}`, h)],
      ['PUT /receipts/{id} (merchant, date)', (i) => call('PUT', `/receipts/${rcs[i]!.id}`, h, { extracted_merchant: `Corrected ${i}`, extracted_date: `2024-02-0${i + 1}` })],
      ['DELETE /receipts/{id}', (i) => call('DELETE', `/receipts/${rcs[10 + i]!.id}`, h)],
      ['POST /matches/find/{id}', (i) => call('POST', `/matches/find/${rcs[5 + i]!.id}`, h, {})],
      ['DELETE /matches/{id} (a confirmed one)', (i) => call('DELETE', `/matches/${confirmed[i]!.id}`, h)],
      ['POST /transactions/import (10 rows)', async (i) => {
        const form = new FormData();
        form.append('csvFile', new Blob([csv(i)], { type: 'text/csv' }), 'bench.csv');
        const t = performance.now();
        const res = await fetch(`${base}/transactions/import`, { method: 'POST', headers: h, body: form });
        await res.arrayBuffer();
        return { status: res.status, ms: performance.now() - t };
      }],
    ];
    for (const [label, run] of writes) {
      // The jobs they set off run for a moment after the answers: polled for a second more.
      const { value: out, health } = await besideHealth(async () => {
        const answers: Array<{ status: number; ms: number }> = [];
        for (let i = 0; i < 3; i++) answers.push(await run(i));
        return answers;
      }, 1000);
      const bad = out.filter((r) => r.status >= 300).map((r) => r.status);
      row(`admin ${label} (ms, each); /api/health beside p99 / max ms`, `${out.map((r) => fmt(r.ms, 0)).join(', ')}; ${fmt(percentile(health, 99), 1)} / ${fmt(Math.max(...health), 1)}`, bad.length ? `status ${bad.join(', ')}` : '');
    }
    // Figures after the company changed (kept answers of before are stale): the first call pays what it reads.
    for (const [who, hh] of [['admin', admin.headers], ['member', member.headers]] as const) {
      for (const path of ['/ai/matching/stats', '/matches/stats', '/analytics/dashboard']) {
        const r = await call('GET', path, hh);
        row(`${who} GET ${path} after the writes (ms)`, fmt(r.ms, 1), r.status === 200 ? '' : `status ${r.status}`);
      }
    }
  }
  console.log(`  load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
} finally {
  await stopServer(server);
  if (!given) rmSync(dir, { recursive: true, force: true });
}
