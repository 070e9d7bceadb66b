import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Doc } from '@paperlink/domain';
import type { Predicate } from './compile';
import type { PathKinds } from './sql-filter';
import { NoticeLog, SEQ_SQL, type CommitNotice } from './sqlite-notices';

/** Counts kept per collection (and maintained through writes), so a list's total is not recounted per page; anchors and cursors too. */
export const KEPT_COUNTS = 16;
/** Ids per statement of a read by ids (readDocs). */
const READ_IDS = 500;
/** Bumped when the shape of the indexes changes: indexes of another format are dropped on open. */
const INDEX_FORMAT = 2;

export interface KeptCount {
  n: number;
  test: Predicate;
  /** Following commit notices: the sequence number the count is of (see NoticeLog). */
  seq?: number;
}

/**
 * Following commit notices: positions in a sorted list (ADR 0029), so that a deep page is read
 * from the nearest one by its sort key (keyset) instead of walking its whole offset. Each anchor
 * holds the row's sort values (the last one its id) and how many rows sort up to it, itself included.
 */
export interface Anchors {
  seq: number;
  test: Predicate;
  /** The sort, `_id` last. */
  sort: Array<[string, 1 | -1]>;
  at: Array<{ offset: number; values: unknown[] }>;
}

/** A collection's table, and what this connection knows and keeps about it. */
export interface Table {
  name: string;
  sql: string;
  kinds: PathKinds;
  indexes: string[][];
  /** Declared indexes not built yet: a collection filled from empty gets them after its load (see drop). */
  pending: string[][];
  /** Filled from empty: indexes declared now wait in `pending` too. */
  deferring: boolean;
  counts: Map<string, KeptCount>;
  /** Where findInPages-style readers left off: filter and skip -> last id served. */
  cursors: Map<string, string>;
  /** Following commit notices: the sequence number the cursors were left at. */
  cursorsSeq?: number;
  /** Following commit notices: anchors of sorted lists, by filter and order (see Anchors). */
  anchors?: Map<string, Anchors>;
  /** Following commit notices: another connection committed since kinds and indexes were read. */
  stale?: boolean;
  /** Bumped by every write to the table (a count read elsewhere is kept only if none came meanwhile). */
  writes: number;
}

export function tableName(collection: string): string {
  return /^[A-Za-z0-9_]+$/.test(collection) ? `c_${collection}` : `c_x${Buffer.from(collection).toString('hex')}`;
}

/** An index's name: a hash of the format, the collection and the fields (an existing data folder's indexes keep theirs). */
export function indexName(t: Table, fields: string[]): string {
  return `ix_${createHash('sha1').update(`${INDEX_FORMAT}\0${t.name}\0${fields.join('\0')}`).digest('hex').slice(0, 12)}`;
}

/**
 * One connection's tables of the SQLite read store: each collection's table, created on first
 * use, with the kinds of its paths and its declared indexes (read from `_kinds` and `_indexes`),
 * and what the store keeps about it (counts, cursors, anchors). A connection that reads what
 * another writes (followOtherWriters) reads them again whenever that one has committed.
 */
export class Tables {
  readonly byName = new Map<string, Table>();
  /** Set when another process writes this file (see followOtherWriters). */
  otherWriters?: { version: Database.Statement; seen: unknown };
  /** Set by followCommitNotices: the notices of the writer this connection follows. */
  notices?: NoticeLog;

  /**
   * `stmt` prepares (and keeps) a statement; `forgotten` is given the tables whose kept values
   * are dropped (their counts become the last known ones).
   */
  constructor(
    readonly db: Database.Database,
    readonly stmt: (sql: string) => Database.Statement,
    private readonly readOnly: boolean,
    private readonly forgotten: (tables: ReadonlyMap<string, Table>) => void,
  ) {}

  /**
   * For a process that reads what another process's projectors write (PAPERLINK_ROLE command
   * or query, ADR 0025): what this connection keeps about the tables (the paths' kinds, the
   * indexes, kept counts and page cursors) is dropped whenever another connection has
   * committed since it was read (SQLite's data_version), and read again from the file.
   */
  followOtherWriters(): void {
    // The projector's group transactions hold the write lock up to a second: a table this
    // process creates first (an empty collection) waits for it instead of failing at once.
    this.db.pragma('busy_timeout = 5000');
    const version = this.db.prepare('PRAGMA data_version').pluck();
    this.otherWriters = { version, seen: version.get() };
  }

  /**
   * For a reader that follows another connection's writes (followOtherWriters) and gets that
   * writer's commit notices (receiveNotice): kept counts, page anchors and cursors are brought
   * forward through each commit by its notice instead of being dropped (ADR 0029).
   */
  followCommitNotices(): void {
    if (!this.otherWriters) throw new Error('followCommitNotices follows another writer (followOtherWriters first)');
    this.notices ??= new NoticeLog();
    this.notices.seq = this.readSeq();
  }

