/**
 * Audit benchmarks (ADR 0010), embedded profile:
 *  - the chain check (`make verify`, GET /api/audit/verify) over 1,000,000 events; goal >= 200,000 events/s;
 *  - the cost of hashing on appends: the same store with and without it, in the same run, on
 *    the same disk (single durable appends, as commands make them, and batches of 100, as imports do);
 *  - the upgrade of a file without hashes (the chain computed once on start), and an audit bundle.
 *   node --import tsx bench/audit.ts [--events 1000000]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { NewEvent } from '@paperlink/domain';
import { SqliteEventStore } from '../infra/src/eventstore/sqlite';
import { upgradeChain } from '../infra/src/eventstore/chain';
import { verifyChainFile, verifyChainParallel } from '../infra/src/audit/tasks';
import { writeBundle } from '../infra/src/audit/bundle';
import { fmt, median, row, runs } from './lib';
import { UnhashedSqliteEventStore } from './unhashed-store';

const args = process.argv.slice(2);
const EVENTS = Number(args[args.indexOf('--events') + 1] || 1_000_000) || 1_000_000;
const dir = mkdtempSync(join(tmpdir(), 'paperlink-bench-audit-'));
const companies = Array.from({ length: 20 }, () => randomUUID());
const users = Array.from({ length: 50 }, () => randomUUID());

/** An event of a typical size: a transaction as an import or an edit records it. */
function event(i: number, meta: NewEvent['metadata']): NewEvent {
  return {
    id: randomUUID(),
    type: i % 7 === 0 ? 'TransactionUpdated' : 'TransactionImported',
    data: { transactionId: randomUUID(), description: `POS BHPETROL PALEKBANG JOHOR BAHRU ${i}`, amountCents: -2431 - (i % 1000), date: '2018-03-23', category: i % 3 ? 'Fuel' : null, row: i },
    metadata: meta,
  };
}
let commands = 0;
const metaOf = (i: number): NewEvent['metadata'] => ({
  companyId: companies[commands++ % companies.length]!,
  userId: users[i % users.length]!,
  requestId: randomUUID(),
  correlationId: randomUUID(),
  occurredAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
});

/** A log of `n` events: appends of 100 streams × 10 events (one command's metadata per stream). */
async function buildLog(file: string, n: number): Promise<number> {
  const store = new SqliteEventStore(file, { synchronous: 'NORMAL' });
  const t = performance.now();
  let i = 0;
  let s = 0;
  while (i < n) {
    const appends = [];
    for (let k = 0; k < 100 && i < n; k++) {
      const meta = metaOf(i);
      const events: NewEvent[] = [];
      for (let j = 0; j < 10 && i < n; j++) events.push(event(i++, meta));
      appends.push({ streamId: `transaction-${s++}`, events, expectedRevision: 'no_stream' as const });
    }
    await store.appendMany(appends);
  }
  await store.close();
  return (performance.now() - t) / 1000;
}

async function appendCost(): Promise<void> {
  const RUNS = 5;
  const open = (unhashed: boolean, file: string): SqliteEventStore => (unhashed ? new UnhashedSqliteEventStore(file) : new SqliteEventStore(file));
  const single = async (unhashed: boolean, i: number) => {
    const store = open(unhashed, join(dir, `single-${unhashed}-${i}.sqlite`));
    const N = 1000;
    const t = performance.now();
    for (let k = 0; k < N; k++) await store.appendToStream(`transaction-${k}`, [event(k, metaOf(k))], 'no_stream');
    const s = (performance.now() - t) / 1000;
    await store.close();
    return N / s;
  };
  const batch = async (unhashed: boolean, i: number) => {
    const store = open(unhashed, join(dir, `batch-${unhashed}-${i}.sqlite`));
    const B = 200;
    const batches = Array.from({ length: B }, (_, b) => { const meta = metaOf(b); return Array.from({ length: 100 }, (_, k) => event(b * 100 + k, meta)); });
    const t = performance.now();
    for (let b = 0; b < B; b++) await store.appendToStream(`transaction-${b}`, batches[b]!, 'no_stream');
    const s = (performance.now() - t) / 1000;
    await store.close();
    return (B * 100) / s;
  };
  // Alternated, so that both see the same machine.
  const singles = await runs(RUNS, async (i) => ({ hashed: await single(false, i), plain: await single(true, i) }));
  const batches = await runs(RUNS, async (i) => ({ hashed: await batch(false, i), plain: await batch(true, i) }));
  for (const [label, list] of [['single durable appends (events/s)', singles], ['appends in batches of 100 (events/s, durable)', batches]] as const) {
    const hashed = median(list.map((r) => r.hashed));
    const plain = median(list.map((r) => r.plain));
    const ratio = median(list.map((r) => r.hashed / r.plain));
    row(label, fmt(hashed), `without hashing: ${fmt(plain)}/s; ratio hashed/plain ${ratio.toFixed(2)} (median of ${RUNS} paired runs)`);
  }
}

async function main(): Promise<void> {
  console.log(`  load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${EVENTS.toLocaleString('en-US')} events`);
  await appendCost();

  const file = join(dir, 'log.sqlite');
  const built = await buildLog(file, EVENTS);
  row(`writing the log: ${fmt(EVENTS)} events, hashed (events/s)`, fmt(EVENTS / built), 'appendMany of 100 streams x 10 events, synchronous=NORMAL');

  const check = (report: { ok: boolean; checked: number; ms: number }) => {
    if (!report.ok || report.checked !== EVENTS) throw new Error(`chain check failed: ${JSON.stringify(report)}`);
    return report.checked / (report.ms / 1000);
  };
  const threads = Math.min(availableParallelism(), 4);
  const parallel = await runs(3, async () => check(await verifyChainParallel(file)));
  row(`chain check of ${fmt(EVENTS)} events (events/s)`, fmt(median(parallel)), `median of 3 (as make verify and the API run it: ${threads} threads); ${(EVENTS / median(parallel)).toFixed(2)} s each; goal >= 200,000`);
  const cpu0 = process.cpuUsage();
  const single = await runs(3, () => check(verifyChainFile(file)));
  const cpu = process.cpuUsage(cpu0);
  row('  the same on one thread (events/s)', fmt(median(single)), `CPU time: ${fmt((3 * EVENTS) / ((cpu.user + cpu.system) / 1e6))} events per CPU-second`);

  // The upgrade of a file from before hashes: drop the column, then compute the chain again.
  const db = new Database(file);
  db.exec('ALTER TABLE events DROP COLUMN hash');
  const t = performance.now();
  const hashed = upgradeChain(db);
  const upgradeS = (performance.now() - t) / 1000;
  db.close();
  row(`upgrade: chain for ${fmt(hashed)} rows without hashes (events/s)`, fmt(hashed / upgradeS), `${upgradeS.toFixed(2)} s, once, on the first start`);

  const b = performance.now();
  const manifest = await writeBundle({ file, out: join(dir, 'bundle.jsonl'), companyId: companies[0]!, startDate: null, endDate: null, secret: 'bench' });
  const bundleS = (performance.now() - b) / 1000;
  row(`audit bundle of one company (${fmt(manifest.count)} of ${fmt(EVENTS)} events)`, `${bundleS.toFixed(2)} s`, `${fmt(EVENTS / bundleS)} log events/s scanned`);
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }));
