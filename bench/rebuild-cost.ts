/**
 * Where the time of a rebuild of every read model goes (goal: "rebuild of every read model
 * from 1,000,000 events <= 3x the raw read and parse of those events"; ADR 0028). Builds a data
 * folder with lab/scale/scale-data.ts once at a reduced size (default SCALE_TX=250000: 25,000
 * receipts and matches) and keeps it under /tmp (REBUILD_COST_CACHE, keyed by the sizes and the
 * generator's source), then measures, each figure beside the raw read and parse of the same log
 * in the same run:
 *   1. the floor: every event read from events.sqlite and its data parsed (as bench/scale.ts);
 *   2. the event store's own paged read (what the runner reads through);
 *   3. the projection code alone, per projection (CPU time): every event applied to an
 *      in-memory unit of work (no store), so which projections cost most;
 *   4. SQLite writes of what the projections end with (CPU time): JSON text, JSONB conversion, inserts
 *      without indexes, each collection's indexes built after the load, statistics, checkpoint;
 *      and the same documents written with the indexes in place (as a blue-green generation was);
 *   5. the rebuild itself: (a) before ADR 0028, ProjectionRunner.rebuild (a unit of work per
 *      2,000 documents through commit) with a breakdown (reads, projections, store reads and
 *      writes, the end: indexes and statistics); (b) after, rebuildInBulk by part; (c) `make
 *      rebuild` (infra/src/cli/rebuild.ts) in its own process on a folder with read models
 *      already (what bench/scale.ts times). Wall and CPU time: on a shared machine the CPU
 *      ratio against the raw read's CPU says more than the wall clock;
 *   6. a blue-green rebuild (ADR 0015) beside the live generation on a running runner, build
 *      and switch (REBUILD_COST_BLUE_GREEN: projections, default transactions; `all`).
 * Figures are printed, never asserted.
 *
 *   nice node --import tsx bench/rebuild-cost.ts            (SCALE_TX=... for another size; --skip 6 to leave a phase out)
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Doc, RecordedEvent } from '@paperlink/domain';
import { allProjections, GenerationalReadStore, ProjectionRunner, rebuildInBulk, UnitOfWork } from '@paperlink/projections';
import { dataDir } from '../infra/src/data-dir';
import { SqliteEventStore } from '../infra/src/eventstore/sqlite';
import { EmbeddedReadStore } from '../infra/src/readstore/embedded';
import { SqliteReadStore } from '../infra/src/readstore/sqlite';
import { includedFields, keyFields, withoutReplaced } from '../infra/src/readstore/covering';
import { listIndexes } from '../infra/src/readstore/sqlite-indexes';
import { fmt, median, row } from './lib';
import { generateScaleData, sizesFromEnv } from '../lab/scale/scale-data';

const ROOT = join(import.meta.dirname, '..');
const SECRET = 'scale-bench-signing-secret-0123456789abcdef';
const sizes = sizesFromEnv({ SCALE_TX: '250000', ...process.env });
const skip = new Set(process.argv.flatMap((a, i) => (process.argv[i - 1] === '--skip' ? a.split(',') : [])));
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const s = (ms: number) => (ms / 1000).toFixed(2);

/** The data folder for these sizes, generated once and kept (a new generator or new sizes: a new folder). */
async function cachedFolder(): Promise<string> {
  if (process.env.REBUILD_COST_DATA) return process.env.REBUILD_COST_DATA;
  const key = createHash('sha1').update(readFileSync(join(import.meta.dirname, '..', 'lab', 'scale', 'scale-data.ts'))).update(JSON.stringify(sizes)).digest('hex').slice(0, 10);
  const base = process.env.REBUILD_COST_CACHE ?? join(tmpdir(), 'paperlink-rebuild-cost');
  const dir = join(base, `${sizes.transactions}-${key}`);
  if (existsSync(join(dir, 'events.sqlite'))) return dir;
  const building = `${dir}.building-${process.pid}`;
  mkdirSync(building, { recursive: true });
  console.log(`  generating the data folder (once) in ${dir} ...`);
  const data = await generateScaleData(building, sizes, { secret: SECRET, log: (l) => console.log(`  generating: ${l}`) });
  row('data folder written (s, once)', s(data.ms), `${fmt(data.events)} events`);
  renameSync(building, dir);
  return dir;
}

