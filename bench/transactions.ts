/**
 * Transactions at scale, embedded profile, in process over HTTP (supertest):
 * import a 100,000-row statement end to end (parse, deduplicate, append, project), then time
 * list queries with filters at 100,000 transactions in one company.
 *   node --import tsx bench/transactions.ts [--rows 100000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createPaperlink } from '../infra/src/app';
import { loadConfig } from '../infra/src/config';
import { fmt, median, percentile, row } from './lib';

const args = process.argv.slice(2);
const ROWS = Number(args[args.indexOf('--rows') + 1] || 100_000) || 100_000;

function statement(rows: number, seed: number): Buffer {
  const merchants = ['SQ *BLUE BOTTLE COFFEE', 'SHELL OIL 57442', 'AMAZON MKTPLACE PMTS', 'UBER *TRIP', 'HOME DEPOT #4521', 'DELTA AIR 0062', 'MARRIOTT HOTELS', 'STAPLES 00123', 'CHEVRON 0091', 'OFFICE DEPOT 1121'];
  const lines = ['Transaction Date,Description,Amount,Category,Job Number,Cost Code,First Name,Last Name'];
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let i = 0; i < rows; i++) {
    const day = new Date(Date.UTC(2022, 0, 1) + Math.floor(rand() * 1000) * 86_400_000).toISOString().slice(0, 10);
    const amount = -(1 + Math.floor(rand() * 50_000)) / 100;
    const m = merchants[Math.floor(rand() * merchants.length)]!;
    lines.push(`${day},${m} ${i},${amount.toFixed(2)},${['Travel', 'Meals', 'Fuel', 'Office'][i % 4]},J-${i % 50},0${i % 9}-1${i % 7}00,${i % 3 === 0 ? 'Ada,Admin' : ','}`);
  }
  return Buffer.from(lines.join('\n'));
}

const dir = mkdtempSync(join(tmpdir(), 'paperlink-bench-tx-'));
const paperlink = await createPaperlink(loadConfig({ DATA_DIR: dir, WEB_DIST: join(dir, 'none') }));
const http = request(paperlink.app);
const reg = await http.post('/api/auth/register').send({ firstName: 'Ada', lastName: 'Admin', email: 'ada@example.com', password: 'Passw0rdOK', companyName: 'Bench Co' });
const headers = { authorization: `Bearer ${reg.body.accessToken}`, 'x-company-id': reg.body.company.id };

console.log(`Transactions (embedded profile), ${fmt(ROWS)} rows in one company`);
const file = statement(ROWS, 42);
const t0 = performance.now();
const res = await http.post('/api/transactions/import').set(headers).attach('csvFile', file, 'big.csv');
const importS = (performance.now() - t0) / 1000;
if (res.status !== 200 || res.body.imported !== ROWS) throw new Error(`import failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
row(`import of ${fmt(ROWS)} rows, end to end (s)`, importS.toFixed(2), `${(file.length / 1e6).toFixed(1)} MB; parse, dedupe, append, project, answer; goal <= 5 s`);
const again = performance.now();
const re = await http.post('/api/transactions/import').set(headers).attach('csvFile', file, 'big.csv');
row('re-import of the same file (s)', ((performance.now() - again) / 1000).toFixed(2), `imported ${re.body.imported}, skipped ${fmt(re.body.skipped)}`);

const queries: Array<[string, Record<string, string>]> = [
  ['default page (date desc)', {}],
  ['page 500', { page: '500' }],
  ['date range + sort by amount', { startDate: '2022-06-01', endDate: '2022-09-30', sortBy: 'amount', sortOrder: 'asc' }],
  ['category + amount range', { category: 'Travel', minAmount: '100', maxAmount: '300' }],
  ['unmatched, sort by description', { status: 'unmatched', sortBy: 'description' }],
];
const all: number[] = [];
for (const [label, q] of queries) {
  const times: number[] = [];
  for (let i = 0; i < 25; i++) {
    const t = performance.now();
    const r = await http.get('/api/transactions').query(q).set(headers);
    times.push(performance.now() - t);
    if (r.status !== 200) throw new Error(`${label}: ${r.status}`);
  }
  all.push(...times.slice(5));
  row(`list: ${label} (ms, median / p95)`, `${median(times.slice(5)).toFixed(1)} / ${percentile(times.slice(5), 95).toFixed(1)}`, `first call ${times[0]!.toFixed(1)} ms`);
}
row('list: all queries above (ms, p95)', percentile(all, 95).toFixed(1), 'goal p95 <= 50 ms');
// Browsing: a different page each time, after an edit of a transaction between pages (no kept order to reuse).
const browse: number[] = [];
const someone = (await http.get('/api/transactions').set(headers)).body.transactions[0];
for (let i = 0; i < 20; i++) {
  await http.put(`/api/transactions/${someone.id}`).set(headers).send({ description: `Edited ${i}`, category: 'Travel', job_number: 'J-1', cost_code: '01-100', amount: someone.amount });
  const t = performance.now();
  await http.get('/api/transactions').query({ page: String(1 + i * 97), sortBy: 'description' }).set(headers);
  browse.push(performance.now() - t);
}
row('list: a new deep page after an edit, by description (ms, median / p95)', `${median(browse).toFixed(1)} / ${percentile(browse, 95).toFixed(1)}`);
await paperlink.close();
rmSync(dir, { recursive: true, force: true });
