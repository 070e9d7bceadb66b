/**
 * Analytics at scale (ADR 0014), embedded profile, over HTTP: a company with 1,000,000
 * transactions (three members), 20,000 receipts and 10,000 matches, written straight to the
 * event log in the product's event shapes (as a statement import and OCR would write them),
 * then projected by the product's own projector. Times GET /analytics/dashboard (admin: the
 * company; a member: their own), GET /matches/stats and a full-range CSV export, beside the
 * plain transactions list in the same run. Figures are printed, not asserted. The accounts are
 * made over HTTP; the server is then stopped, the history appended to its log file directly
 * (the fast way to a big data folder), and the server started again: its projectors catch up.
 *   node --import tsx bench/analytics.ts [--rows 1000000] [--requests 200]
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { newId } from '@paperlink/command-api';
import { analyticsDashboard } from '@paperlink/projections';
import type { EventMetadata, ImportedRow, NewEvent, StreamAppend } from '@paperlink/domain';
import { createPaperlink } from '../infra/src/app';
import { dataDir } from '../infra/src/data-dir';
import { SqliteEventStore } from '../infra/src/eventstore/sqlite';
import { loadConfig } from '../infra/src/config';
import { fmt, median, percentile, row } from './lib';

const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => Number(args[args.indexOf(name) + 1] || fallback) || fallback;
const ROWS = arg('--rows', 1_000_000);
const REQUESTS = arg('--requests', 200);
const RECEIPTS = Math.min(20_000, Math.ceil(ROWS / 50));
const MATCHES = RECEIPTS / 2;
const ROWS_PER_EVENT = 1000;
const EVENTS_PER_IMPORT = 100;

const dir = mkdtempSync(join(tmpdir(), 'paperlink-bench-analytics-'));
const config = loadConfig({ DATA_DIR: dir, WEB_DIST: join(dir, 'none') });
async function serve() {
  const paperlink = await createPaperlink(config, { noJobs: true });
  const server = createServer(paperlink.app).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return { paperlink, server, base: `http://127.0.0.1:${(server.address() as { port: number }).port}/api` };
}
let { paperlink, server, base } = await serve();

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; json: () => Promise<unknown>; text: () => Promise<string> }> {
  return fetch(`${base}${path}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
}

async function register(firstName: string, lastName: string) {
  const res = await call('POST', '/auth/register', {}, { firstName, lastName, email: `${firstName.toLowerCase()}-${randomUUID().slice(0, 6)}@example.com`, password: 'Passw0rdOK', companyName: `${firstName} Co` });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
  return (await res.json()) as { accessToken: string; user: { id: string; email: string }; company: { id: string } };
}
const ada = await register('Ada', 'Admin');
const companyId = ada.company.id;
const members = [ada, await register('Bo', 'User'), await register('Cy', 'Member')];
const headersOf = (m: (typeof members)[number]) => ({ authorization: `Bearer ${m.accessToken}`, 'x-company-id': companyId });
for (const m of members.slice(1)) {
  const res = await call('POST', '/companies/current/invite', headersOf(ada), { email: m.user.email, role: 'user' });
  if (res.status !== 201) throw new Error(`invite: ${res.status} ${await res.text()}`);
}

console.log(`Analytics (embedded profile), ${fmt(ROWS)} transactions, ${fmt(RECEIPTS)} receipts, ${fmt(MATCHES)} matches in one company; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

// ---- The history, in the product's event shapes. ----
let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const CATEGORIES = ['Travel', 'Meals', 'Fuel', 'Office', 'Lodging', 'Software', 'Tools', 'Materials', 'Permits', 'Phone', 'Training', 'Parking'];
const MERCHANTS = ['SHELL OIL', 'HOME DEPOT', 'DELTA AIR', 'MARRIOTT', 'STAPLES', 'UBER TRIP', 'AMAZON MKTPLACE', 'CHEVRON'];
const meta = (userId: string, at: string): EventMetadata => ({ companyId, userId, requestId: randomUUID(), correlationId: randomUUID(), causationId: randomUUID(), occurredAt: at });
const ev = (type: string, data: unknown, m: EventMetadata): NewEvent => ({ id: randomUUID(), type, data, metadata: m });
const dayOf = (i: number) => new Date(Date.UTC(2023, 0, 1) + (i % 1000) * 86_400_000).toISOString().slice(0, 10);
/** Statements run in date order: 1,000 rows a day over 1,000 days for a million (a day's rows in one event). */
const rowDay = (n: number) => dayOf(Math.floor((n * 1000) / Math.max(ROWS, 1000)));

