/**
 * The MongoDB read store at scale, on the server MONGO_URL names (FerretDB in `make
 * test-distributed`; a MongoDB replica set elsewhere). Prints figures, asserts nothing:
 *   1. projector catch-up: the history of bench/scale-data.ts (BENCH_TX transactions, a tenth as
 *      many receipts and matches) projected from position 0 by the product's runner, holding the
 *      projector lease as a projector process does, over its first BENCH_CATCHUP_EVENTS events (all
 *      of them: 0), in events and documents per second; beside it a raw `insertMany` of the very
 *      documents it wrote into a fresh database of the same server (2,000 a call), without
 *      indexes and with the read store's;
 *   2. the read models of the whole history, by the bulk rebuild (`make rebuild`: rebuildInBulk);
 *   3. the list queries bench/scale.ts times (listTransactions, as GET /transactions runs it) from
 *      a second connection, as a query process reads: p50 / p95 of BENCH_SAMPLES requests each
 *      less the first (its total is counted then; printed apart) and, on MongoDB, the second.
 *
 *   MONGO_URL=mongodb://127.0.0.1:27018/ node --import tsx bench/mongo-lists.ts
 *   (BENCH_TX=100000, BENCH_CATCHUP_EVENTS=5000, BENCH_SAMPLES=3 on FerretDB and 8 on MongoDB;
 *   BENCH_LISTS=0 stops after the catch-up; BENCH_KEEP=1 keeps the databases and the data folder).
 *   On FerretDB (2 cores) it takes about 12 minutes of bench/distributed.ts's 15: a list there
 *   passes over all 100,000 documents (15-35 s a request), and the bulk rebuild takes 5-6 minutes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Document } from 'mongodb';
import { allProjections, GenerationalReadStore, listTransactions, ProjectionRunner, rebuildInBulk, type TransactionQuery } from '@paperlink/projections';
import { dataDir } from '../infra/src/data-dir';
import { SqliteEventStore } from '../infra/src/eventstore/sqlite';
import { projectorLease } from '../infra/src/projector/lease';
import { MongoReadStore } from '../infra/src/readstore/mongo';
import { fmt, median, percentile, row } from './lib';
import { generateScaleData, sizesFromEnv } from '../lab/scale/scale-data';

const url = process.env.MONGO_URL;
if (!url) throw new Error('MONGO_URL is not set: the server to measure (FerretDB: mongodb://127.0.0.1:27018/)');
const TX = Number(process.env.BENCH_TX ?? 100_000);
const KEEP = process.env.BENCH_KEEP === '1';
const INSERT_BATCH = 2000;
const CATCHUP_EVENTS = Number(process.env.BENCH_CATCHUP_EVENTS ?? 5000);
const LISTS = process.env.BENCH_LISTS !== '0';
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const seconds = (ms: number) => (ms / 1000).toFixed(1);

const dir = mkdtempSync(join(tmpdir(), 'paperlink-bench-mongo-'));
const db = `paperlink_bench_${Date.now()}`;
const client = await MongoClient.connect(url);
const build = await client.db('admin').command({ buildInfo: 1 });
const ferret = typeof build.ferretdbVersion === 'string';
console.log(`MongoDB read store at ${fmt(TX)} transactions on ${ferret ? `FerretDB ${build.ferretdbVersion}` : `MongoDB ${build.version}`} (load ${load()})`);
/**
 * Requests per list query and how many of the first are left out of p50 / p95 (the first counts
 * the total). FerretDB v1 passes over every document of a list, 15-35 s a request at 100,000:
 * three there (the whole list part about 8 minutes), eight on MongoDB.
 */
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? (ferret ? 3 : 8));
const WARMUP = ferret ? 1 : 2;

// 0. The history, in the SQLite event store a projector reads.
const sizes = { ...sizesFromEnv({ SCALE_TX: String(TX), SCALE_SMALL_COMPANIES: '0', SCALE_SIGNINS: '100', SCALE_MEMBERS: '20' }) };
const data = await generateScaleData(dir, sizes, { secret: 'bench-mongo-lists-secret-0123456789abcdef' });
const events = new SqliteEventStore(dataDir(dir).eventsFile);
const head = await events.headPosition();
row('history written (events)', fmt(data.events), `${seconds(data.ms)} s; ${fmt(sizes.transactions)} transactions, ${fmt(sizes.receipts)} receipts, ${fmt(sizes.matches)} matches`);

// 1. Catch-up from position 0, as a projector process: the lease held, every write fenced.
const store = await MongoReadStore.connect(url, db);
const lease = await projectorLease(store, { compete: true, log: (m) => console.error(`  (${m})`) });
if (!lease?.holding) throw new Error('the projector lease was not taken');
const spent = timeSpent(store);
const projections = allProjections();
const full = `${db}_full`;
const readStore = await GenerationalReadStore.open(store, projections);
const runner = new ProjectionRunner(events, readStore, projections);
const until = CATCHUP_EVENTS > 0 ? Math.min(head, CATCHUP_EVENTS) : head;
const t0 = performance.now();
await runner.start();
while (!(await runner.waitFor(until, 60_000))) {
  if (runner.failed) throw runner.failed;
  console.log(`  ... at ${fmt(runner.position)} of ${fmt(until)} after ${seconds(performance.now() - t0)} s (load ${load()})`);
}
const catchUpMs = performance.now() - t0;
const reached = runner.position;
await runner.stop();
await lease.close();
const names = (await client.db(db).listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).filter((n) => !n.startsWith('_'));
let written = 0;
for (const name of names) written += await client.db(db).collection(name).countDocuments({});
row('projector catch-up (events/s)', fmt(reached / (catchUpMs / 1000)), `${fmt(reached)} events in ${seconds(catchUpMs)} s; ${fmt(written)} documents in ${names.length} collections (load ${load()})`);
row('projector catch-up (documents/s)', fmt(written / (catchUpMs / 1000)), 'the documents the read models hold at its end');
row('projector catch-up: reading / committing (s)', `${seconds(spent.readMs)} / ${seconds(spent.commitMs)}`, `${fmt(spent.ids)} documents asked for in ${fmt(spent.reads)} reads (getMany), ${fmt(spent.docs)} written in ${fmt(spent.commits)} commits; the rest of the ${seconds(catchUpMs)} s is the projections' own work`);

