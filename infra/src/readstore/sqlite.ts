import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { Aggregator } from 'mingo';
import type { Checkpoint, Doc, Filter, FindOptions, ReadCollection, ReadStore, WriteSet } from '@paperlink/domain';
import { ChangeTracker, SEQ_TABLE_SQL, type CommitNotice } from './sqlite-notices';
import { tableName, Tables, type Table } from './sqlite-tables';
import { BulkRows } from './sqlite-bulk';
import { CountingThread } from './sqlite-counter';
import { GroupCommit } from './sqlite-group';
import { writeChunk } from './sqlite-writes';
import { Indexes } from './sqlite-indexes';
import { Counts, STALE_COUNT_WAIT_MS } from './sqlite-counts';
import { Pages } from './sqlite-pages';

export { BULK_GROUPS } from './sqlite-group';

/** Documents written per transaction: a projector's commit of 2,000 documents is split so no transaction holds the thread long. */
const CHUNK_DOCS = 500;
/** Prepared statements kept (filters of different shapes compile to different SQL). */
const STATEMENTS = 256;

export interface SqliteReadStoreOptions {
  /**
   * Indexes beyond the ones projections declare, by collection name (a blue-green generation
   * `name__gN` takes its collection's): the orders lists are sorted in, so a page is read
   * from an index instead of sorting every match (see sqlite-indexes.ts).
   */
  extraIndexes?: Record<string, string[][]>;
  /** Counts of collections with at least this many rows run on a thread of their own (default 20,000). */
  offThreadRows?: number;
  /** SQLite page cache, MB (default 128). */
  cacheMb?: number;
  /** With other writers: how long a count waits for its recount before answering the last known one (default 50 ms). */
  staleCountWaitMs?: number;
  /**
   * A reader of a file another connection writes (a report's pool worker, ADR 0018): opened
   * read-only (the file must exist), no memory map, nothing created, dropped or indexed; a
   * collection the file does not hold yet reads as empty (a temporary table).
   */
  readOnly?: boolean;
  /**
   * How long (ms) and how many documents a bulk flow's group transaction may hold (see
   * sqlite-group.ts): the projector thread's store takes BULK_GROUPS; by default a bulk flow's
   * group is a small one's (200 ms, 10,000 documents), since its COMMIT runs on the thread that
   * writes, which elsewhere may be the request thread (projectors inline).
   */
  groupBulkMs?: number;
  groupBulkDocs?: number;
  /**
   * How long (ms) a statement waits for another connection's write lock (default 5,000, SQLite's
   * busy timeout): a rebuild on several threads (infra/src/cli/rebuild-threads.ts) waits for the
   * others' flushes and index builds, seconds each at a million rows.
   */
  busyTimeoutMs?: number;
}

class SqliteCollection implements ReadCollection<Doc> {
  constructor(private readonly store: SqliteReadStore, private readonly name: string) {}

  async findOne(filter: Filter): Promise<Doc | null> {
    return this.store.page(this.name, filter, { limit: 1 }, false).docs[0] ?? null;
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    return this.store.page(this.name, filter, options, false).docs;
  }

  async count(filter: Filter): Promise<number> {
    return this.store.count(this.name, filter);
  }

  async findPage(filter: Filter, options: FindOptions = {}): Promise<{ docs: Doc[]; total: number }> {
    const { docs, total } = this.store.page(this.name, filter, options, true);
    return { docs, total: total ?? (await this.store.count(this.name, filter)) };
  }

  /** Documents in `_id` order, `skip` matches on: a reader going through pages in turn continues where it left off (paged.ts). */
  async mapPage<R>(filter: Filter, skip: number, limit: number, map: (doc: Doc) => R): Promise<R[]> {
    return this.store.mapPage(this.name, filter, skip, limit).map(map);
  }

  async aggregate<R>(pipeline: Record<string, unknown>[]): Promise<R[]> {
    const first = pipeline[0];
    const match = first && '$match' in first ? (first.$match as Filter) : {};
    const rest = first && '$match' in first ? pipeline.slice(1) : pipeline;
    const input = this.store.page(this.name, match, {}, false).docs;
    if (rest.length === 0) return input as R[];
    return new Aggregator(rest).run(input) as R[];
  }
}