/** CPU time of this process so far (ms): on a busy machine the wall clock says more about the others. */
const cpuNow = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/** Every event read and its data and metadata parsed, as a projector's input: the floor (as bench/scale.ts). */
function rawReadParse(eventsFile: string): { ms: number; cpuMs: number } {
  const t = performance.now();
  const c = cpuNow();
  const db = new Database(eventsFile, { readonly: true });
  for (const r of db.prepare('SELECT data, metadata FROM events ORDER BY position').raw().iterate() as IterableIterator<[string, string | null]>) {
    JSON.parse(r[0]);
    if (r[1]) JSON.parse(r[1]);
  }
  db.close();
  return { ms: performance.now() - t, cpuMs: cpuNow() - c };
}

/** The log through the event store, in the runner's pages. */
async function* pages(events: SqliteEventStore, size = 5000): AsyncGenerator<RecordedEvent[]> {
  let after = 0;
  for (;;) {
    const batch = await events.readAll({ after, maxCount: size });
    if (batch.length === 0) return;
    yield batch;
    after = batch[batch.length - 1]!.position;
  }
}

const nullStore = new EmbeddedReadStore();

interface ProjectionCost {
  name: string;
  events: number;
  ms: number;
  docs: Map<string, Map<string, Doc>>;
}

/** Phase 3: every projection over the whole log into an in-memory unit of work (no store). */
async function projectionCosts(eventsFile: string): Promise<{ readMs: number; costs: ProjectionCost[] }> {
  const events = new SqliteEventStore(eventsFile);
  const projections = allProjections();
  const units = projections.map(() => new UnitOfWork(nullStore));
  const costs: ProjectionCost[] = projections.map((p) => ({ name: p.name, events: 0, ms: 0, docs: new Map() }));
  let readMs = 0;
  let t = cpuNow();
  for await (const batch of pages(events)) {
    readMs += cpuNow() - t;
    for (const [i, p] of projections.entries()) {
      const c = costs[i]!;
      const uow = units[i]!;
      const start = cpuNow();
      for (const event of batch) {
        if (!p.handles.has(event.type)) continue;
        c.events++;
        await p.apply(event, uow.viewFor(event));
      }
      c.ms += cpuNow() - start;
    }
    t = cpuNow();
  }
  await events.close();
  for (const [i, uow] of units.entries()) {
    for (const [collection, docs] of uow.writes) {
      const live = new Map<string, Doc>();
      for (const [id, doc] of docs) if (doc) live.set(id, doc);
      costs[i]!.docs.set(collection, live);
    }
  }
  return { readMs, costs };
}