// The same documents, inserted raw into a fresh database of the same server.
const raw = async (label: string, indexed: boolean) => {
  const target = client.db(`${db}_raw${indexed ? 'i' : ''}`);
  let ms = 0;
  for (const name of names) {
    const docs = (await client.db(db).collection(name).find({}).toArray()) as Document[];
    if (indexed) {
      const indexes = (await client.db(db).collection(name).listIndexes().toArray()).filter((i) => i.name !== '_id_');
      if (indexes.length > 0) await target.collection(name).createIndexes(indexes.map((i) => ({ key: i.key, name: String(i.name) })));
    }
    const t = performance.now();
    for (let i = 0; i < docs.length; i += INSERT_BATCH) await target.collection(name).insertMany(docs.slice(i, i + INSERT_BATCH), { ordered: false });
    ms += performance.now() - t;
  }
  row(label, fmt(written / (ms / 1000)), `documents/s: ${seconds(ms)} s for ${fmt(written)}; the catch-up took ${(catchUpMs / ms).toFixed(1)}x as long (load ${load()})`);
  if (!KEEP) await target.dropDatabase();
};
await raw('raw insertMany, no index (documents/s)', false);
await raw('raw insertMany, the read store\'s indexes (documents/s)', true);

if (LISTS) await lists();

/** Where the catch-up's time goes: the store's reads by id (getMany) and its commits, timed as the runner calls them. */
function timeSpent(target: MongoReadStore) {
  const spent = { readMs: 0, reads: 0, ids: 0, commitMs: 0, commits: 0, docs: 0 };
  const getMany = target.getMany.bind(target);
  const commit = target.commit.bind(target);
  target.getMany = async (collection, ids) => {
    const t = performance.now();
    try {
      return await getMany(collection, ids);
    } finally {
      spent.readMs += performance.now() - t;
      spent.reads++;
      spent.ids += ids.length;
    }
  };
  target.commit = async (writes, checkpoints) => {
    const t = performance.now();
    try {
      await commit(writes, checkpoints);
    } finally {
      spent.commitMs += performance.now() - t;
      spent.commits++;
      for (const docs of writes.values()) spent.docs += docs.size;
    }
  };
  return spent;
}

/** 2. The read models of the whole history, by the bulk rebuild (`make rebuild`); 3. the lists on them, from a query process's connection. */
async function lists(): Promise<void> {
  const builder = await MongoReadStore.connect(url!, full, { soleWriter: true });
  const rebuilt = await rebuildInBulk(events, builder, projections);
  await builder.close();
  row('bulk rebuild of the whole history (events/s)', fmt(rebuilt.events / (rebuilt.ms / 1000)), `${fmt(rebuilt.events)} events in ${seconds(rebuilt.ms)} s, ${rebuilt.flushes} flushes (load ${load()})`);
  const reader = await GenerationalReadStore.open(await MongoReadStore.connect(url!, full), projections);
  const base: TransactionQuery = { companyId: data.big.companyId, sortBy: 'transaction_date', sortOrder: 'desc', page: 1, limit: 50 };
  const queries: Array<[string, Partial<TransactionQuery>]> = [
    ['default page (date desc)', {}],
    ['page 500', { page: 500 }],
    ['date range + sort by amount', { startDate: '2022-06-01', endDate: '2022-09-30', sortBy: 'amount', sortOrder: 'asc' }],
    ['category + amount range', { category: 'Travel', minAmount: 100, maxAmount: 300 }],
    ['unmatched, sort by description', { status: 'unmatched', sortBy: 'description' }],
  ];
  const all: number[] = [];
  const firsts: string[] = [];
  for (const [label, q] of queries) {
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < SAMPLES; i++) {
      const t = performance.now();
      total = (await listTransactions(reader, { ...base, ...q })).total;
      const ms = performance.now() - t;
      if (i === 0) firsts.push(ms.toFixed(0));
      if (i >= WARMUP) times.push(ms);
    }
    all.push(...times);
    row(`list: ${label} (ms, p50 / p95)`, `${median(times).toFixed(1)} / ${percentile(times, 95).toFixed(1)}`, `${fmt(total)} matches`);
  }
  row('list: the five queries (ms, p95)', percentile(all, 95).toFixed(1), `${all.length} requests: the first ${WARMUP} of each query left out (load ${load()})`);
  row('list: first request of each, total not kept yet (ms)', firsts.join(' / '), 'in the order above');
  await reader.close();
}

await readStore.close();
await events.close();
if (!KEEP) {
  await client.db(db).dropDatabase();
  await client.db(full).dropDatabase();
  rmSync(dir, { recursive: true, force: true });
} else console.log(`kept: databases ${db} and ${full}, folder ${dir}`);
await client.close();