/** The file's connection: a writer's, with the store's own tables; a reader's read-only (see readOnly). */
function openDatabase(file: string, options: SqliteReadStoreOptions): Database.Database {
  if (options.readOnly) {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('mmap_size = 0');
    db.pragma(`cache_size = ${-1024 * (options.cacheMb ?? 2)}`);
    db.pragma('temp_store = MEMORY');
    return db;
  }
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, { timeout: options.busyTimeoutMs ?? 5000 });
  db.pragma('journal_mode = WAL');
  // Durable through a process crash; a power cut may lose the last commits, writes and
  // checkpoints together, and the projectors replay them from the event log.
  db.pragma('synchronous = NORMAL');
  db.pragma(`cache_size = ${-1024 * (options.cacheMb ?? 128)}`);
  db.pragma('temp_store = MEMORY');
  // ANALYZE samples this many rows per index (milliseconds, not a pass over a million rows).
  db.pragma('analysis_limit = 1000');
  // Fewer, larger log checkpoints (each syncs the files): 16 MB of log between them.
  db.pragma('wal_autocheckpoint = 4000');
  db.exec(`
    CREATE TABLE IF NOT EXISTS _checkpoints (name TEXT PRIMARY KEY, version INTEGER NOT NULL, position INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS _kinds (coll TEXT NOT NULL, path TEXT NOT NULL, bits INTEGER NOT NULL, PRIMARY KEY (coll, path));
    CREATE TABLE IF NOT EXISTS _indexes (coll TEXT NOT NULL, fields TEXT NOT NULL, PRIMARY KEY (coll, fields));
    ${SEQ_TABLE_SQL};
  `);
  return db;
}

/**
 * Read models in SQLite (docs/decisions/0020-read-models-on-disk.md): one table per
 * collection, each document a JSONB value keyed by `_id`. A projector's writes and checkpoints
 * commit together; better-sqlite3 is synchronous, so every call holds the thread only as long as
 * its statement runs. This class wires its parts, one concern a file:
 * - sqlite-tables.ts: the tables, what is known and kept of them, following another writer;
 * - sqlite-indexes.ts: the indexes the projections declare, built, and chosen for a query;
 * - sql-filter.ts, sqlite-filters.ts: filters as SQL where that is exact, finished in JavaScript otherwise;
 * - sqlite-pages.ts: pages, plans and page cursors; sqlite-anchors.ts: deep pages from keyset anchors;
 * - sqlite-counts.ts: counts kept through writes; sqlite-counter.ts: the counting thread;
 * - sqlite-writes.ts, sqlite-group.ts: a commit's writes and the group transaction holding them;
 * - sqlite-bulk.ts: a rebuild's bulk loads; sqlite-notices.ts: commit notices to a reader.
 */
export class SqliteReadStore implements ReadStore {
  readonly kind = 'sqlite';
  /**
   * Called after each commit of a group transaction: other connections see its writes from now
   * (the projector thread tells the request thread, ADR 0008), with what it changed when
   * trackChanges is on (undefined: not known).
   */
  onCommitted?: (notice?: CommitNotice) => void;
  private readonly db: Database.Database;
  /** Opened with readOnly (see SqliteReadStoreOptions). */
  private readonly readOnly: boolean;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly collections = new Map<string, SqliteCollection>();
  private closed = false;
  /** The collections' tables, and whether another connection writes the file. */
  private readonly tables: Tables;
  /** The tables' indexes, declared and extra (see extraIndexes). */
  private readonly indexes: Indexes;
  /** The group transaction of the writes (see commit). */
  private readonly groups: GroupCommit;
  /** Counts, kept through writes and commit notices (see count). */
  private readonly counts: Counts;
  /** Pages, plans and page cursors. */
  private readonly pages: Pages;
  /** Multi-row statements of bulk loads (see bulkLoad). */
  private bulk?: BulkRows;
  /** The counting thread (countOffThread), started on first use. */
  private counter?: CountingThread;

  constructor(readonly file: string, options: SqliteReadStoreOptions = {}) {
    this.readOnly = options.readOnly ?? false;
    this.db = openDatabase(file, options);
    this.tables = new Tables(this.db, (sql) => this.stmt(sql), this.readOnly, (tables) => this.counts.remember(tables));
    this.groups = new GroupCommit(this.db, options, (notice) => this.onCommitted?.(notice));
    this.indexes = new Indexes(this.tables, this.readOnly ? {} : options.extraIndexes ?? {});
    const counting = this.readOnly
      ? { offThreadRows: Infinity, staleCountWaitMs: 0 }
      : { offThreadRows: options.offThreadRows ?? 20_000, staleCountWaitMs: options.staleCountWaitMs ?? STALE_COUNT_WAIT_MS };
    this.counts = new Counts(this.tables, this.indexes, { ...counting, file }, (sql, params) => this.countOffThread(sql, params));
    this.pages = new Pages(this.tables, this.indexes, this.counts);
    if (this.readOnly) this.followOtherWriters();
  }

