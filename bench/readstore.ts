/**
 * Read models in memory against read models in SQLite (ADR 0020), at the
 * store: one company's 1,000,000 transactions projected from their import events by every
 * projection, then the five list queries of bench/transactions.ts through listTransactions (the
 * function the API calls), a new deep page after an edit, and a restart. Each store runs in a
 * process of its own (resident memory is the process's), one after the other, on the same log.
 *   node --import tsx bench/readstore.ts [--rows 1000000] [--stores memory,sqlite]
 * READSTORE_CHILD_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the measured processes.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { EventMetadata, ImportedRow, NewEvent, ReadStore } from '@paperlink/domain';
import { allProjections, listTransactions, ProjectionRunner, TRANSACTIONS, type TransactionDoc, type TransactionQuery } from '@paperlink/projections';
import { SqliteEventStore } from '../infra/src/eventstore/sqlite';
import { EmbeddedReadStore } from '../infra/src/readstore/embedded';
import { SqliteReadStore } from '../infra/src/readstore/sqlite';
import { listIndexes } from '../infra/src/readstore/sqlite-indexes';
import { fmt, median, percentile, row } from './lib';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => (args.includes(name) ? args[args.indexOf(name) + 1]! : fallback);
const ROWS = Number(arg('--rows', '1000000')) || 1_000_000;
const COMPANY = 'c-bench';
const USERS = Array.from({ length: 50 }, (_, i) => `u-${i}`);

type Kind = 'memory' | 'sqlite';

function open(kind: Kind, dir: string): ReadStore {
  return kind === 'memory' ? new EmbeddedReadStore(join(dir, 'readmodels', 'snapshot.v8')) : new SqliteReadStore(join(dir, 'readmodels.sqlite'), { extraIndexes: listIndexes() });
}

/** The import events of ROWS transactions, 1,000 rows an event, as statement imports write them. */
async function writeLog(file: string): Promise<void> {
  const events = new SqliteEventStore(file, { synchronous: 'NORMAL' });
  let seed = 42;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const merchants = ['SQ *BLUE BOTTLE COFFEE', 'SHELL OIL 57442', 'AMAZON MKTPLACE PMTS', 'UBER *TRIP', 'HOME DEPOT #4521', 'DELTA AIR 0062', 'MARRIOTT HOTELS', 'STAPLES 00123'];
  const meta = (at: string): EventMetadata => ({ companyId: COMPANY, userId: USERS[0]!, requestId: randomUUID(), correlationId: randomUUID(), causationId: randomUUID(), occurredAt: at });
  for (let written = 0, imp = 0; written < ROWS; imp++) {
    const importId = `imp-${imp}`;
    const chunk: NewEvent[] = [];
    for (let e = 0; e < 10 && written < ROWS; e++) {
      const rows: ImportedRow[] = [];
      for (let r = 0; r < 1000 && written < ROWS; r++, written++) {
        const day = new Date(Date.UTC(2022, 0, 1) + Math.floor(rand() * 1000) * 86_400_000).toISOString().slice(0, 10);
        rows.push({
          transactionId: `t-${written}`, row: written + 2, date: day, description: `${merchants[written % merchants.length]} ${written}`,
          amountCents: -(1 + Math.floor(rand() * 50_000)), category: ['Travel', 'Meals', 'Fuel', 'Office'][written % 4]!, jobNumber: `J-${written % 50}`, costCode: `0${written % 9}-100`,
          assignedTo: USERS[written % USERS.length]!, assignment: 'name_matched',
        });
      }
      chunk.push({ id: randomUUID(), type: 'TransactionsImported', data: { importId, companyId: COMPANY, fileName: `s-${imp}.csv`, fileHash: randomUUID(), importedBy: USERS[0]!, rows }, metadata: meta(new Date(Date.UTC(2026, 0, 1) + imp * 3_600_000).toISOString()) });
    }
    await events.appendMany([{ streamId: `import-${importId}`, expectedRevision: 'no_stream', events: chunk }]);
  }
  await events.close();
}