/** Phase 4: the documents the projections end with, written to a fresh SQLite file in the ways a rebuild can. */
function writeCosts(costs: ProjectionCost[], dir: string, rawCpu: number): void {
  const collections = new Map<string, { docs: Map<string, Doc>; indexes: string[][] }>();
  const extra = listIndexes();
  for (const p of allProjections()) {
    const c = costs.find((x) => x.name === p.name)!;
    for (const [name, declared] of Object.entries(p.collections)) {
      // As the store builds them: a plain index replaced by one with its keys and included fields (covering.ts).
      collections.set(name, { docs: c.docs.get(name) ?? new Map(), indexes: withoutReplaced([...declared, ...(extra[name] ?? [])].filter((f) => f.length > 0)).wanted });
    }
  }
  let docs = 0;
  let t = cpuNow();
  const texts = new Map<string, Array<[string, string]>>();
  for (const [name, c] of collections) {
    const rows: Array<[string, string]> = [];
    for (const [id, doc] of c.docs) rows.push([id, JSON.stringify(doc)]);
    texts.set(name, rows);
    docs += rows.length;
  }
  const stringifyMs = cpuNow() - t;
  const open = (file: string) => {
    const db = new Database(join(dir, file));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('cache_size = -131072');
    return db;
  };
  const insertAll = (db: Database.Database, value: string, sorted: boolean) => {
    const start = cpuNow();
    db.transaction(() => {
      for (const [name, rows] of texts) {
        db.exec(`CREATE TABLE "c_${name}" (id TEXT PRIMARY KEY, doc BLOB NOT NULL)`);
        const insert = db.prepare(`INSERT INTO "c_${name}" (id, doc) VALUES (?, ${value})`);
        const list = sorted ? [...rows].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)) : rows;
        for (const [id, text] of list) insert.run(id, text);
      }
    })();
    return cpuNow() - start;
  };
  const textDb = open('text.sqlite');
  const textMs = insertAll(textDb, '?', false);
  textDb.close();
  const jsonbDb = open('jsonb.sqlite');
  const jsonbMs = insertAll(jsonbDb, 'jsonb(?)', false);
  const sortedDb = open('sorted.sqlite');
  const sortedMs = insertAll(sortedDb, 'jsonb(?)', true);
  sortedDb.close();
  const expr = (f: string) => (f === '_id' ? 'id' : `json_extract(doc, '$.${f}')`);
  // The keys, the id, then the included fields (`+name`), as SqliteReadStore.createIndex.
  const columns = (fields: string[]) => [...keyFields(fields).filter((f) => f !== '_id').map(expr), 'id DESC', ...includedFields(fields).map(expr)].join(', ');
  const indexMs = new Map<string, number>();
  let n = 0;
  for (const [name, c] of collections) {
    const start = cpuNow();
    for (const fields of c.indexes) jsonbDb.exec(`CREATE INDEX "ix${n++}" ON "c_${name}" (${columns(fields)})`);
    if (c.indexes.length > 0) indexMs.set(name, cpuNow() - start);
  }
  t = cpuNow();
  jsonbDb.pragma('analysis_limit = 1000');
  jsonbDb.exec('ANALYZE');
  const analyzeMs = cpuNow() - t;
  t = cpuNow();
  jsonbDb.pragma('wal_checkpoint(TRUNCATE)');
  const checkpointMs = cpuNow() - t;
  jsonbDb.close();
  // The same rows with every index in place before the load (a blue-green generation's tables).
  const liveDb = open('indexed.sqlite');
  t = cpuNow();
  liveDb.transaction(() => {
    for (const [name, c] of collections) {
      liveDb.exec(`CREATE TABLE "c_${name}" (id TEXT PRIMARY KEY, doc BLOB NOT NULL)`);
      for (const fields of c.indexes) liveDb.exec(`CREATE INDEX "ix${n++}" ON "c_${name}" (${columns(fields)})`);
      const insert = liveDb.prepare(`INSERT INTO "c_${name}" (id, doc) VALUES (?, jsonb(?))`);
      for (const [id, text] of texts.get(name)!) insert.run(id, text);
    }
  })();
  const indexedMs = cpuNow() - t;
  liveDb.close();
  row('documents the projections end with', fmt(docs), `${collections.size} collections`);
  row('  JSON.stringify of every document (CPU s)', s(stringifyMs));
  row('  insert as JSON text, one transaction, no index (CPU s)', s(textMs));
  row('  insert with jsonb(), one transaction, no index (CPU s)', s(jsonbMs), `JSONB conversion ~${s(jsonbMs - textMs)} s`);
  row('  the same in _id order (CPU s)', s(sortedMs), 'sorted before insert');
  const indexTotal = [...indexMs.values()].reduce((a, b) => a + b, 0);
  row('  indexes built after the load (CPU s)', s(indexTotal), [...indexMs].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([c, ms]) => `${c} ${s(ms)}`).join(', '));
  row('  ANALYZE (sampled) / WAL checkpoint (CPU s)', `${s(analyzeMs)} / ${s(checkpointMs)}`);
  row('  insert with every index in place (CPU s)', s(indexedMs), 'as a generation built with its indexes');
  // The least any rebuild into these read models writes, whatever its projectors cost (ADR 0028, 2026-12-02).
  const floor = stringifyMs + jsonbMs + indexTotal;
  row('  floor: the documents written and indexed, no projector (CPU s)', s(floor), `${(floor / rawCpu).toFixed(2)}x the raw read's CPU (stringify + jsonb insert + index builds); ${(floor / 2 / rawCpu).toFixed(2)}x on two cores, were it split evenly`);
}

