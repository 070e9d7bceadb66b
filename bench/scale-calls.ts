/**
 * The product's other calls at a company's real size (issue 13, ADR 0029 decisions 10-13 and 17):
 * every GET the spec lists and the AI calls on one line, timed as the admin and as a member of
 * the big company of a bench/scale-data.ts folder (1,000,000 transactions, 100,000 receipts and
 * matches by default), with /api/health polled beside each slow call (the request thread must
 * stay free). Baseline: /api/health alone, quiet, in the same run.
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
import { generateScaleData, sizesFromEnv } from './scale-data';

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
    let done = false;
    const health: number[] = [];
    const poll = (async () => {
      while (!done) {
        health.push((await call('GET', '/health', {})).ms);
        await sleep(20);
      }
    })();
    const r = await call(method, path, admin.headers, method === 'POST' ? {} : undefined);
    done = true;
    await poll;
    row(`admin ${method} ${path.replace(line, '{id}')}: s; /api/health beside it p99 / max ms`, `${fmt(r.ms / 1000, 2)}; ${fmt(percentile(health, 99), 1)} / ${fmt(Math.max(...health), 1)}`, r.status === 200 ? `${health.length} polls` : `status ${r.status}`);
  }
  console.log(`  load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
} finally {
  await stopServer(server);
  if (!given) rmSync(dir, { recursive: true, force: true });
}
