/**
 * History and as-of reads at scale (ADR 0017), embedded profile, over HTTP: a company
 * with 100,000 transactions (ten statement imports an hour apart, three members), 2,000
 * receipts, 1,000 matches and a few hundred corrections, written straight to the event log in
 * the product's event shapes and projected by the product's projectors. Times, in the same
 * run: the live transactions list; the same list `asOf` a moment whose replay is not cached
 * (cold: every request a different moment, each after all 100,000 rows; the budget is 2 s; the
 * first replays from position zero, the next ones roll the newest kept earlier state forward)
 * and cached (warm); the replay alone from position zero with no kept state (a replayer of its
 * own, no HTTP); a member's own list as of a moment; and a transaction's history. Figures are
 * printed, not asserted.
 *   node --import tsx bench/history.ts [--rows 100000] [--requests 40] [--cold 8]
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { newId } from '@paperlink/command-api';
import { AsOfReplayer } from '@paperlink/query-api';
import { EmbeddedReadStore } from '../infra/src/readstore/embedded';
import type { EventMetadata, ImportedRow, NewEvent, StreamAppend } from '@paperlink/domain';
import { createPaperlink } from '../infra/src/app';
import { loadConfig } from '../infra/src/config';
import { fmt, median, percentile, row } from './lib';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => Number(args[args.indexOf(name) + 1] || fallback) || fallback;
const ROWS = arg('--rows', 100_000);
const REQUESTS = arg('--requests', 40);
const COLD = arg('--cold', 8);
const IMPORTS = 10;
const ROWS_PER_EVENT = 1000;
const RECEIPTS = 2000;
const MATCHES = 1000;
const EDITS = 300;

const dir = mkdtempSync(join(tmpdir(), 'paperlink-bench-history-'));
const paperlink = await createPaperlink(loadConfig({ DATA_DIR: dir, WEB_DIST: join(dir, 'none') }), { noJobs: true });
const server = createServer(paperlink.app).listen(0, '127.0.0.1');
await new Promise<void>((resolve) => server.once('listening', () => resolve()));
const base = `http://127.0.0.1:${(server.address() as { port: number }).port}/api`;

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  return fetch(`${base}${path}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
}
async function register(firstName: string) {
  const res = await call('POST', '/auth/register', {}, { firstName, lastName: 'Bench', email: `${firstName.toLowerCase()}-${randomUUID().slice(0, 6)}@example.com`, password: 'Passw0rdOK', companyName: `${firstName} Co` });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
  return (await res.json()) as { accessToken: string; user: { id: string; email: string }; company: { id: string } };
}
const ada = await register('Ada');
const companyId = ada.company.id;
const members = [ada, await register('Bo'), await register('Cy')];
const headersOf = (m: (typeof members)[number]) => ({ authorization: `Bearer ${m.accessToken}`, 'x-company-id': companyId });
for (const m of members.slice(1)) {
  const res = await call('POST', '/companies/current/invite', headersOf(ada), { email: m.user.email, role: 'user' });
  if (res.status !== 201) throw new Error(`invite: ${res.status} ${await res.text()}`);
}
console.log(`History and as-of (embedded profile), ${fmt(ROWS)} transactions in ${IMPORTS} imports, ${fmt(RECEIPTS)} receipts, ${fmt(MATCHES)} matches, ${EDITS} corrections; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

// ---- The history, in the product's event shapes, each step a minute or an hour after the last (the log's times grow with its positions). ----
const start = Date.now() + 60_000;
const HOUR = 3_600_000;
const meta = (userId: string | undefined, at: number): EventMetadata => ({ companyId, ...(userId ? { userId } : {}), requestId: randomUUID(), correlationId: randomUUID(), causationId: randomUUID(), occurredAt: new Date(at).toISOString() });
const ev = (type: string, data: unknown, m: EventMetadata): NewEvent => ({ id: randomUUID(), type, data, metadata: m });
const events = paperlink.adapters.events;
const t0 = performance.now();
const txIds: string[] = [];
const owners: string[] = [];
const perImport = Math.ceil(ROWS / IMPORTS);
for (let imp = 0; imp < IMPORTS; imp++) {
  const importId = newId();
  const at = start + imp * HOUR;
  const fileName = `statement-${imp}.csv`;
  const fileHash = randomUUID().replace(/-/g, '');
  const chunk: NewEvent[] = [];
  for (let done = 0; done < perImport && txIds.length < ROWS; ) {
    const rows: ImportedRow[] = [];
    for (; rows.length < ROWS_PER_EVENT && done < perImport && txIds.length < ROWS; done++) {
      const n = txIds.length;
      const owner = members[n % 3]!.user.id;
      const transactionId = newId();
      txIds.push(transactionId);
      owners.push(owner);
      rows.push({ transactionId, row: done + 2, date: new Date(Date.UTC(2025, 0, 1) + (n % 365) * 86_400_000).toISOString().slice(0, 10), description: `MERCHANT ${n}`, amountCents: -(1 + (n * 7919) % 50_000), category: ['Travel', 'Meals', 'Fuel'][n % 3]!, jobNumber: `J-${n % 40}`, costCode: `0${n % 9}-100`, assignedTo: owner, assignment: 'name_matched' });
    }
    chunk.push(ev('TransactionsImported', { importId, companyId, fileName, fileHash, importedBy: ada.user.id, rows }, meta(ada.user.id, at)));
  }
  for (let i = 0; i < chunk.length; i += 10) await events.appendMany([{ streamId: `import-${importId}`, expectedRevision: i === 0 ? 'no_stream' : i - 1, events: chunk.slice(i, i + 10) }]);
  await events.appendMany([{ streamId: `imports-${companyId}`, expectedRevision: 'any', events: [ev('StatementImported', { importId, companyId, fileName, layout: 'bench', fileHash, importedBy: ada.user.id, totalRows: perImport, imported: perImport, skipped: 0, rejected: 0 }, meta(ada.user.id, at))] }]);
}
let clock = start + IMPORTS * HOUR;
const receiptIds: string[] = [];
for (let i = 0; i < RECEIPTS; i += 500) {
  const appends: StreamAppend[] = [];
  for (let k = i; k < Math.min(RECEIPTS, i + 500); k++) {
    const receiptId = newId();
    receiptIds.push(receiptId);
    const m = meta(owners[k], clock);
    appends.push({
      streamId: `receipt-${receiptId}`, expectedRevision: 'no_stream', events: [
        ev('ReceiptUploaded', { receiptId, companyId, userId: owners[k], originalName: `receipt-${k}.jpg`, contentType: 'image/jpeg', size: 120_000, sha256: randomUUID().replace(/-/g, '').padEnd(64, '0'), kind: 'jpeg', duplicateOf: null, via: 'multipart' }, m),
        ev('ReceiptRead', { receiptId, companyId, run: 0, source: 'ocr', text: 'TOTAL', fields: { date: '2025-01-01', totalCents: 100 + k, merchant: 'SHELL OIL', taxCents: null, description: null }, confidence: { totalCents: 0.9 }, ocrConfidence: 88, ms: 900 }, meta(undefined, clock)),
      ],
    });
  }
  await events.appendMany(appends);
  clock += 60_000;
}
const matchIds: string[] = [];
const suggestions = [];
for (let k = 0; k < MATCHES; k++) {
  const matchId = newId();
  matchIds.push(matchId);
  suggestions.push({ matchId, receiptId: receiptIds[k]!, transactionId: txIds[k]!, confidence: 80 + (k % 20), evidence: { reasons: ['amount'], amountKind: 'exact', daysBetween: 0, merchantSimilarity: 1 } });
}
await events.appendMany([{ streamId: `matching-${companyId}`, expectedRevision: 'any', events: [ev('MatchesSuggested', { companyId, origin: 'auto', threshold: 70, by: ada.user.id, suggestions }, meta(ada.user.id, (clock += 60_000)))] }]);
const confirms: NewEvent[] = [];
for (let k = 0; k < MATCHES; k += 2) confirms.push(ev('MatchConfirmed', { companyId, matchId: matchIds[k]!, receiptId: receiptIds[k]!, transactionId: txIds[k]!, receiptName: `receipt-${k}.jpg`, by: ada.user.id }, meta(ada.user.id, (clock += 1000))));
await events.appendMany([{ streamId: `matching-${companyId}`, expectedRevision: 'any', events: confirms }]);
// Corrections, a minute apart: each one a moment of its own, all after every row was imported.
const editTimes: number[] = [];
for (let k = 0; k < EDITS; k++) {
  clock += 60_000;
  editTimes.push(clock);
  await events.appendToStream(`transaction-${txIds[k]!}`, [ev('TransactionUpdated', { transactionId: txIds[k]!, companyId, changes: { description: `CORRECTED ${k}` } }, meta(ada.user.id, clock))], 'any');
}
const head = await events.headPosition();
row('history written to the event log (s)', ((performance.now() - t0) / 1000).toFixed(1), `${fmt(head)} events`);
const t1 = performance.now();
while (!(await paperlink.runner.waitFor(head, 10_000))) if (paperlink.runner.failed) throw paperlink.runner.failed;
row('projected (s)', ((performance.now() - t1) / 1000).toFixed(1), `rss ${fmt(process.memoryUsage().rss / 2 ** 20)} MB`);
await paperlink.adapters.readStore.flush();

async function timed(path: string, headers: Record<string, string>): Promise<{ ms: number; body: unknown; headers: Headers }> {
  const t = performance.now();
  const res = await call('GET', path, headers);
  const body = await res.json();
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return { ms, body, headers: res.headers };
}
const at = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
const total = (b: unknown) => (b as { pagination: { total: number } }).pagination.total;

// ---- Requests. ----
const live: number[] = [];
for (let i = 0; i < REQUESTS + 5; i++) {
  const r = await timed('/transactions', headersOf(ada));
  if (i >= 5) live.push(r.ms);
}
// The replay from position zero, with no kept state to roll forward (a replayer without copies).
const zero: number[] = [];
const zeroLoop = monitorEventLoopDelay({ resolution: 5 });
zeroLoop.enable();
for (let i = 0; i < 3; i++) {
  const fresh = new AsOfReplayer(events, { newStore: () => new EmbeddedReadStore(), fork: null });
  zero.push((await fresh.snapshot(companyId, new Date(editTimes[5 + i]! + 30_000))).ms);
}
zeroLoop.disable();
const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
const cold: number[] = [];
let coldEvents = '';
// CPU time of the process per cold request: the replay's work, less coloured by the machine's load than the wall clock.
const cpuBefore = process.cpuUsage();
for (let i = 0; i < COLD; i++) {
  // A moment between two corrections: a position no earlier request replayed to.
  const moment = editTimes[10 + i * 7]! + 30_000;
  const r = await timed(`/transactions?asOf=${at(moment)}`, headersOf(ada));
  if (total(r.body) !== ROWS) throw new Error(`as-of total ${total(r.body)}, expected ${ROWS}`);
  cold.push(r.ms);
  coldEvents = r.headers.get('x-as-of-position') ?? '';
}
loop.disable();
const cpu = process.cpuUsage(cpuBefore);
const coldCpuMs = (cpu.user + cpu.system) / 1000 / COLD;
const lastMoment = editTimes[10 + (COLD - 1) * 7]! + 30_000;
const warm: number[] = [];
for (let i = 0; i < REQUESTS; i++) warm.push((await timed(`/transactions?asOf=${at(lastMoment)}&page=${1 + (i % 20)}`, headersOf(ada))).ms);
// Half-way through the imports: 50,000 rows.
const half: number[] = [];
for (let i = 0; i < 3; i++) {
  const r = await timed(`/transactions?asOf=${at(start + (IMPORTS / 2 - 1) * HOUR + 60_000 + i * 1000)}`, headersOf(ada));
  half.push(r.ms);
  if (i === 0 && total(r.body) !== perImport * (IMPORTS / 2)) throw new Error(`as-of half total ${total(r.body)}`);
}
const member: number[] = [];
for (let i = 0; i < REQUESTS; i++) member.push((await timed(`/transactions?asOf=${at(lastMoment)}`, headersOf(members[1]!))).ms);
const hist: number[] = [];
for (let i = 0; i < REQUESTS; i++) hist.push((await timed(`/history/transaction/${txIds[i % EDITS]!}`, headersOf(ada))).ms);
const check = (await timed(`/transactions/${txIds[20]!}?asOf=${at(editTimes[19]! + 1000)}`, headersOf(ada))).body as { transaction: { description: string } };
if (check.transaction.description !== 'MERCHANT 20') throw new Error(`as-of record: ${check.transaction.description}`);

const f = (xs: number[]) => `${median(xs).toFixed(1)} / ${percentile(xs, 95).toFixed(1)}`;
row('GET /transactions live (ms, p50 / p95)', f(live), `${REQUESTS} requests`);
row(`GET /transactions?asOf cold, ${fmt(ROWS)} rows (ms, p50 / p95)`, f(cold), `${COLD} moments, each a replay to position ~${coldEvents}; budget 2,000 ms`);
row('  the first (from position zero; ms)', cold[0]!.toFixed(1), 'the company had no kept state yet');
row('  the others (rolled forward from a kept state; ms, p50 / max)', `${median(cold.slice(1)).toFixed(1)} / ${Math.max(...cold.slice(1)).toFixed(1)}`, `${COLD - 1} moments`);
row(`replay from position zero alone, ${fmt(ROWS)} rows (ms, p50 / max)`, `${median(zero).toFixed(1)} / ${Math.max(...zero).toFixed(1)}`, '3 moments, no kept state, no HTTP');
row('  CPU time per cold as-of request (ms, mean)', coldCpuMs.toFixed(0), 'server and client in this one process');
row('GET /transactions?asOf cached (ms, p50 / p95)', f(warm), `pages 1-20 of one moment`);
row('GET /transactions?asOf cold, 50,000 rows (ms, p50 / max)', `${median(half).toFixed(1)} / ${Math.max(...half).toFixed(1)}`, '3 moments');
row("GET /transactions?asOf, a member's own (cached, ms, p50 / p95)", f(member));
row('GET /history/transaction/:id (ms, p50 / p95)', f(hist), 'import row, correction, matching stream filtered');
row('as-of cold p50 / live p50', (median(cold) / median(live)).toFixed(1));
row('replay from zero p50 / live p50', (median(zero) / median(live)).toFixed(1));
row('event-loop delay during cold replays (ms, p50 / p99 / max)', `${(loop.percentile(50) / 1e6).toFixed(1)} / ${(loop.percentile(99) / 1e6).toFixed(1)} / ${(loop.max / 1e6).toFixed(1)}`, 'the replay yields every 20 ms');
row('event-loop delay during the replays from zero (ms, p50 / p99 / max)', `${(zeroLoop.percentile(50) / 1e6).toFixed(1)} / ${(zeroLoop.percentile(99) / 1e6).toFixed(1)} / ${(zeroLoop.max / 1e6).toFixed(1)}`, 'on the request thread, 20 ms slices');
row('rss after (MB)', fmt(process.memoryUsage().rss / 2 ** 20), 'up to 3 replayed states cached for 2 min, up to 12 checkpoints for 10 min (documents shared)');

server.close();
await paperlink.close();
rmSync(dir, { recursive: true, force: true });