/** A read store that times what the runner asks of it. */
function timed(inner: SqliteReadStore): { store: SqliteReadStore; times: Record<string, number> } {
  const times: Record<string, number> = { peek: 0, getMany: 0, commit: 0, flush: 0, drop: 0, ensureIndexes: 0 };
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop !== 'string' || !(prop in times) || typeof value !== 'function') return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      return (...args: unknown[]) => {
        const t = performance.now();
        const out = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (out instanceof Promise) return out.finally(() => (times[prop]! += performance.now() - t));
        times[prop]! += performance.now() - t;
        return out;
      };
    },
  });
  return { store, times };
}

/** Phase 5a: the rebuild as it was before ADR 0028 (runner.rebuild: a unit of work per 2,000 documents through commit), in this process, timed by part. */
async function runnerRebuild(dir: string): Promise<{ ms: number; cpuMs: number }> {
  const events = new SqliteEventStore(dataDir(dir).eventsFile);
  let readMs = 0;
  const read = events.readAll.bind(events);
  events.readAll = async (o) => {
    const t = performance.now();
    try {
      return await read(o);
    } finally {
      readMs += performance.now() - t;
    }
  };
  const { store, times } = timed(new SqliteReadStore(join(dir, 'readmodels.sqlite'), { extraIndexes: listIndexes() }));
  const projections = allProjections();
  const applyMs = new Map<string, number>();
  const wrapped = projections.map((p) => ({
    ...p,
    apply: async (event: RecordedEvent, view: Parameters<typeof p.apply>[1]) => {
      const t = performance.now();
      try {
        await p.apply(event, view);
      } finally {
        applyMs.set(p.name, (applyMs.get(p.name) ?? 0) + performance.now() - t);
      }
    },
  }));
  const generational = await GenerationalReadStore.open(store, wrapped);
  const runner = new ProjectionRunner(events, generational, wrapped);
  const t = performance.now();
  const c = cpuNow();
  const result = await runner.rebuild();
  const ms = performance.now() - t;
  const cpuMs = cpuNow() - c;
  await generational.close();
  await events.close();
  const apply = [...applyMs.values()].reduce((a, b) => a + b, 0);
  row('before: runner.rebuild, wall / CPU (s)', `${s(ms)} / ${s(cpuMs)}`, `${fmt(result.events)} events; unit of work per 2,000 documents, commit`);
  row('  reading events (readAll, parse included) (s)', s(readMs));
  row('  projections, store reads included (s)', s(apply), [...applyMs].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([n, v]) => `${n} ${s(v)}`).join(', '));
  row('  store reads (peek / getMany) (s)', `${s(times.peek!)} / ${s(times.getMany!)}`);
  row('  store writes (commit) (s)', s(times.commit!));
  row('  drop + ensureIndexes (s)', `${s(times.drop!)} + ${s(times.ensureIndexes!)}`);
  row('  flush: indexes built, statistics (s)', s(times.flush!));
  row('  the rest (runner, unit of work, event loop turns) (s)', s(ms - readMs - apply - times.commit! - times.flush! - times.drop! - times.ensureIndexes!));
  return { ms, cpuMs };
}

