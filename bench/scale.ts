/**
 * The embedded profile at a real company's size (ADR 0029). Builds a data folder
 * (lab/scale/scale-data.ts: 1,000,000 transactions, 100,000 receipts, 100,000 matches in their
 * history, 50 members in one company, 4 small companies, one member with 10,000 sign-ins),
 * starts the real server on it as a child process (`node --import tsx infra/src/main.ts`) and
 * measures over HTTP, each figure beside a baseline measured in the same run and its target,
 * marked PASS or MISS (printed, never asserted):
 *   1. first start (projection of everything) and the child's resident memory after it; restart
 *      after kill -9 to a healthy /api/health (target <= 10 s);
 *   2. /api/health and a transactions list during a 100,000-row import, p99 (<= 100 ms), beside
 *      the same on the quiet server;
 *   3. the five queries of bench/transactions.ts, p95 (<= 50 ms); a new deep page after an edit,
 *      p95 (<= 100 ms);
 *   4. confirm, reject and manual match, p95 (<= 30 ms); a refresh for the member with 10,000
 *      sign-ins, p95 (<= 20 ms); auto-match after one new receipt (<= 200 ms);
 *   5. the import of 100,000 rows end to end (until listed) against a raw insert of the same rows
 *      as JSON documents into a SQLite table (<= 2x; bench/import-baseline.ts); `make rebuild` (infra/src/cli/rebuild.ts) against the raw read and JSON
 *      parse of the same events from events.sqlite (<= 3x).
 * Once per read store the checkout accepts (READ_STORE=memory|sqlite; SCALE_READ_STORES picks).
 *
 * Before the first start, the two job reactors (OCR, auto-match) are brought to the log's head
 * with a queue that settles every job at once: in the history every job has run (its results
 * are events in the log); otherwise the first start would re-submit 100,000 OCR jobs.
 *
 *   nice node --import tsx bench/scale.ts          (sizes: see lab/scale/scale-data.ts; try SCALE_TX=50000 first)
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { allProjections, GenerationalReadStore } from '@paperlink/projections';
import type { JobQueue } from '@paperlink/domain';
import { TokenService } from '@paperlink/command-api';
import { createAdapters } from '../infra/src/adapters';
import { ConfigSchema, loadConfig } from '../infra/src/config';
import { dataDir } from '../infra/src/data-dir';
import { Reactor } from '../infra/src/jobs/reactor';
import { ocrJobsFrom } from '../infra/src/receipts/ocr-job';
import { autoMatchJobsFrom } from '../infra/src/matches/matching-job';
import { expectExit, startServer, type ChildServer } from './child-server';
import { fmt, median, percentile, row, textPdf } from './lib';
import { generateScaleData, sizesFromEnv, type Person, type ScaleData } from '../lab/scale/scale-data';
import { indexedInsert, rawInsert, statement } from './import-baseline';

const ROOT = join(import.meta.dirname, '..');
const SECRET = 'scale-bench-signing-secret-0123456789abcdef';
const sizes = sizesFromEnv();
const IMPORT_ROWS = Number(process.env.SCALE_IMPORT_ROWS ?? 100_000);
const QUIET_S = Number(process.env.SCALE_QUIET_S ?? 8);
const SAMPLES = Number(process.env.SCALE_SAMPLES ?? 40);
const AUTO_MATCH_RECEIPTS = Number(process.env.SCALE_AUTOMATCH_RECEIPTS ?? 3);
const STORES = (process.env.SCALE_READ_STORES ?? 'memory,sqlite').split(',').map((s) => s.trim()).filter(Boolean);
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function verdict(value: number, target: number, unit: string): string {
  return `target <= ${target} ${unit}: ${value <= target ? 'PASS' : 'MISS'}`;
}
const trio = (v: number[]) => `${percentile(v, 50).toFixed(1)} / ${percentile(v, 95).toFixed(1)} / ${percentile(v, 99).toFixed(1)}`;

/** Whether this checkout's configuration takes READ_STORE=value (and whether it reads READ_STORE at all). */
function readStoreSupport(value: string): 'yes' | 'no' | 'default-only' {
  const shape = ConfigSchema.shape as Record<string, { safeParse(v: unknown): { success: boolean } } | undefined>;
  const field = shape.READ_STORE;
  if (!field) return value === 'memory' ? 'default-only' : 'no';
  return field.safeParse(value).success ? 'yes' : 'no';
}

