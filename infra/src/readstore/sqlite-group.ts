import type Database from 'better-sqlite3';
import type { ChangeTracker, CommitNotice } from './sqlite-notices';

/** A group transaction is committed after this long (ms) or this many documents. */
export const GROUP_MS = 200;
const GROUP_DOCS = 10_000;
/**
 * A group that has taken BULK_AT documents is a bulk flow (an import's rows, a catch-up): it stays
 * open while writes keep coming, up to GROUP_BULK_MS or GROUP_BULK_DOCS, and is committed once no
 * write came for GROUP_MS (or at once when the projector thread reaches the log's head, flush).
 * Each COMMIT writes every page its group changed to the log, and an import's rows change pages
 * of eight indexes at random: 100,000 rows into 100,000 in groups of 200 ms took 32.7 s to be
 * listed, in groups of up to 3 s 17.3 s (bench/import-cost.ts, ADR 0027 amendment).
 */
const BULK_AT = 2_000;
const GROUP_BULK_MS = 3_000;
const GROUP_BULK_DOCS = 100_000;
/** The bulk group limits, for a store whose commits never run on the request thread (the projector thread's). */
export const BULK_GROUPS = { groupBulkMs: GROUP_BULK_MS, groupBulkDocs: GROUP_BULK_DOCS } as const;

/**
 * The group transaction of the SQLite read store's writes: units of work are grouped into one
 * SQLite transaction for up to GROUP_MS (or GROUP_DOCS documents), a bulk flow's for up to its
 * bulk limits while its writes keep coming. Each commit writes every page it changed to the log,
 * and a unit of 500 documents changes a page of every index per document, so one transaction per
 * unit wrote about 30 times the data. A crash loses at most the open group, writes and
 * checkpoints together (the projectors replay them).
 */
export class GroupCommit {
  private group?: { since: number; docs: number; last: number };
  private timer?: NodeJS.Timeout;
  private readonly bulkMs: number;
  private readonly bulkDocs: number;
  /** Set when a group's COMMIT failed: its writes are gone, so no more are taken (a restart replays them). */
  failure?: Error;
  /** Set by trackChanges: the changes of the open group, for its commit notice. */
  tracker?: ChangeTracker;

  /**
   * `limits`: how long (ms) and how many documents a bulk flow's group may hold (by default a
   * small one's); `committed` is called after each COMMIT, with the group's notice when tracked.
   */
  constructor(private readonly db: Database.Database, limits: { groupBulkMs?: number; groupBulkDocs?: number }, private readonly committed: (notice?: CommitNotice) => void) {
    this.bulkMs = limits.groupBulkMs ?? GROUP_MS;
    this.bulkDocs = limits.groupBulkDocs ?? GROUP_DOCS;
  }

  /** Opens a group transaction, unless one is open. */
  open(): void {
    if (this.db.inTransaction) return;
    this.db.exec('BEGIN IMMEDIATE');
    this.group = { since: performance.now(), docs: 0, last: 0 };
    this.tracker?.begin(this.db);
  }

  /** `docs` documents were written in the open group: it is committed if due, else by its timer. */
  wrote(docs: number): void {
    const group = this.group!;
    group.docs += docs;
    group.last = performance.now();
    if (this.isDue(group, group.last)) this.commit();
    else this.timer ??= setTimeout(() => this.timeUp(), GROUP_MS);
  }

  /** Ends the open group transaction (durable from here). */
  commit(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.group = undefined;
    if (!this.db.open || !this.db.inTransaction) return;
    const notice = this.tracker?.take();
    try {
      this.db.exec('COMMIT');
      this.committed(notice);
    } catch (error) {
      // The group's writes are gone and the projectors believe them applied: stop taking writes
      // (the runner stops; a restart replays from the stored checkpoints).
      this.failure = error instanceof Error ? error : new Error(String(error));
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      console.error('read store commit failed; restart to replay the read models:', error);
    }
  }

  /** Whether the open group is to be committed now: it reached its size or its age (a bulk flow's are larger). */
  private isDue(group: { since: number; docs: number }, now: number): boolean {
    const bulk = group.docs >= BULK_AT;
    return group.docs >= (bulk ? Math.max(GROUP_DOCS, this.bulkDocs) : GROUP_DOCS) || now - group.since >= (bulk ? Math.max(GROUP_MS, this.bulkMs) : GROUP_MS);
  }

  /** The group's timer: committed when due or when no write came for GROUP_MS; else looked at again later. */
  private timeUp(): void {
    this.timer = undefined;
    const group = this.group;
    if (!group || !this.db.inTransaction) return;
    const now = performance.now();
    if (this.isDue(group, now) || now - group.last >= GROUP_MS) this.commit();
    else this.timer = setTimeout(() => this.timeUp(), Math.max(1, GROUP_MS - (now - group.last)));
  }
}