/** Phase 5b: the bulk rebuild (`make rebuild` since ADR 0028) in this process, timed by part. */
async function bulkRebuild(dir: string): Promise<{ ms: number; cpuMs: number }> {
  const events = new SqliteEventStore(dataDir(dir).eventsFile);
  const store = await GenerationalReadStore.open(new SqliteReadStore(join(dir, 'readmodels.sqlite'), { extraIndexes: listIndexes() }), allProjections());
  const t = performance.now();
  const c = cpuNow();
  const result = await rebuildInBulk(events, store, allProjections());
  const ms = performance.now() - t;
  const cpuMs = cpuNow() - c;
  await store.close();
  await events.close();
  const { read, project, write, finish } = result.parts;
  row('after: rebuildInBulk, wall / CPU (s)', `${s(ms)} / ${s(cpuMs)}`, `${result.flushes} flushes`);
  row('  reading events / projections (s)', `${s(read)} / ${s(project)}`);
  row('  writes (bulkLoad) / indexes and statistics at the end (s)', `${s(write)} / ${s(finish)}`);
  return { ms, cpuMs };
}

/** Phase 5b: `make rebuild` in its own process, as bench/scale.ts runs it. */
function makeRebuild(dir: string, threads?: number): { ms: number; wallMs: number; cpuMs: number; parts: string } {
  const t = performance.now();
  const env = { ...process.env, DATA_DIR: dir, JWT_SECRET: SECRET, READ_STORE: 'sqlite', ...(threads ? { REBUILD_THREADS: String(threads) } : {}) };
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'infra/src/cli/rebuild.ts')], { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wallMs = performance.now() - t;
  if (r.status !== 0) throw new Error(`make rebuild failed: ${r.stderr.slice(-2000)}`);
  const m = /Rebuilt (\d+) events in ([\d.]+) s.*?(?:CPU ([\d.]+) s)?$/m.exec(r.stdout);
  // One line per group of projections (one thread: one line).
  const parts = [...r.stdout.matchAll(/^\s*(.*reading the log.*)$/gm)].map((x) => x[1]).join('; ');
  return { ms: m ? Number(m[2]) * 1000 : wallMs, wallMs, cpuMs: m?.[3] ? Number(m[3]) * 1000 : NaN, parts };
}

/** Phase 6: projections rebuilt beside their live generation on a running runner, then switched. */
async function blueGreen(dir: string): Promise<void> {
  const events = new SqliteEventStore(dataDir(dir).eventsFile);
  const inner = new SqliteReadStore(join(dir, 'readmodels.sqlite'), { extraIndexes: listIndexes() });
  const store = await GenerationalReadStore.open(inner, allProjections());
  store.dropGraceMs = 0;
  let switchMs = 0;
  const switchTo = store.switchTo.bind(store);
  store.switchTo = async (...args) => {
    const t = performance.now();
    try {
      return await switchTo(...args);
    } finally {
      switchMs += performance.now() - t;
    }
  };
  const runner = new ProjectionRunner(events, store, allProjections());
  await runner.start();
  const t = performance.now();
  const per: Array<[string, number]> = [];
  const chosen = (process.env.REBUILD_COST_BLUE_GREEN ?? 'transactions').split(',');
  for (const p of allProjections().filter((x) => chosen.includes('all') || chosen.includes(x.name))) {
    const start = performance.now();
    runner.rebuildBesideLive(p.name);
    await runner.rebuildsSettled();
    const status = runner.rebuilds().find((b) => b.projection === p.name);
    if (status?.state !== 'switched') throw new Error(`blue-green rebuild of ${p.name}: ${status?.state} ${status?.error ?? ''}`);
    per.push([p.name, performance.now() - start]);
  }
  const ms = performance.now() - t;
  await runner.stop();
  await store.close();
  await events.close();
  row(`blue-green: ${chosen.join(', ')} beside the live generation (s)`, s(ms), per.sort((a, b) => b[1] - a[1]).slice(0, 4).map(([n, v]) => `${n} ${s(v)}`).join(', '));
  row('  of which switch-overs (alias commit + drop) (s)', s(switchMs));
}