  /** A prepared statement, kept (up to STATEMENTS of them, then the cache starts over). Callers reading one column pluck it, so every statement with that column is plucked. */
  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      if (this.statements.size >= STATEMENTS) this.statements.clear();
      this.statements.set(sql, (s = this.db.prepare(sql)));
    }
    return s;
  }

  /** Reads what another process writes to this file (Tables.followOtherWriters, ADR 0025). */
  followOtherWriters(): void {
    this.tables.followOtherWriters();
  }

  /**
   * For the writer a reader follows (the projector thread): every group transaction bumps the
   * sequence number and its commit notice (onCommitted) says what it changed (ADR 0029).
   */
  trackChanges(): void {
    this.groups.tracker ??= new ChangeTracker();
  }

  /** Brings what is kept forward through the followed writer's commits by their notices (Tables.followCommitNotices, ADR 0029). */
  followCommitNotices(): void {
    this.tables.followCommitNotices();
  }

  /** A commit notice of the writer (undefined: a commit whose changes are not known: everything kept is dropped). */
  receiveNotice(notice: CommitNotice | undefined): void {
    this.tables.receiveNotice(notice);
  }

  /** The counts known now, per collection and filter key, at most `limit` (saved across restarts, count-hints.ts). */
  knownCounts(limit = 512): Array<[collection: string, key: string, n: number]> {
    return this.counts.known(limit);
  }

  /** Counts known before a restart, answered as last known ones while their recounts run. */
  seedKnownCounts(entries: ReadonlyArray<readonly [collection: string, key: string, n: number]>): void {
    this.counts.seed(entries);
  }

  collection<T extends Doc = Doc>(name: string): ReadCollection<T> {
    let c = this.collections.get(name);
    if (!c) this.collections.set(name, (c = new SqliteCollection(this, name)));
    return c as unknown as ReadCollection<T>;
  }

  async ensureIndexes(collection: string, indexes: string[][]): Promise<void> {
    this.indexes.ensure(collection, indexes);
  }

  /** Synchronous: one indexed read (the projectors' unit of work and company settings use it). */
  peek(collection: string, id: string): Doc | null {
    return this.tables.readDoc(this.tables.get(collection), id);
  }

  async getMany(collection: string, ids: string[]): Promise<Map<string, Doc>> {
    return this.tables.readDocs(this.tables.get(collection), ids);
  }

  /**
   * Writes and checkpoints. Up to CHUNK_DOCS documents are written with the checkpoints as one
   * unit (a savepoint); a larger write set is written a chunk at a time with the event loop
   * free between chunks, the checkpoints with the last one: after a crash in between, the
   * projectors replay the batch, and documents already written are skipped by their `_pos`
   * (unit-of-work.ts). Queries may meanwhile see part of such a batch (an import's rows).
   * Units are grouped into one SQLite transaction (GroupCommit, sqlite-group.ts).
   */
  async commit(writes: WriteSet, checkpoints: Checkpoint[]): Promise<void> {
    if (this.groups.failure) throw this.groups.failure;
    const entries: Array<[Table, string, Doc | null]> = [];
    for (const [name, docs] of writes) {
      const t = this.tables.get(name);
      for (const [id, doc] of docs) entries.push([t, id, doc]);
    }
    for (let at = 0; at < entries.length || at === 0; at += CHUNK_DOCS) {
      const last = at + CHUNK_DOCS >= entries.length;
      this.groups.open();
      writeChunk(this.tables, this.groups.tracker, entries.slice(at, at + CHUNK_DOCS), last ? checkpoints : []);
      this.groups.wrote(Math.min(CHUNK_DOCS, entries.length - at));
      if (!last) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /**
   * A count on the counting thread's own read connection (sqlite-count.mjs). It sees what is
   * committed, so the open group is committed first.
   */
  protected countOffThread(sql: string, params: unknown[]): Promise<number> {
    this.groups.commit();
    return (this.counter ??= new CountingThread(this.file)).count(sql, params);
  }

  /** Writes and checkpoints in one transaction, for collections no one reads meanwhile (BulkRows.load, ADR 0028). */
  async bulkLoad(writes: WriteSet, checkpoints: Checkpoint[]): Promise<void> {
    if (this.groups.failure) throw this.groups.failure;
    this.groups.commit();
    (this.bulk ??= new BulkRows(this.db)).load(this.tables, writes, checkpoints);
    this.onCommitted?.();
  }

  async getCheckpoints(): Promise<Checkpoint[]> {
    return this.stmt('SELECT name, version, position FROM _checkpoints').all() as Checkpoint[];
  }

  async drop(collections: string[], checkpointNames: string[]): Promise<void> {
    const inGroup = this.db.inTransaction;
    // Write transactions begin IMMEDIATE (here, in ensureIndexes, buildPending and writeChunk):
    // one that reads first and then writes fails at once, without waiting, when another
    // connection committed in between (a rebuild on several threads, rebuild-threads.ts: found at
    // 1,000,000 rows, where one thread's drop of a big table held the lock for seconds).
    this.db.transaction(() => {
      this.groups.tracker?.begin(this.db);
      for (const name of collections) {
        this.groups.tracker?.untracked(name);
        const t = this.tables.get(name);
        this.db.exec(`DROP TABLE IF EXISTS ${t.sql}`);
        this.db.exec(`CREATE TABLE ${t.sql} (id TEXT PRIMARY KEY, doc BLOB NOT NULL)`);
        // Filled from empty by a rebuild: the indexes are built when it is first read or
        // flushed (buildPending), except for a blue-green generation, which is built while the
        // live one answers and switched to without a pause.
        t.deferring = !/__g\d+$/.test(name);
        if (t.deferring) t.pending = [...t.indexes];
        else for (const fields of t.indexes) this.indexes.create(t, fields);
        this.stmt('DELETE FROM _kinds WHERE coll = ?').run(name);
        t.kinds.clear();
        t.counts.clear();
        t.cursors.clear();
        t.writes++;
      }
      for (const name of checkpointNames) this.stmt('DELETE FROM _checkpoints WHERE name = ?').run(name);
    }).immediate();
    // Committed on its own (no group open): its notice now.
    if (!inGroup && this.groups.tracker) this.onCommitted?.(this.groups.tracker.take());
    // Prepared statements of a dropped table are invalid now.
    for (const [sql] of this.statements) if (collections.some((c) => sql.includes(`"${tableName(c)}"`))) this.statements.delete(sql);
    for (const c of collections) this.bulk?.forget(`"${tableName(c)}"`);
  }

  /** Ends the open group transaction, if any. */
  async flush(): Promise<void> {
    await this.indexes.buildAllPending();
    this.groups.commit();
    // Statistics of tables that changed much since they were taken (cheap when none did).
    if (!this.tables.otherWriters) this.db.pragma('optimize');
    if (this.groups.failure) throw this.groups.failure;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.groups.commit();
    this.counter?.close();
    this.counter = undefined;
    try {
      if (!this.readOnly) this.db.pragma('optimize');
    } finally {
      this.db.close();
    }
  }

  /** The number of matches, kept through writes once asked for (lists ask on every page). */
  async count(name: string, filter: Filter): Promise<number> {
    return this.counts.count(name, filter);
  }

  /** A page (and, when asked, the number of all matches). */
  page(name: string, filter: Filter, options: FindOptions, withTotal: boolean): { docs: Doc[]; total?: number } {
    return this.pages.page(name, filter, options, withTotal);
  }

  /** How SQLite reads a page of a list, or null when part of it is left to JavaScript (tests and diagnosis). */
  plan(name: string, filter: Filter, options: FindOptions): string[] | null {
    return this.pages.plan(name, filter, options);
  }

  /** SQLite's plan for the full count of a filter (tests: whether it reads an index alone). */
  countPlan(name: string, filter: Filter): string[] | null {
    return this.pages.countPlan(name, filter);
  }

  /** Documents in `_id` order, `skip` matches on (paged.ts's readers continue where they left off). */
  mapPage(name: string, filter: Filter, skip: number, limit: number): Doc[] {
    return this.pages.mapPage(name, filter, skip, limit);
  }
}