server.close();
await paperlink.close();
const events = new SqliteEventStore(dataDir(dir).eventsFile, { synchronous: 'NORMAL' });
const t0 = performance.now();
const owners: string[] = [];
const txIds: string[] = [];
let written = 0;
for (let imp = 0; written < ROWS; imp++) {
  const importId = newId();
  const fileName = `statement-${imp}.csv`;
  const at = new Date(Date.UTC(2026, 0, 1) + imp * 3_600_000).toISOString();
  const fileHash = randomUUID().replace(/-/g, '');
  const chunk: NewEvent[] = [];
  let inImport = 0;
  for (let e = 0; e < EVENTS_PER_IMPORT && written < ROWS; e++) {
    const rows: ImportedRow[] = [];
    for (let r = 0; r < ROWS_PER_EVENT && written < ROWS; r++, written++) {
      const owner = members[written % 3]!.user.id;
      const transactionId = newId();
      owners.push(owner);
      txIds.push(transactionId);
      const x = rand();
      rows.push({
        transactionId, row: inImport + r + 2, date: rowDay(written), description: `${MERCHANTS[written % MERCHANTS.length]} ${written}`,
        amountCents: x < 0.05 ? 1 + Math.floor(rand() * 50_000) : -(1 + Math.floor(rand() * 50_000)),
        ...(x > 0.97 ? {} : { category: CATEGORIES[written % CATEGORIES.length]! }),
        ...(x > 0.9 && x < 0.95 ? {} : { jobNumber: `J-${written % 40}` }),
        ...(x > 0.6 && x < 0.68 ? {} : { costCode: `0${written % 9}-100` }),
        assignedTo: owner, assignment: 'name_matched',
      });
    }
    inImport += rows.length;
    chunk.push(ev('TransactionsImported', { importId, companyId, fileName, fileHash, importedBy: ada.user.id, rows }, meta(ada.user.id, at)));
  }
  const appends: StreamAppend[] = [];
  // A slice of the import's events per append (about 3 MB each), as the bulk writer would get them.
  for (let i = 0; i < chunk.length; i += 10) appends.push({ streamId: `import-${importId}`, expectedRevision: i === 0 ? 'no_stream' : i - 1, events: chunk.slice(i, i + 10) });
  for (const a of appends) await events.appendMany([a]);
  await events.appendMany([{ streamId: `imports-${companyId}`, expectedRevision: 'any', events: [ev('StatementImported', { importId, companyId, fileName, layout: 'bench', fileHash, importedBy: ada.user.id, totalRows: inImport, imported: inImport, skipped: 0, rejected: 0 }, meta(ada.user.id, at))] }]);
}
const receiptIds: string[] = [];
for (let i = 0; i < RECEIPTS; i += 1000) {
  const appends: StreamAppend[] = [];
  for (let k = i; k < Math.min(RECEIPTS, i + 1000); k++) {
    const receiptId = newId();
    receiptIds.push(receiptId);
    const owner = owners[k]!; // receipt k belongs with transaction k
    const at = new Date(Date.now() - (k % 30) * 86_400_000).toISOString();
    const m = meta(owner, at);
    appends.push({
      streamId: `receipt-${receiptId}`, expectedRevision: 'no_stream', events: [
        ev('ReceiptUploaded', { receiptId, companyId, userId: owner, originalName: `receipt-${k}.jpg`, contentType: 'image/jpeg', size: 120_000, sha256: randomUUID().replace(/-/g, '').padEnd(64, '0'), kind: 'jpeg', duplicateOf: null, via: 'multipart' }, m),
        ...(k % 10 === 9
          ? [ev('ReceiptReadFailed', { receiptId, companyId, run: 0, reason: 'No text found', attempts: 1 }, { ...m, userId: undefined } as EventMetadata)]
          : [ev('ReceiptRead', { receiptId, companyId, run: 0, source: 'ocr', text: 'TOTAL', fields: { date: dayOf(k * 7), totalCents: 100 + (k % 40_000), merchant: 'SHELL OIL', taxCents: null, description: null }, confidence: { totalCents: 0.9 }, ocrConfidence: 88, ms: 900 }, { ...m, userId: undefined } as EventMetadata)]),
      ],
    });
  }
  await events.appendMany(appends);
}
// Matches: each of the first MATCHES receipts suggested to its transaction, then most confirmed, some rejected.
const matchIds: string[] = [];
const matching = `matching-${companyId}`;
for (let i = 0; i < MATCHES; i += 1000) {
  const suggestions = [];
  for (let k = i; k < Math.min(MATCHES, i + 1000); k++) {
    const matchId = newId();
    matchIds.push(matchId);
    suggestions.push({ matchId, receiptId: receiptIds[k]!, transactionId: txIds[k]!, confidence: 80 + (k % 20), evidence: { reasons: ['amount'], amountKind: 'exact', daysBetween: 0, merchantSimilarity: 1 } });
  }
  await events.appendMany([{ streamId: matching, expectedRevision: 'any', events: [ev('MatchesSuggested', { companyId, origin: 'auto', threshold: 70, by: ada.user.id, suggestions }, meta(ada.user.id, new Date().toISOString()))] }]);
}
for (let i = 0; i < MATCHES; i += 500) {
  const batch: NewEvent[] = [];
  for (let k = i; k < Math.min(MATCHES, i + 500); k++) {
    const base = { companyId, matchId: matchIds[k]!, receiptId: receiptIds[k]!, transactionId: txIds[k]!, by: ada.user.id };
    if (k % 5 === 4) batch.push(ev('MatchRejected', base, meta(ada.user.id, new Date().toISOString())));
    else if (k % 5 !== 3) batch.push(ev('MatchConfirmed', { ...base, receiptName: `receipt-${k}.jpg` }, meta(ada.user.id, new Date().toISOString())));
  }
  await events.appendMany([{ streamId: matching, expectedRevision: 'any', events: batch }]);
}
const head = await events.headPosition();
await events.close();
row('history written to the event log (s)', ((performance.now() - t0) / 1000).toFixed(1), `${fmt(head)} events`);
const t1 = performance.now();
({ paperlink, server, base } = await serve());
while (!(await paperlink.runner.waitFor(head, 10_000))) {
  if (paperlink.runner.failed) throw paperlink.runner.failed;
}
row('server start and every projector caught up, analytics included (s)', ((performance.now() - t1) / 1000).toFixed(1), `rss ${fmt(process.memoryUsage().rss / 2 ** 20)} MB`);
// The read store's periodic snapshot (every 30 s) of a few million documents runs between requests: let it finish first.
const t2 = performance.now();
await paperlink.adapters.readStore.flush();
row('read-store snapshot after the projection (s)', ((performance.now() - t2) / 1000).toFixed(1));