const QUERIES: Array<[string, Partial<TransactionQuery>]> = [
  ['default page (date desc)', {}],
  ['page 500', { page: 500 }],
  ['date range + sort by amount', { startDate: '2022-06-01', endDate: '2022-09-30', sortBy: 'amount', sortOrder: 'asc' }],
  ['category + amount range', { category: 'Travel', minAmount: 100, maxAmount: 300 }],
  ['unmatched, sort by description', { status: 'unmatched', sortBy: 'description' }],
];
const query = (q: Partial<TransactionQuery>): TransactionQuery => ({ companyId: COMPANY, sortBy: 'transaction_date', sortOrder: 'desc', page: 1, limit: 50, ...q });

function rssMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / 1e6;
}

function diskMb(dir: string): number {
  let bytes = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name !== 'events.sqlite' && !e.name.startsWith('events.sqlite-')) bytes += statSync(join(d, e.name)).size;
    }
  };
  walk(dir);
  return bytes / 1e6;
}

/** One store in this process: rebuild, memory, lists, deep pages after edits. Prints a JSON line. */
async function child(kind: Kind, dir: string): Promise<void> {
  const events = new SqliteEventStore(join(dir, 'events.sqlite'));
  const store = open(kind, dir);
  const runner = new ProjectionRunner(events, store, allProjections());
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const cpu = process.cpuUsage();
  const rebuilt = await runner.rebuild();
  loop.disable();
  const used = process.cpuUsage(cpu);
  const out: Record<string, number> = { rebuildS: rebuilt.ms / 1000, rebuildCpuS: (used.user + used.system) / 1e6, rebuildLoopMaxMs: loop.max / 1e6 };
  // The rebuild ends with a flush; time the one a single write after it costs (the memory store writes its whole snapshot).
  const first = (await store.collection<TransactionDoc>(TRANSACTIONS).findOne({ _id: 't-1' }))!;
  await store.commit(new Map([[TRANSACTIONS, new Map([[first._id, { ...first, updated_at: new Date().toISOString() }]])]]), []);
  loop.reset();
  loop.enable();
  const t = performance.now();
  await store.flush();
  loop.disable();
  out.flushS = (performance.now() - t) / 1000;
  out.flushLoopMaxMs = loop.max / 1e6;
  out.rssMb = rssMb();
  out.diskMb = diskMb(dir);
  const all: number[] = [];
  loop.reset();
  loop.enable();
  for (const [i, [, q]] of QUERIES.entries()) {
    const times: number[] = [];
    for (let k = 0; k < 25; k++) {
      const s = performance.now();
      await listTransactions(store, query(q));
      times.push(performance.now() - s);
    }
    out[`q${i}First`] = times[0]!;
    out[`q${i}Median`] = median(times.slice(5));
    out[`q${i}P95`] = percentile(times.slice(5), 95);
    all.push(...times.slice(5));
  }
  out.listP95 = percentile(all, 95);
  loop.disable();
  out.listLoopMaxMs = loop.max / 1e6;
  const deep: number[] = [];
  const coll = store.collection<TransactionDoc>(TRANSACTIONS);
  const someone = (await coll.findOne({ _id: 't-7' }))!;
  for (let i = 0; i < 20; i++) {
    await store.commit(new Map([[TRANSACTIONS, new Map([[someone._id, { ...someone, description: `Edited ${i}`, updated_at: new Date().toISOString() }]])]]), []);
    const s = performance.now();
    await listTransactions(store, query({ page: 1 + i * 97, sortBy: 'description' }));
    deep.push(performance.now() - s);
  }
  out.deepMedian = median(deep);
  out.deepP95 = percentile(deep, 95);
  await store.close();
  await events.close();
  console.log(JSON.stringify(out));
}

/** A restart: open the store, its checkpoints and indexes (as the runner's start does), and answer the first list. */
async function restart(kind: Kind, dir: string): Promise<void> {
  const t = performance.now();
  const store = open(kind, dir);
  for (const p of allProjections()) for (const [c, indexes] of Object.entries(p.collections)) await store.ensureIndexes(c, indexes);
  await store.getCheckpoints();
  await listTransactions(store, query({}));
  const s = (performance.now() - t) / 1000;
  const rss = rssMb();
  // A rebuild or a blue-green switch drops the old collection: on the request thread.
  const d = performance.now();
  await store.drop([TRANSACTIONS], []);
  await store.flush();
  console.log(JSON.stringify({ restartS: s, rssMb: rss, dropS: (performance.now() - d) / 1000 }));
  await store.close();
}

