import type Database from 'better-sqlite3';
import type { Doc } from '@paperlink/domain';

/**
 * Commit notices (ADR 0029): what one commit of the read models' writer (the projector thread,
 * ADR 0008) changed, sent with its "committed" message, so that a reader on another connection
 * (the request thread) keeps its kept counts and page anchors through the commit instead of
 * dropping them and recounting a million rows (or walking a deep page's offset again).
 *
 * Every commit that tracks its changes bumps a sequence number in the same transaction
 * (`_seq`); the reader reads it with every count and anchor (in the same statement or read
 * transaction), so it knows which commits a kept value includes and applies exactly the
 * notices after it. A value whose next notice is missing (not arrived yet, or a commit that
 * did not track, like a drop or a bulk load) is dropped: never applied twice, never skipped.
 */
export interface CommitNotice {
  /** The sequence number this commit set. */
  seq: number;
  /**
   * Per table (the store's collection name): each changed document before and after (null:
   * absent), or null when the commit changed too many of them to send (the reader drops what it
   * keeps about that table).
   */
  changes: Array<[string, Array<[Doc | null, Doc | null]> | null]>;
}

/** Documents of one commit sent with its notice, at most (an import's commits send none). */
export const TRACK_DOCS = 256;

export const SEQ_TABLE_SQL = 'CREATE TABLE IF NOT EXISTS _seq (k INTEGER PRIMARY KEY CHECK (k = 0), n INTEGER NOT NULL)';
/** The sequence number as a subquery (0 before the first tracked commit). */
export const SEQ_SQL = 'COALESCE((SELECT n FROM _seq WHERE k = 0), 0)';

/** The writer's side: the changes of the open group transaction. */
export class ChangeTracker {
  private changes = new Map<string, Array<[Doc | null, Doc | null]> | null>();
  private docs = 0;
  private seq?: number;

  /** Inside the group's transaction: bumps the sequence number once per group. */
  begin(db: Database.Database): void {
    if (this.seq !== undefined) return;
    this.seq = db.prepare(`INSERT INTO _seq (k, n) VALUES (0, 1) ON CONFLICT (k) DO UPDATE SET n = n + 1 RETURNING n`).pluck().get() as number;
  }

  /** Whether documents' before-images are still wanted for `table` (false once the commit holds too many). */
  wants(table: string, n: number): boolean {
    if (this.changes.get(table) === null) return false;
    if (this.docs + n <= TRACK_DOCS) return true;
    this.changes.set(table, null);
    return false;
  }

  record(table: string, before: Doc | null, after: Doc | null): void {
    const list = this.changes.get(table);
    if (list === null) return;
    if (list) list.push([before, after]);
    else this.changes.set(table, [[before, after]]);
    this.docs++;
  }

  /** A table whose changes are not sent (too many, dropped, loaded in bulk). */
  untracked(table: string): void {
    this.changes.set(table, null);
  }

  /** The group's notice (undefined when nothing was tracked), and a fresh start for the next group. */
  take(): CommitNotice | undefined {
    const seq = this.seq;
    const changes = [...this.changes];
    this.changes = new Map();
    this.docs = 0;
    this.seq = undefined;
    return seq === undefined ? undefined : { seq, changes };
  }

  /** The group rolled back: nothing to send. */
  discard(): void {
    this.take();
  }
}

/** The reader's side: notices received, and the sequence number the file holds. */
export class NoticeLog {
  private readonly notices = new Map<number, CommitNotice>();
  /** The file's sequence number when last read (on each change of data_version). */
  seq = 0;

  add(notice: CommitNotice): void {
    this.notices.set(notice.seq, notice);
    // Notices come in order; those far behind serve no kept value any more.
    if (this.notices.size > 512) for (const s of [...this.notices.keys()].sort((a, b) => a - b).slice(0, 256)) this.notices.delete(s);
  }

  /** Notices received are of no use any more (a commit that no notice describes was seen). */
  clear(): void {
    this.notices.clear();
  }

  /**
   * Brings a value kept at sequence `from` to `this.seq`: calls `apply` for each change of
   * `table` in the notices after it, in order. False (and nothing applied) when a notice is
   * missing or holds no changes for the table; the value must then be dropped.
   */
  rollForward(table: string, from: number, apply: (before: Doc | null, after: Doc | null) => void): boolean {
    if (from > this.seq) return false;
    const lists: Array<Array<[Doc | null, Doc | null]>> = [];
    for (let s = from + 1; s <= this.seq; s++) {
      const n = this.notices.get(s);
      if (!n) return false;
      const entry = n.changes.find(([name]) => name === table);
      if (!entry) continue;
      if (entry[1] === null) return false;
      lists.push(entry[1]);
    }
    for (const list of lists) for (const [before, after] of list) apply(before, after);
    return true;
  }
}

/** SQLite's order of the values a plain path holds (NULL < numbers < text, text by code point). */
export function compareSql(a: unknown, b: unknown): number {
  const rank = (v: unknown) => (v === null || v === undefined ? 0 : typeof v === 'number' ? 1 : 2);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return 0;
  if (ra === 1) return (a as number) - (b as number);
  const sa = String(a);
  const sb = String(b);
  if (sa === sb) return 0;
  return Buffer.compare(Buffer.from(sa), Buffer.from(sb));
}