// ---- Requests over HTTP, interleaved rounds, the first few left out as warm-up. ----
const targets: Array<[string, string, Record<string, string>]> = [
  ['GET /health (floor: no read at all)', '/health', {}],
  ['GET /analytics/dashboard (admin: company)', '/analytics/dashboard', headersOf(ada)],
  ['GET /analytics/dashboard (member: own data)', '/analytics/dashboard', headersOf(members[1]!)],
  ['GET /matches/stats (admin)', '/matches/stats', headersOf(ada)],
  ['GET /transactions (admin, default page)', '/transactions', headersOf(ada)],
  ['GET /transactions (member, default page)', '/transactions', headersOf(members[1]!)],
];
const times = targets.map(() => [] as number[]);
const WARMUP = 10;
const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
for (let i = 0; i < REQUESTS + WARMUP; i++) {
  for (const [k, [, path, headers]] of targets.entries()) {
    const t = performance.now();
    const res = await call('GET', path, headers);
    await res.text();
    if (i >= WARMUP) times[k]!.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  }
}
loop.disable();
const dash = (await (await call('GET', '/analytics/dashboard', headersOf(ada))).json()) as { financial: Record<string, number>; processing: Record<string, number>; missingFields: Record<string, number>; categories: unknown[]; activity: unknown[] };
for (const [k, [label]] of targets.entries()) row(`${label} (ms, median / p95)`, `${median(times[k]!).toFixed(1)} / ${percentile(times[k]!, 95).toFixed(1)}`, k === 1 ? 'goal p95 <= 50 ms' : '');
row('dashboard p95 / transactions list p95 (admin)', (percentile(times[1]!, 95) / percentile(times[4]!, 95)).toFixed(2), `${REQUESTS} requests each`);
row('event-loop delay while measuring (ms, p50 / p99)', `${(loop.percentile(50) / 1e6).toFixed(1)} / ${(loop.percentile(99) / 1e6).toFixed(1)}`, 'the machine, not the handlers');
// The handler's own work, in process (no HTTP, no other request): what the read model costs.
const inProcess: number[] = [];
for (let i = 0; i < REQUESTS; i++) {
  const t = performance.now();
  await analyticsDashboard(paperlink.adapters.readStore, { companyId }, new Date().toISOString().slice(0, 10));
  inProcess.push(performance.now() - t);
}
row('analyticsDashboard() in process (ms, median / p95)', `${median(inProcess).toFixed(2)} / ${percentile(inProcess, 95).toFixed(2)}`);
const exportTimes: number[] = [];
for (let i = 0; i < 12; i++) {
  const t = performance.now();
  const res = await call('GET', '/analytics/export?format=csv', headersOf(ada));
  await res.text();
  if (i >= 2) exportTimes.push(performance.now() - t);
}
row('GET /analytics/export, whole history, CSV (ms, median)', median(exportTimes).toFixed(1), `${fmt(1000)} day buckets summed`);
console.log(`  figures (admin): transactions ${fmt(ROWS)}, totalExpenses ${fmt(dash.financial.totalExpenses!, 2)}, matchRate ${dash.financial.matchRate}%, processingRate ${dash.processing.processingRate}%, confirmedMatches ${fmt(dash.processing.confirmedMatches!)}, incomplete ${fmt(dash.missingFields.incompleteTransactions!)}, categories ${dash.categories.length}, activity ${dash.activity.length}`);
console.log(`  load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
server.close();
await paperlink.close();
rmSync(dir, { recursive: true, force: true });