function run(mode: string, kind: Kind, dir: string): Record<string, number> {
  // READSTORE_CHILD_FLAGS: more node flags for the measured processes (--cpu-prof to profile one).
  const flags = (process.env.READSTORE_CHILD_FLAGS ?? '').split(' ').filter(Boolean);
  const r = spawnSync(process.execPath, [...flags, '--expose-gc', '--max-old-space-size=8192', '--import', 'tsx', import.meta.filename, mode, kind, '--dir', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const line = r.stdout.trim().split('\n').at(-1) ?? '';
  if (r.status !== 0 || !line.startsWith('{')) throw new Error(`${mode} ${kind} failed (${r.status}): ${r.stdout.slice(-500)}`);
  return JSON.parse(line) as Record<string, number>;
}

if (args[0] === '--child') await child(args[1] as Kind, arg('--dir', ''));
else if (args[0] === '--restart') await restart(args[1] as Kind, arg('--dir', ''));
else {
  const kinds = arg('--stores', 'memory,sqlite').split(',') as Kind[];
  const base = mkdtempSync(join(tmpdir(), 'paperlink-bench-rs-'));
  try {
    console.log(`Read store at ${fmt(ROWS)} transactions of one company (${USERS.length} members); load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const log = join(base, 'log');
    const t = performance.now();
    const { mkdirSync, copyFileSync } = await import('node:fs');
    mkdirSync(log);
    await writeLog(join(log, 'events.sqlite'));
    console.log(`  (wrote the log in ${((performance.now() - t) / 1000).toFixed(1)} s)`);
    const results = new Map<Kind, Record<string, number>>();
    for (const kind of kinds) {
      const dir = join(base, kind);
      mkdirSync(dir);
      copyFileSync(join(log, 'events.sqlite'), join(dir, 'events.sqlite'));
      const r = run('--child', kind, dir);
      const again = run('--restart', kind, dir);
      results.set(kind, { ...r, restartS: again.restartS!, restartRssMb: again.rssMb!, dropS: again.dropS! });
      console.log(`  (${kind}: ${JSON.stringify(results.get(kind))})`);
      rmSync(dir, { recursive: true, force: true });
    }
    const show = (label: string, f: (r: Record<string, number>) => string, note = '') => row(label, kinds.map((k) => f(results.get(k)!)).join(' | '), note);
    console.log(`  ${''.padEnd(52)} ${kinds.join(' | ').padStart(16)}`);
    show('rebuild of every read model (s)', (r) => r.rebuildS!.toFixed(1));
    show('CPU time of the rebuild, user + system (s)', (r) => r.rebuildCpuS!.toFixed(1), 'less sensitive to the load than the wall time');
    show('longest event-loop block during the rebuild (ms)', (r) => r.rebuildLoopMaxMs!.toFixed(0));
    show('flush after one more write (s)', (r) => r.flushS!.toFixed(2));
    show('longest event-loop block during the flush (ms)', (r) => r.flushLoopMaxMs!.toFixed(0));
    show('resident memory after the rebuild (MB)', (r) => fmt(r.rssMb!), 'goal <= 1,500 (whole process)');
    show('read models on disk (MB)', (r) => fmt(r.diskMb!));
    for (const [i, [label]] of QUERIES.entries()) show(`list: ${label} (ms, median / p95)`, (r) => `${r[`q${i}Median`]!.toFixed(1)} / ${r[`q${i}P95`]!.toFixed(1)}`);
    for (const [i, [label]] of QUERIES.entries()) show(`  first call: ${label} (ms)`, (r) => r[`q${i}First`]!.toFixed(0));
    show('list: all five (ms, p95)', (r) => r.listP95!.toFixed(1), 'goal p95 <= 50 ms');
    show('longest event-loop block in the lists, first calls too (ms)', (r) => r.listLoopMaxMs!.toFixed(0));
    show('list: new deep page after an edit (ms, median / p95)', (r) => `${r.deepMedian!.toFixed(1)} / ${r.deepP95!.toFixed(1)}`, 'goal p95 <= 100 ms');
    show('drop of the 1,000,000 transactions (s, on the thread)', (r) => r.dropS!.toFixed(2));
    show('restart: open + first list (s)', (r) => r.restartS!.toFixed(2));
    show('resident memory after the restart (MB)', (r) => fmt(r.restartRssMb!));
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