function status(pid: number): { rssMb: number; hwmMb: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rssMb: Number(/VmRSS:\s+(\d+)/.exec(s)?.[1] ?? 0) / 1024, hwmMb: Number(/VmHWM:\s+(\d+)/.exec(s)?.[1] ?? 0) / 1024 };
}

// ---------------------------------------------------------------- the server as a child process
type Child = ChildServer;
const startChild = (dir: string, env: Record<string, string>): Promise<Child> => startServer(dir, SECRET, env);

/** Throws when the server process has ended (out of memory, a crash), with the end of its output. */
function alive(child: Child): void {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) throw new Error(`the server ended (${child.proc.exitCode ?? child.proc.signalCode}):\n${child.output().slice(-3000)}`);
}

async function untilHealthy(child: Child, timeoutMs = 600_000): Promise<void> {
  const base = child.base;
  const end = performance.now() + timeoutMs;
  for (;;) {
    alive(child);
    try {
      const res = await fetch(`${base}/health`);
      if (res.ok) return;
    } catch {
      /* not yet */
    }
    if (performance.now() > end) throw new Error('no healthy /api/health');
    await sleep(20);
  }
}

async function api(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  const t = performance.now();
  const res = await fetch(`${base}${path}`, { method, headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  const ms = performance.now() - t;
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, ms };
}

async function login(base: string, who: Person, companyId: string): Promise<{ headers: Record<string, string>; refreshToken: string }> {
  const r = await api(base, 'POST', '/auth/login', { 'x-company-id': companyId }, { email: who.email, password: who.password });
  if (r.status !== 200) throw new Error(`login of ${who.email}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
  return { headers: { authorization: `Bearer ${r.body.accessToken as string}`, 'x-company-id': companyId }, refreshToken: r.body.refreshToken as string };
}

/**
 * Waits until the projections hold the whole log (GET /health/details, as the admin); answers how
 * long it took. The admin's access token is signed here for the session its registration started
 * (a sign-in would need the read models, and its 401s meanwhile would count against the address).
 */
async function untilCaughtUp(child: Child, admin: Person, companyId: string, timeoutMs = 1_800_000): Promise<number> {
  const base = child.base;
  const t = performance.now();
  const { accessToken } = await new TokenService(SECRET).mint({ userId: admin.userId, email: admin.email, firstName: admin.firstName, lastName: admin.lastName, role: 'admin', companyId, sessionId: admin.sessionId, generation: 0, issuedAt: Math.floor(Date.now() / 1000) });
  const headers = { authorization: `Bearer ${accessToken}`, 'x-company-id': companyId };
  for (;;) {
    alive(child);
    const r = await api(base, 'GET', '/health/details', headers);
    const p = r.body.projections as { lag?: number } | undefined;
    if (r.status === 200 && p?.lag === 0) return performance.now() - t;
    if (performance.now() - t > timeoutMs) throw new Error('the projections did not catch up');
    await sleep(200);
  }
}

/** Open-loop requests: /api/health every 50 ms, the first page of transactions every 200 ms. */
function probe(base: string, headers: Record<string, string>) {
  const health: number[] = [];
  const list: number[] = [];
  let errors = 0;
  const inFlight = new Set<Promise<void>>();
  const timed = (path: string, into: number[], h: Record<string, string>) => {
    const t = performance.now();
    const p = fetch(`${base}${path}`, { headers: h }).then(async (res) => {
      await res.arrayBuffer();
      if (res.status !== 200) errors++;
      into.push(performance.now() - t);
    }, () => { errors++; }).finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  const ticks = [setInterval(() => timed('/health', health, {}), 50), setInterval(() => timed('/transactions?limit=50', list, headers), 200)];
  return {
    async stop() {
      for (const t of ticks) clearInterval(t);
      await Promise.all(inFlight);
      return { health, list, errors };
    },
  };
}

// ---------------------------------------------------------------- baselines
/** Every event of the log read and its data (and metadata) parsed, as a projector's input: the floor of a rebuild. */
function rawReadParse(eventsFile: string): { ms: number; events: number } {
  const t = performance.now();
  const db = new Database(eventsFile, { readonly: true });
  let events = 0;
  for (const r of db.prepare('SELECT data, metadata FROM events ORDER BY position').raw().iterate() as IterableIterator<[string, string | null]>) {
    JSON.parse(r[0]);
    if (r[1]) JSON.parse(r[1]);
    events++;
  }
  db.close();
  return { ms: performance.now() - t, events };
}

/** Brings the job reactors to the log's head without running their jobs (see the header). */
async function settleReactors(dir: string, env: Record<string, string>): Promise<number> {
  const t = performance.now();
  const config = loadConfig({ ...env, DATA_DIR: dir, JWT_SECRET: SECRET, WEB_DIST: join(dir, 'no-web') });
  const adapters = await createAdapters(config, dataDir(dir));
  const store = await GenerationalReadStore.open(adapters.readStore, allProjections());
  const settled: JobQueue = { kind: 'settled', register() {}, submit: async () => 'done', pending: () => 0, close: async () => {} };
  const head = await adapters.events.headPosition();
  const reactors = [new Reactor('receipts-ocr', adapters.events, store, settled, ocrJobsFrom), new Reactor('auto-match', adapters.events, store, settled, autoMatchJobsFrom)];
  for (const r of reactors) await r.start();
  while (reactors.some((r) => r.position < head)) await sleep(50);
  for (const r of reactors) await r.stop();
  await store.close();
  await adapters.events.close();
  return performance.now() - t;
}

// ---------------------------------------------------------------- the scenario
async function scenario(data: ScaleData, pristine: string, storeName: string, env: Record<string, string>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `paperlink-scale-${storeName}-`));
  const eventsFile = dataDir(dir).eventsFile;
  copyFileSync(dataDir(pristine).eventsFile, eventsFile);
  const big = data.big;
  const companyId = big.companyId;
  let child: Child | undefined;
  try {
    console.log(`\n-- read store: ${storeName}; load average ${load()}`);
    row('reactors brought to the head (no jobs run) (s)', (await settleReactors(dir, env) / 1000).toFixed(1));

    // 1. First start: everything projected; memory after it; restart after kill -9.
    let t = performance.now();
    child = await startChild(dir, env);
    let peakDuringStart = 0;
    const sampler = setInterval(() => { try { peakDuringStart = Math.max(peakDuringStart, status(child!.proc.pid!).rssMb); } catch { /* gone */ } }, 200);
    await untilHealthy(child);
    const healthyS = (performance.now() - t) / 1000;
    await untilCaughtUp(child, big.admin, companyId);
    const firstS = (performance.now() - t) / 1000;
    clearInterval(sampler);
    row('first start: /api/health answers (s)', healthyS.toFixed(1));
    row('first start: every read model holds the whole log (s)', firstS.toFixed(1), `${fmt(data.events)} events; no target`);
    await sleep(3000);
    const mem = status(child.proc.pid!);
    row('resident memory after the load: VmRSS (MB)', fmt(mem.rssMb), verdict(mem.rssMb, 1536, 'MB'));
    row('resident memory: VmHWM, peak so far (MB)', fmt(mem.hwmMb), `sampled peak during the start ${fmt(peakDuringStart)} MB`);

    expectExit(child);
    child.proc.kill('SIGKILL');
    await new Promise((r) => child!.proc.once('exit', r));
    t = performance.now();
    child = await startChild(dir, env);
    await untilHealthy(child);
    const restartS = (performance.now() - t) / 1000;
    const caught = await untilCaughtUp(child, big.admin, companyId);
    row('restart after kill -9: healthy /api/health (s)', restartS.toFixed(1), verdict(restartS, 10, 's'));
    row('restart after kill -9: read models caught up (s)', (restartS + caught / 1000).toFixed(1), `baseline: first start ${firstS.toFixed(1)} s`);
    const base = child.base;
    // Resident memory at each phase's end, so growth between the load and the import can be placed.
    const phases: string[] = [];
    const mark = (label: string) => phases.push(`${label} ${fmt(status(child!.proc.pid!).rssMb)}`);
    mark('restarted');

    // 2a. The quiet server.
    const admin = await login(base, big.admin, companyId);
    const quietProbe = probe(base, admin.headers);
    await sleep(QUIET_S * 1000);
    const quiet = await quietProbe.stop();
    mark('quiet probe');

    // 3. The five queries of bench/transactions.ts.
    const queries: Array<[string, string]> = [
      ['default page (date desc)', ''],
      ['page 500', 'page=500'],
      ['date range + sort by amount', 'startDate=2022-06-01&endDate=2022-09-30&sortBy=amount&sortOrder=asc'],
      ['category + amount range', 'category=Travel&minAmount=100&maxAmount=300'],
      ['unmatched, sort by description', 'status=unmatched&sortBy=description'],
    ];
    const all: number[] = [];
    // The first request of each filter counts its matches (nothing kept yet): shown apart, not hidden
    // in the warm-up the p95 leaves out.
    const firsts: string[] = [];
    for (const [label, q] of queries) {
      const times: number[] = [];
      for (let i = 0; i < 25; i++) {
        const r = await api(base, 'GET', `/transactions?${q}`, admin.headers);
        if (r.status !== 200) throw new Error(`${label}: ${r.status}`);
        if (i === 0) firsts.push(r.ms.toFixed(0));
        if (i >= 5) times.push(r.ms);
      }
      all.push(...times);
      row(`list: ${label} (ms, median / p95)`, `${median(times).toFixed(1)} / ${percentile(times, 95).toFixed(1)}`);
    }
    row('list: the five queries (ms, p95)', percentile(all, 95).toFixed(1), `${verdict(percentile(all, 95), 50, 'ms')}; the 5 first requests of each left out`);
    row('list: first request of each query, its count not known yet (ms)', firsts.join(' / '), 'no target; in the order above');
    // Filters the five leave out: a page that keeps few rows of its order reads far down its index.
    for (const [label, q] of [['a category with no line', 'category=No%20such%20category'], ['matched, sort by description', 'status=matched&sortBy=description']] as const) {
      const times: number[] = [];
      for (let i = 0; i < 6; i++) times.push((await api(base, 'GET', `/transactions?${q}`, admin.headers)).ms);
      row(`list: ${label} (ms, first / median of the next five)`, `${times[0]!.toFixed(0)} / ${median(times.slice(1)).toFixed(1)}`, 'no target');
    }
    mark('lists');

    // 4. Matches: confirm, reject, manual match (the admin; pending suggestions of the history).
    const floor: number[] = [];
    for (let i = 0; i < SAMPLES; i++) floor.push((await api(base, 'GET', '/health', {})).ms);
    const pending = [...big.pendingMatchIds];
    const decide = async (what: 'confirm' | 'reject') => {
      const times: number[] = [];
      let refused = 0;
      for (let i = 0; i < SAMPLES && pending.length > 0; i++) {
        const id = pending.shift()!;
        const r = await api(base, 'PUT', `/matches/${id}/${what}`, admin.headers);
        if (r.status === 200) times.push(r.ms);
        else if (refused++ === 0) console.log(`  (${what} ${id}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)})`);
      }
      return { times, refused };
    };
    const confirm = await decide('confirm');
    const reject = await decide('reject');
    const manual: number[] = [];
    let manualRefused = 0;
    for (const p of big.manualPairs.slice(0, SAMPLES)) {
      const r = await api(base, 'POST', '/matches', admin.headers, p);
      if (r.status === 200 || r.status === 201) manual.push(r.ms);
      else if (manualRefused++ === 0) console.log(`  (manual match: ${r.status} ${JSON.stringify(r.body).slice(0, 200)})`);
    }
    mark('match decisions');
    const m95 = (v: number[]) => (v.length > 0 ? percentile(v, 95) : Number.NaN);
    row('GET /api/health, one at a time (ms, median / p95)', `${median(floor).toFixed(1)} / ${percentile(floor, 95).toFixed(1)}`, 'baseline: the HTTP floor');
    row('PUT /matches/:id/confirm (ms, median / p95)', `${median(confirm.times).toFixed(1)} / ${m95(confirm.times).toFixed(1)}`, `${verdict(m95(confirm.times), 30, 'ms')}; ${confirm.times.length} ok, ${confirm.refused} refused`);
    row('PUT /matches/:id/reject (ms, median / p95)', `${median(reject.times).toFixed(1)} / ${m95(reject.times).toFixed(1)}`, `${verdict(m95(reject.times), 30, 'ms')}; ${reject.times.length} ok, ${reject.refused} refused`);
    row('POST /matches, manual (ms, median / p95)', `${median(manual).toFixed(1)} / ${m95(manual).toFixed(1)}`, `${verdict(m95(manual), 30, 'ms')}; ${manual.length} ok, ${manualRefused} refused`);

    // 4b. Refresh for the member with 10,000 sign-ins (a sign-in of its own first, timed too).
    const signIns: number[] = [];
    let session = { refreshToken: '' };
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      session = await login(base, data.signInUser, companyId);
      signIns.push(performance.now() - t0);
    }
    const refresh: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const r = await api(base, 'POST', '/auth/refresh', { 'x-company-id': companyId }, { refreshToken: session.refreshToken });
      if (r.status !== 200) throw new Error(`refresh: ${r.status} ${JSON.stringify(r.body)}`);
      session.refreshToken = r.body.refreshToken as string;
      refresh.push(r.ms);
    }
    const ownRefresh: number[] = [];
    let adminRefresh = admin.refreshToken;
    for (let i = 0; i < SAMPLES; i++) {
      const r = await api(base, 'POST', '/auth/refresh', { 'x-company-id': companyId }, { refreshToken: adminRefresh });
      if (r.status !== 200) throw new Error(`refresh: ${r.status}`);
      adminRefresh = r.body.refreshToken as string;
      ownRefresh.push(r.ms);
    }
    mark('sign-ins');
    row(`POST /auth/login, ${fmt(data.sizes.signIns)} sign-ins before (ms, median)`, median(signIns).toFixed(1), 'no target (password hashing included)');
    row(`POST /auth/refresh, ${fmt(data.sizes.signIns)} sign-ins (ms, median / p95)`, `${median(refresh).toFixed(1)} / ${percentile(refresh, 95).toFixed(1)}`, verdict(percentile(refresh, 95), 20, 'ms'));
    row('POST /auth/refresh, the admin (1 sign-in + these) (ms, median / p95)', `${median(ownRefresh).toFixed(1)} / ${percentile(ownRefresh, 95).toFixed(1)}`, 'baseline');

    // 4c. Auto-match after one new receipt: a PDF with a text layer (read without OCR) for a line
    // without a receipt, uploaded by its card holder; the time from the receipt's ReceiptRead to
    // the MatchesSuggested that names it, both as seen in the event log (polled every 5 ms).
    const watcher = new Database(eventsFile, { readonly: true, fileMustExist: true });
    const after = watcher.prepare<[number, string], { position: number; type: string }>("SELECT position, type FROM events WHERE position > ? AND type IN ('ReceiptRead', 'ReceiptReadFailed', 'MatchesSuggested') AND data LIKE ?");
    const head = watcher.prepare<[], { p: number | null }>('SELECT MAX(position) AS p FROM events');
    const autoTimes: number[] = [];
    const autoNotes: string[] = [];
    for (const line of big.freeLines.slice(0, AUTO_MATCH_RECEIPTS)) {
      const owner = big.members.find((m) => m.userId === line.owner)!;
      const ownerSession = await login(base, owner, companyId);
      const amount = (-line.amountCents / 100).toFixed(2);
      const pdf = await textPdf([line.merchant, `Date: ${line.date}`, 'Item 1', `TOTAL ${amount}`]);
      const from = head.get()?.p ?? 0;
      const form = new FormData();
      form.append('receipt', new Blob([pdf], { type: 'application/pdf' }), `scale-${line.transactionId}.pdf`);
      const up = await fetch(`${base}/receipts/upload`, { method: 'POST', headers: ownerSession.headers, body: form });
      const upBody = (await up.json()) as { receipt?: { id: string } };
      if (up.status !== 201 || !upBody.receipt) throw new Error(`upload: ${up.status} ${JSON.stringify(upBody)}`);
      const receiptId = upBody.receipt.id;
      let readAt = 0;
      let suggestedAt = 0;
      let failed = false;
      const end = performance.now() + 300_000;
      while (performance.now() < end && !suggestedAt && !failed) {
        for (const e of after.all(from, `%${receiptId}%`)) {
          if (e.type === 'ReceiptRead' && !readAt) readAt = performance.now();
          if (e.type === 'ReceiptReadFailed') failed = true;
          if (e.type === 'MatchesSuggested' && !suggestedAt) suggestedAt = performance.now();
        }
        await sleep(5);
      }
      if (readAt && suggestedAt) autoTimes.push(suggestedAt - readAt);
      else autoNotes.push(failed ? 'read failed' : readAt ? 'no suggestion within 300 s' : 'not read within 300 s');
    }
    watcher.close();
    mark('receipts uploaded');
    const autoP = autoTimes.length > 0 ? Math.max(...autoTimes) : Number.NaN;
    row('auto-match: ReceiptRead -> its MatchesSuggested (ms, each)', autoTimes.map((x) => x.toFixed(0)).join(', ') || '-', `${verdict(autoP, 200, 'ms')} (the slowest)${autoNotes.length ? `; ${autoNotes.join(', ')}` : ''}`);

    // 3b. A new deep page after an edit (each edit also starts an auto-match run, as in the product).
    const browse: number[] = [];
    const first = await api(base, 'GET', '/transactions', admin.headers);
    const someone = (first.body.transactions as Array<{ id: string; amount: number }>)[0]!;
    const pages = Math.max(1, Math.floor(((first.body.pagination as { pages: number }).pages) / 25));
    for (let i = 0; i < 20; i++) {
      const put = await api(base, 'PUT', `/transactions/${someone.id}`, admin.headers, { description: `Edited ${i}`, category: 'Travel', job_number: 'J-1', cost_code: '01-100', amount: someone.amount });
      if (put.status !== 200) throw new Error(`edit: ${put.status} ${JSON.stringify(put.body).slice(0, 200)}`);
      const r = await api(base, 'GET', `/transactions?page=${1 + i * pages}&sortBy=description`, admin.headers);
      if (r.status !== 200) throw new Error(`deep page: ${r.status}`);
      browse.push(r.ms);
    }
    mark('edits');
    row('resident memory at the end of each phase since the restart: VmRSS (MB)', phases.join(', '));
    row('list: a new deep page after an edit (ms, median / p95)', `${median(browse).toFixed(1)} / ${percentile(browse, 95).toFixed(1)}`, `${verdict(percentile(browse, 95), 100, 'ms')}; baseline: page 500 above`);

    // 2b + 5a. The import of IMPORT_ROWS rows, with the open-loop probe running.
    const csv = statement(IMPORT_ROWS, big.members);
    const rawMs = rawInsert(csv);
    // The floor of the lists' table alone (ADR 0027, 2026-12-02): only where the read models are in SQLite.
    const readModelsFile = join(dir, 'readmodels.sqlite');
    // A folder whose transactions live in another generation's table has no plain one to copy: said, not failed.
    const listsFloor = existsSync(readModelsFile)
      ? await indexedInsert(csv, readModelsFile, companyId).catch((error: unknown) => {
        row('  floor of the lists\' table: not measured', '-', error instanceof Error ? error.message : String(error));
        return undefined;
      })
      : undefined;
    const before = ((await api(base, 'GET', '/transactions?limit=1', admin.headers)).body.pagination as { total: number }).total;
    // The import's own peak: VmHWM started afresh at the resident size before it (Linux: `5` to
    // /proc/<pid>/clear_refs); where that is not permitted, the peak since the restart.
    const memBefore = status(child.proc.pid!);
    let peakReset = true;
    try {
      writeFileSync(`/proc/${child.proc.pid!}/clear_refs`, '5');
    } catch {
      peakReset = false;
    }
    const busyProbe = probe(base, admin.headers);
    t = performance.now();
    // A 503 (the read side behind, ADR 0023) is answered with Retry-After: the client tries again, as the web app does.
    let imp: Response;
    let unavailable = 0;
    for (;;) {
      const form = new FormData();
      form.append('csvFile', new Blob([csv], { type: 'text/csv' }), 'scale-load.csv');
      const sent = performance.now();
      imp = await fetch(`${base}/transactions/import`, { method: 'POST', headers: admin.headers, body: form }).catch((error: unknown) => {
        // undici says only 'fetch failed'; its cause tells a time-out (UND_ERR_HEADERS_TIMEOUT, 300 s) from a dropped connection.
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        throw new Error(`import: fetch failed after ${((performance.now() - sent) / 1000).toFixed(1)} s: ${cause?.code ?? ''} ${cause?.message ?? String(error)}; server output: ${child?.output().slice(-2000) ?? ""}`);
      });
      if (imp.status !== 503 || ++unavailable > 20) break;
      await imp.arrayBuffer();
      await sleep(1000 * Math.min(10, Number(imp.headers.get('retry-after') ?? 1)));
    }
    const impBody = (await imp.json()) as { imported?: number };
    const answeredMs = performance.now() - t;
    if (imp.status !== 200) throw new Error(`import: ${imp.status} ${JSON.stringify(impBody).slice(0, 300)}`);
    for (;;) {
      const total = ((await api(base, 'GET', '/transactions?limit=1', admin.headers)).body.pagination as { total: number }).total;
      if (total >= before + (impBody.imported ?? 0)) break;
      await sleep(100);
    }
    const listedMs = performance.now() - t;
    const busy = await busyProbe.stop();
    row('GET /api/health, quiet (ms, p50 / p95 / p99)', trio(quiet.health), `${quiet.health.length} requests, open loop every 50 ms`);
    row('GET /api/health, during the import (ms, p50 / p95 / p99)', trio(busy.health), `${verdict(percentile(busy.health, 99), 100, 'ms')} (p99); max ${Math.max(...busy.health).toFixed(0)} ms; ${busy.errors} errors`);
    row('GET /transactions first page, quiet (ms, p50 / p95 / p99)', trio(quiet.list), `${quiet.list.length} requests, every 200 ms`);
    row('GET /transactions first page, during (ms, p50 / p95 / p99)', trio(busy.list), `${verdict(percentile(busy.list, 99), 100, 'ms')} (p99); max ${Math.max(...busy.list).toFixed(0)} ms`);
    row(`import of ${fmt(IMPORT_ROWS)} rows: answered (s)`, (answeredMs / 1000).toFixed(2), `imported ${fmt(impBody.imported ?? 0)}; listed after ${(listedMs / 1000).toFixed(2)} s${unavailable > 0 ? `; ${unavailable} answers 503 before (retried)` : ''}`);
    row('raw insert of the same rows into a SQLite table (s)', (rawMs / 1000).toFixed(2), 'as JSON documents keyed by id, one transaction, WAL, synchronous=FULL (bench/import-baseline.ts)');
    // End to end: until the rows are listed (the read models hold them), not only until the answer.
    row('import end to end (listed) / raw insert', (listedMs / rawMs).toFixed(2), `${verdict(listedMs / rawMs, 2, 'x')}; answered / raw insert ${(answeredMs / rawMs).toFixed(2)}`);
    if (listsFloor) {
      row('  floor: the rows as transactions documents into the lists\' table (s)', (listsFloor.ms / 1000).toFixed(2), `${(listsFloor.ms / rawMs).toFixed(2)} x the raw insert; raw SQL, one transaction, into ${fmt(listsFloor.before)} documents with the table's ${listsFloor.indexes} indexes (bench/import-baseline.ts)`);
      row('  import end to end (listed) / the floor', (listedMs / listsFloor.ms).toFixed(2), 'what the events, projectors and other read models add to the lists\' own cost');
    }
    const end = status(child.proc.pid!);
    row('resident memory before the import: VmRSS / VmHWM since the restart (MB)', `${fmt(memBefore.rssMb)} / ${fmt(memBefore.hwmMb)}`, 'baseline for the import\'s peak');
    row('resident memory: the import\'s peak, VmHWM (MB)', fmt(end.hwmMb), `${verdict(end.hwmMb, 1536, 'MB (peak)')}; ${peakReset ? 'peak reset before the request' : 'not resettable here: the peak since the restart'}; VmRSS at the end ${fmt(end.rssMb)} MB`);

    // 5b. Rebuild of every read model (make rebuild) against the raw read and parse of the log.
    await new Promise<void>((resolve) => {
      child!.proc.once('exit', () => resolve());
      expectExit(child!);
      child!.proc.kill('SIGTERM');
    });
    child = undefined;
    const raw = rawReadParse(eventsFile);
    t = performance.now();
    const rebuild = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'infra/src/cli/rebuild.ts')], { cwd: ROOT, env: { ...process.env, ...env, DATA_DIR: dir, JWT_SECRET: SECRET }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const wallS = (performance.now() - t) / 1000;
    if (rebuild.status !== 0) throw new Error(`rebuild failed: ${rebuild.stderr.slice(-2000)}`);
    const m = /Rebuilt (\d+) events in ([\d.]+) s/.exec(rebuild.stdout);
    const rebuildS = m ? Number(m[2]) : wallS;
    row('raw read + JSON.parse of every event (s)', (raw.ms / 1000).toFixed(2), `${fmt(raw.events)} events, ${fmt(statSync(eventsFile).size / 2 ** 20)} MB file`);
    row('make rebuild: every read model (s)', rebuildS.toFixed(2), `process wall ${wallS.toFixed(1)} s (start and store close included)`);
    row('rebuild / raw read and parse', (rebuildS / (raw.ms / 1000)).toFixed(2), verdict(rebuildS / (raw.ms / 1000), 3, 'x'));
    console.log(`  load average after: ${load()}`);
  } finally {
    if (child) {
      expectExit(child);
      child.proc.kill('SIGKILL');
      await new Promise((r) => child!.proc.once('exit', r));
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- main
console.log(`Issue 13 at scale (embedded profile, the server in its own process): ${fmt(sizes.transactions)} transactions, ${fmt(sizes.receipts)} receipts, ${fmt(sizes.matches)} matches, ${sizes.members} members in one company; ${sizes.smallCompanies} small companies of ${fmt(sizes.smallTransactions)} transactions; ${fmt(sizes.signIns)} sign-ins of one member. Load average ${load()}`);
const pristine = mkdtempSync(join(tmpdir(), 'paperlink-scale-data-'));
try {
  const data = await generateScaleData(pristine, sizes, { secret: SECRET, log: (l) => console.log(`  generating: ${l}`) });
  row('data folder written to the event store (s)', (data.ms / 1000).toFixed(1), `${fmt(data.events)} events, ${fmt(statSync(dataDir(pristine).eventsFile).size / 2 ** 20)} MB`);
  for (const name of STORES) {
    const support = readStoreSupport(name);
    if (support === 'no') {
      console.log(`\n-- read store: ${name}: not available in this checkout (READ_STORE=${name} is not accepted by infra/src/config.ts)`);
      continue;
    }
    if (support === 'default-only') console.log(`\n   (READ_STORE is not read by this checkout: "${name}" is its only embedded read store)`);
    try {
      await scenario(data, pristine, name, support === 'yes' ? { READ_STORE: name } : {});
    } catch (error) {
      // One read store's failure (its server out of memory, say) is a figure too; the next one still runs.
      process.exitCode = 1;
      console.log(`  FAILED with READ_STORE=${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  console.log('\n  The last acceptance item (SIGKILL under concurrent writers, every 2xx present, read models equal a full rebuild):');
  console.log('  npx vitest run --project int test/crash/sigkill.int.spec.ts');
} finally {
  rmSync(pristine, { recursive: true, force: true });
}