  /** A commit notice of the writer (undefined: a commit whose changes are not known: everything kept is dropped). */
  receiveNotice(notice: CommitNotice | undefined): void {
    if (!this.notices) return;
    if (notice) {
      this.notices.add(notice);
      return;
    }
    this.notices.clear();
    this.forget();
  }

  /** The sequence number of the last tracked commit the file holds (sqlite-notices.ts). */
  readSeq(): number {
    return this.stmt(`SELECT ${SEQ_SQL}`).pluck().get() as number;
  }

  /** Counts kept so far become the last known ones, and every table is read again. */
  forget(): void {
    this.forgotten(this.byName);
    this.byName.clear();
  }

  readDoc(t: Table, id: string): Doc | null {
    const d = this.stmt(`SELECT json(doc) AS d FROM ${t.sql} WHERE id = ?`).pluck().get(id) as string | undefined;
    return d === undefined ? null : (JSON.parse(d) as Doc);
  }

  /**
   * Documents by id: a few, one indexed read each; more, READ_IDS per statement (`id IN` a JSON
   * array, each a lookup through the primary key) instead of a statement run per id (ADR 0027:
   * an import's 100,000 keys and a projector's reads of an event's 1,000 documents).
   */
  readDocs(t: Table, ids: readonly string[]): Map<string, Doc> {
    const out = new Map<string, Doc>();
    if (ids.length <= 4) {
      for (const id of ids) {
        const doc = this.readDoc(t, id);
        if (doc) out.set(id, doc);
      }
      return out;
    }
    const select = this.stmt(`SELECT id, json(doc) AS d FROM ${t.sql} WHERE id IN (SELECT value FROM json_each(?))`);
    for (let at = 0; at < ids.length; at += READ_IDS) {
      for (const r of select.all(JSON.stringify(ids.slice(at, at + READ_IDS))) as Array<{ id: string; d: string }>) out.set(r.id, JSON.parse(r.d) as Doc);
    }
    return out;
  }

  /** A collection's table, created on first use, with what is known about its paths. */
  get(name: string): Table {
    if (this.otherWriters) {
      const now = this.otherWriters.version.get();
      if (now !== this.otherWriters.seen) {
        this.otherWriters.seen = now;
        if (this.notices) {
          // What is kept is brought forward by the notices when used; kinds and indexes are read again.
          this.notices.seq = this.readSeq();
          for (const kept of this.byName.values()) kept.stale = true;
        } else this.forget();
      }
    }
    let t = this.byName.get(name);
    if (t?.stale) this.reread(t);
    if (t) return t;
    const sql = `"${tableName(name)}"`;
    this.create(sql, name);
    t = { name, sql, kinds: new Map(), indexes: [], pending: [], deferring: false, counts: new Map(), cursors: new Map(), writes: 0 };
    const built = this.read(t);
    const expected = new Set(t.indexes.map((fields) => indexName(t!, fields)));
    // Indexes of an earlier format (INDEX_FORMAT) cost every write and serve nothing.
    if (!this.otherWriters) for (const old of built) if (old.startsWith('ix_') && !expected.has(old)) this.db.exec(`DROP INDEX "${old}"`);
    this.byName.set(name, t);
    return t;
  }

  /** Following commit notices: a table's kinds and indexes read again after another connection's commit (what is kept stays). */
  private reread(t: Table): void {
    t.stale = false;
    this.create(t.sql, t.name);
    this.read(t);
  }

  /** A table's kinds and declared indexes from the file, and which of them are not built yet; the names of those built. */
  private read(t: Table): Set<string> {
    t.kinds.clear();
    for (const row of this.stmt('SELECT path, bits FROM _kinds WHERE coll = ?').all(t.name) as Array<{ path: string; bits: number }>) t.kinds.set(row.path, row.bits);
    t.indexes = (this.stmt('SELECT fields FROM _indexes WHERE coll = ?').all(t.name) as Array<{ fields: string }>).map((r) => JSON.parse(r.fields) as string[]);
    const built = new Set(this.stmt("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?").pluck().all(tableName(t.name)) as string[]);
    t.pending = t.indexes.filter((fields) => !built.has(indexName(t, fields)));
    t.deferring = t.pending.length > 0;
    return built;
  }

  /** A collection's table; read-only, a temporary empty one where the file has none yet. */
  private create(sql: string, name: string): void {
    const exists = this.readOnly && this.stmt("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(tableName(name)) !== undefined;
    if (exists) return;
    this.db.exec(`CREATE ${this.readOnly ? 'TEMP ' : ''}TABLE IF NOT EXISTS ${sql} (id TEXT PRIMARY KEY, doc BLOB NOT NULL)`);
  }
}