// ---------------------------------------------------------------- main
const what = process.env.REBUILD_COST_DATA ? `the data folder ${process.env.REBUILD_COST_DATA}` : `${fmt(sizes.transactions)} transactions, ${fmt(sizes.receipts)} receipts, ${fmt(sizes.matches)} matches`;
console.log(`Rebuild cost (ADR 0028): ${what}. Load average ${load()}`);
const source = await cachedFolder();
const work = mkdtempSync(join(tmpdir(), 'paperlink-rebuild-cost-'));
try {
  const eventsFile = join(work, 'events.sqlite');
  copyFileSync(join(source, 'events.sqlite'), eventsFile);
  const raws = [rawReadParse(eventsFile), rawReadParse(eventsFile), rawReadParse(eventsFile)];
  const raw = median(raws.map((r) => r.ms));
  const rawCpu = median(raws.map((r) => r.cpuMs));
  const head = new Database(eventsFile, { readonly: true }).prepare('SELECT max(position) FROM events').pluck().get() as number;
  row('raw read + JSON.parse of every event, wall / CPU (s)', `${s(raw)} / ${s(rawCpu)}`, `median of 3; ${fmt(head)} events, ${fmt(statSync(eventsFile).size / 2 ** 20)} MB; the baseline`);
  const ratio = (r: { ms: number; cpuMs: number }) => `${(r.ms / raw).toFixed(2)} / ${(r.cpuMs / rawCpu).toFixed(2)}`;
  let t = performance.now();
  {
    const events = new SqliteEventStore(eventsFile);
    let n = 0;
    for await (const batch of pages(events)) n += batch.length;
    await events.close();
    row('event store readAll, pages of 5,000 (s)', s(performance.now() - t), `${((performance.now() - t) / raw).toFixed(2)}x raw; ${fmt(n)} events`);
  }
  if (!skip.has('3') || !skip.has('4')) {
    t = performance.now();
    const { readMs, costs } = await projectionCosts(eventsFile);
    const projMs = costs.reduce((a, c) => a + c.ms, 0);
    console.log(`  load average ${load()}`);
    row('projection code alone, every projection (CPU s)', s(projMs), `${(projMs / rawCpu).toFixed(2)}x raw CPU; in-memory unit of work, no store; reading ${s(readMs)} s besides`);
    for (const c of [...costs].sort((a, b) => b.ms - a.ms)) {
      const docs = [...c.docs.values()].reduce((a, m) => a + m.size, 0);
      row(`  ${c.name}`, s(c.ms), `${fmt(c.events)} events, ${fmt(docs)} documents`);
    }
    if (!skip.has('4')) {
      const scratch = join(work, 'writes');
      mkdirSync(scratch);
      writeCosts(costs, scratch, rawCpu);
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  if (!skip.has('5a')) {
    console.log(`  load average ${load()}`);
    const before = await runnerRebuild(work);
    row('  / raw read and parse, wall / CPU', ratio(before), 'target <= 3');
  }
  if (!skip.has('5b')) {
    console.log(`  load average ${load()}`);
    const after = await bulkRebuild(work);
    row('  / raw read and parse, wall / CPU', ratio(after), 'target <= 3');
  }
  if (!skip.has('5c')) {
    console.log(`  load average ${load()}`);
    // The baseline in the same run: one thread (REBUILD_THREADS=1), then the default (a thread per group, up to the cores).
    const one = makeRebuild(work, 1);
    row('make rebuild on one thread (REBUILD_THREADS=1), wall / CPU (s)', `${s(one.ms)} / ${s(one.cpuMs)}`, `process wall ${s(one.wallMs)} s; ${one.parts}`);
    row('  / raw read and parse, wall / CPU', ratio(one));
    console.log(`  load average ${load()}`);
    const made = makeRebuild(work);
    row('make rebuild over read models already there, wall / CPU (s)', `${s(made.ms)} / ${s(made.cpuMs)}`, `process wall ${s(made.wallMs)} s; ${made.parts}`);
    row('make rebuild / raw read and parse, wall / CPU', ratio(made), `target <= 3: ${made.ms / raw <= 3 ? 'PASS' : 'MISS'} (wall); ${(one.ms / made.ms).toFixed(2)}x faster than one thread`);
  }
  if (!skip.has('6')) {
    if (!existsSync(join(work, 'readmodels.sqlite'))) makeRebuild(work);
    console.log(`  load average ${load()}`);
    await blueGreen(work);
  }
  console.log(`  load average after: ${load()}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
