/**
 * Event store and rebuild benchmarks (ADR 0001), embedded profile, each figure the median of
 * several runs beside the raw better-sqlite3 figure measured in the same run on the same disk.
 *   node --import tsx bench/eventstore.ts [--events 1000000]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { NewEvent } from '@paperlink/domain';
import { allProjections, ProjectionRunner } from '@paperlink/projections';
import { SqliteEventStore } from '../infra/src/eventstore/sqlite';
import { EmbeddedReadStore } from '../infra/src/readstore/embedded';
import { fmt, median, row, runs } from './lib';
import { syntheticHistory } from './synthetic';

const args = process.argv.slice(2);
const EVENTS = Number(args[args.indexOf('--events') + 1] || 1_000_000) || 1_000_000;
const RUNS = 5;
const dir = mkdtempSync(join(tmpdir(), 'paperlink-bench-'));
const payload = () => ({ transactionId: randomUUID(), description: 'POS BHPETROL PALEKBANG JOHOR BAHRU', amountCents: -2431, date: '2018-03-23', category: null });
const meta = { companyId: randomUUID(), userId: randomUUID(), requestId: randomUUID(), correlationId: randomUUID(), causationId: randomUUID(), occurredAt: new Date().toISOString() };
const event = (): NewEvent => ({ id: randomUUID(), type: 'TransactionImported', data: payload(), metadata: meta });

function rawDb(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  return db;
}

async function batchAppends(): Promise<void> {
  const BATCHES = 200;
  const ours = await runs(RUNS, async (i) => {
    const store = new SqliteEventStore(join(dir, `batch-${i}.sqlite`));
    const batches = Array.from({ length: BATCHES }, () => Array.from({ length: 100 }, event));
    const t = performance.now();
    for (let b = 0; b < BATCHES; b++) await store.appendToStream(`transaction-${b}`, batches[b]!, 'no_stream');
    const s = (performance.now() - t) / 1000;
    await store.close();
    return (BATCHES * 100) / s;
  });
  const raw = await runs(RUNS, (i) => {
    const db = rawDb(join(dir, `raw-batch-${i}.sqlite`));
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    const tx = db.transaction((rows: string[]) => rows.forEach((r) => insert.run(r)));
    const batches = Array.from({ length: BATCHES }, () => Array.from({ length: 100 }, () => JSON.stringify(event())));
    const t = performance.now();
    for (const b of batches) tx(b);
    const s = (performance.now() - t) / 1000;
    db.close();
    return (BATCHES * 100) / s;
  });
  row('appends in batches of 100 (events/s, durable)', fmt(median(ours)), `raw better-sqlite3 100-row txns: ${fmt(median(raw))}/s; ratio ${(median(ours) / median(raw)).toFixed(2)}; goal >= 100,000`);
}

async function singleAppends(): Promise<void> {
  const N = 2000;
  const ours = await runs(RUNS, async (i) => {
    const store = new SqliteEventStore(join(dir, `single-${i}.sqlite`));
    const events = Array.from({ length: N }, event);
    const t = performance.now();
    for (let k = 0; k < N; k++) await store.appendToStream(`receipt-${k}`, [events[k]!], 'no_stream');
    const s = (performance.now() - t) / 1000;
    await store.close();
    return N / s;
  });
  const raw = await runs(RUNS, (i) => {
    const db = rawDb(join(dir, `raw-single-${i}.sqlite`));
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    const rows = Array.from({ length: N }, () => JSON.stringify(event()));
    const t = performance.now();
    for (const r of rows) db.transaction(() => insert.run(r))();
    const s = (performance.now() - t) / 1000;
    db.close();
    return N / s;
  });
  row('durable single appends (appends/s)', fmt(median(ours)), `raw one-row WAL+FULL txns: ${fmt(median(raw))}/s; ratio ${(median(ours) / median(raw)).toFixed(2)}; goal >= 0.70`);
}

async function rebuild(): Promise<void> {
  const file = join(dir, 'history.sqlite');
  const store = new SqliteEventStore(file, { synchronous: 'NORMAL' });
  const t0 = performance.now();
  let appended = 0;
  for (const append of syntheticHistory(EVENTS)) {
    await store.appendMany(append);
    appended += append.reduce((n, a) => n + a.events.length, 0);
  }
  console.log(`  (wrote ${fmt(appended)} synthetic events in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  const projections = allProjections();
  const times = await runs(3, async () => {
    const readStore = new EmbeddedReadStore();
    const runner = new ProjectionRunner(store, readStore, projections);
    const result = await runner.rebuild();
    return result.ms / 1000;
  });
  const rawRead = await runs(3, () => {
    const db = new Database(file, { readonly: true });
    const t = performance.now();
    let n = 0;
    for (const r of db.prepare('SELECT e.data, COALESCE(e.metadata, c.metadata) AS metadata FROM events e LEFT JOIN events c ON c.position = e.commit_position').iterate() as Iterable<{ data: string; metadata: string }>) {
      JSON.parse(r.data);
      JSON.parse(r.metadata);
      n++;
    }
    db.close();
    return { s: (performance.now() - t) / 1000, n };
  });
  await store.close();
  const s = median(times);
  row(`rebuild of ${projections.length} read models from ${fmt(appended)} events (s)`, s.toFixed(2), `${fmt(appended / s)} events/s; raw SQLite read+JSON.parse of the same rows: ${median(rawRead.map((r) => r.s)).toFixed(2)} s; goal <= 10 s`);
}

console.log('Event store (embedded profile: SQLite WAL, synchronous=FULL), medians of runs');
if (!process.argv.includes('--only-rebuild')) {
  await batchAppends();
  await singleAppends();
}
if (!process.argv.includes("--no-rebuild")) await rebuild();
rmSync(dir, { recursive: true, force: true });
