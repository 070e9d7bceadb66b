import type { Filter } from '@paperlink/domain';
import { keyFields } from './covering';
import { compileWhere } from './sql-filter';
import { filterKey, predicate } from './sqlite-filters';
import type { Indexes } from './sqlite-indexes';
import { SEQ_SQL } from './sqlite-notices';
import { indexName, KEPT_COUNTS, type Table, type Tables } from './sqlite-tables';

/** Counts up to this many are read on the request thread from the index of their equalities (smallCount). */
const SMALL_COUNT = 2_000;
/** How long a count waits for its recount before answering with the last known one (see lastCounts). */
export const STALE_COUNT_WAIT_MS = 50;

export interface CountOptions {
  /** Counts of collections with at least this many rows run on the counting thread. */
  offThreadRows: number;
  /** With other writers: how long a count waits for its recount before answering the last known one. */
  staleCountWaitMs: number;
  /** The store's file (':memory:' has no counting thread: another connection would see another database). */
  file: string;
}

/** A count as its statement answers it: a number, or a number and a sequence number as JSON (countSql). */
function counted(value: unknown): { n: number; seq?: number } {
  if (typeof value !== 'string') return { n: value as number };
  const [n, seq] = JSON.parse(value) as [number, number];
  return { n, seq };
}

/**
 * Counts of the SQLite read store: kept per table and filter once asked for and maintained
 * through writes (a list asks on every page), brought through another writer's commits by its
 * notices (ADR 0029); a big table's counted on the counting thread, a few matches from their
 * index here; with other writers, the last known count answers while a slow recount runs.
 */
export class Counts {
  /**
   * With other writers (followOtherWriters): the last count known per collection and filter,
   * from before another connection's commit. A big table's recount that takes longer than
   * STALE_COUNT_WAIT_MS answers with it meanwhile (a list's total a recount behind, while a big
   * import commits every 200 ms), instead of every list page waiting for a full recount.
   */
  private readonly lastCounts = new Map<string, Map<string, number>>();
  /** Counts seeded from before a restart (seed) whose recount has not started: answered without a wait. */
  private readonly hinted = new Set<string>();
  /** Recounts under way, one per collection and filter. */
  private readonly recounts = new Map<string, Promise<number | undefined>>();
  /** How long the last recount of each count took (ms): one known to take longer than the wait is not waited for. */
  private readonly recountMs = new Map<string, number>();

  /** `offThread` counts on the counting thread (SqliteReadStore.countOffThread). */
  constructor(
    private readonly tables: Tables,
    private readonly indexes: Indexes,
    private readonly options: CountOptions,
    private readonly offThread: (sql: string, params: unknown[]) => Promise<number>,
  ) {}

  /**
   * The counts known now, per collection and filter key: those kept (maintained through writes)
   * first, then the last known ones; at most `limit`. Saved across restarts (count-hints.ts).
   */
  known(limit: number): Array<[collection: string, key: string, n: number]> {
    const out: Array<[string, string, number]> = [];
    const seen = new Set<string>();
    const add = (collection: string, key: string, n: number) => {
      const id = `${collection}\u0000${key}`;
      if (seen.has(id) || out.length >= limit) return;
      seen.add(id);
      out.push([collection, key, n]);
    };
    for (const [name, t] of this.tables.byName) for (const [key, kept] of t.counts) add(name, key, kept.n);
    for (const [name, last] of this.lastCounts) for (const [key, n] of last) add(name, key, n);
    return out;
  }

  /**
   * Counts known before a restart, as last known ones: a big count's first call after the start
   * answers with one at once (see `hinted`) instead of waiting for a recount of the whole table
   * (the unmatched transactions of 1,000,000: 1.2-2.2 s), and the recount it starts replaces it.
   */
  seed(entries: ReadonlyArray<readonly [collection: string, key: string, n: number]>): void {
    for (const [collection, key, n] of entries) {
      let last = this.lastCounts.get(collection);
      if (!last) this.lastCounts.set(collection, (last = new Map()));
      if (last.has(key)) continue;
      last.set(key, n);
      this.hinted.add(`${collection}\u0000${key}`);
    }
  }

  /** Counts kept of tables whose kept values are dropped become the last known ones (see count). */
  remember(tables: ReadonlyMap<string, Table>): void {
    for (const [name, kept] of tables) {
      let last = this.lastCounts.get(name);
      if (!last) this.lastCounts.set(name, (last = new Map()));
      for (const [key, c] of kept.counts) last.set(key, c.n);
    }
  }

  /** A count kept since it was last asked for (and maintained through writes), if there is one. */
  kept(t: Table, filter: Filter): number | undefined {
    const key = filterKey(filter);
    const kept = key === undefined ? undefined : t.counts.get(key);
    if (!kept) return undefined;
    t.counts.delete(key!);
    if (this.tables.notices) {
      // Brought through the writer's commits since it was counted by their notices (ADR 0029);
      // without them it is only the last known count.
      const moved = kept.seq !== undefined && this.tables.notices.rollForward(t.name, kept.seq, (before, after) => {
        kept.n += (after !== null && kept.test(after) ? 1 : 0) - (before !== null && kept.test(before) ? 1 : 0);
      });
      if (!moved) {
        this.lastKnown(t.name, key!, kept.n);
        return undefined;
      }
      kept.seq = this.tables.notices.seq;
    }
    t.counts.set(key!, kept);
    return kept.n;
  }

  /**
   * Keeps a count. Following commit notices, `seq` says which commits it includes (read with it);
   * a count without one is only the last known count.
   */
  keep(t: Table, filter: Filter, n: number, seq?: number): void {
    const key = filterKey(filter);
    if (key === undefined) return;
    if (this.tables.notices && seq === undefined) {
      this.lastKnown(t.name, key, n);
      return;
    }
    if (t.counts.size >= KEPT_COUNTS) t.counts.delete(t.counts.keys().next().value!);
    t.counts.set(key, { n, test: predicate(filter), ...(seq === undefined ? {} : { seq }) });
  }

  private lastKnown(name: string, key: string, n: number): void {
    let last = this.lastCounts.get(name);
    if (!last) this.lastCounts.set(name, (last = new Map()));
    last.set(key, n);
  }

  /** Following commit notices: a count and the sequence number of the commits it includes, in one statement. */
  private countSql(t: Table, where: string, indexed = ''): string {
    return this.tables.notices ? `SELECT json_array(count(*), ${SEQ_SQL}) FROM ${t.sql}${indexed} WHERE ${where}` : `SELECT count(*) AS n FROM ${t.sql}${indexed} WHERE ${where}`;
  }

  /** The number of matches, kept through writes once asked for (lists ask on every page). */
  async count(name: string, filter: Filter): Promise<number> {
    const { db, stmt } = this.tables;
    const t = this.indexes.read(name);
    const kept = this.kept(t, filter);
    if (kept !== undefined) return kept;
    const where = compileWhere(filter, t.kinds);
    let n = 0;
    let seq: number | undefined;
    if (!where.rest) {
      const sql = this.countSql(t, where.sql.sql, this.indexes.covering(t, filter));
      const rows = stmt(`SELECT max(rowid) FROM ${t.sql}`).pluck().get() as number | null;
      if ((rows ?? 0) >= this.options.offThreadRows && this.options.file !== ':memory:') {
        // A few matches (a member's receipts in a company of 100,000) are counted here, from the
        // index their equalities select, reading at most SMALL_COUNT + 1 entries: sent to the
        // counting thread they waited behind a big table's recount (90-110 ms a page during jobs).
        const small = this.smallCount(t, filter, where.sql);
        if (small !== undefined) {
          this.keep(t, filter, small.n, small.seq);
          return small.n;
        }
        const answer = await this.recount(t, filter, sql, where.sql.params);
        if (answer !== undefined) return answer;
      }
      ({ n, seq } = counted(stmt(sql).pluck().get(...where.sql.params)));
    } else {
      const test = predicate(where.rest);
      // Following notices: the sequence number read in the same read transaction as the rows.
      db.transaction(() => {
        if (this.tables.notices) seq = this.tables.readSeq();
        for (const d of stmt(`SELECT json(doc) AS d FROM ${t.sql} WHERE ${where.sql.sql}`).pluck().iterate(...where.sql.params) as Iterable<string>) {
          if (test(JSON.parse(d))) n++;
        }
      })();
    }
    this.keep(t, filter, n, seq);
    return n;
  }

  /**
   * A big table's count on the counting thread (one recount per collection and filter at a
   * time), kept when it comes. Answers it, or the last known count when the recount is not back
   * in time; undefined when neither is there (the count is then read here).
   */
  private async recount(t: Table, filter: Filter, sql: string, params: unknown[]): Promise<number | undefined> {
    const name = t.name;
    const { staleCountWaitMs } = this.options;
    const writes = t.writes;
    const key = filterKey(filter);
    const flight = `${name}\u0000${key ?? sql + JSON.stringify(params)}`;
    let recount = this.recounts.get(flight);
    // A recount already under way: an earlier call waited for it (STALE_COUNT_WAIT_MS) and
    // answered the last known count; this one does not wait again.
    const alreadyCounting = recount !== undefined;
    // A count from before the restart: its first recount is not waited for either (how long it
    // takes is not known yet, and a big one takes seconds).
    const hinted = this.hinted.delete(flight);
    if (!recount) {
      const started = performance.now();
      recount = this.offThread(sql, params).then(
        (value) => {
          if (this.recountMs.size >= 1024) this.recountMs.clear();
          this.recountMs.set(flight, performance.now() - started);
          const { n, seq: at } = counted(value);
          // Following notices: kept with the commits it includes. Otherwise kept only when
          // nothing was written meanwhile (the writes would be missing from it).
          if (this.tables.notices) this.keep(t, filter, n, at);
          else if (t.writes === writes && this.tables.byName.get(name) === t) this.keep(t, filter, n);
          if (key !== undefined) this.lastCounts.get(name)?.set(key, n);
          return n;
        },
        () => undefined,
      ).finally(() => this.recounts.delete(flight));
      this.recounts.set(flight, recount);
    }
    const last = key === undefined ? undefined : this.lastCounts.get(name)?.get(key);
    // A recount that took longer than the wait last time will again (1,000,000 rows: 100-250
    // ms): waiting for it only delays the answer it cannot change (a list during an import,
    // whose commits drop the kept count, paid the whole wait on every page).
    const slow = alreadyCounting || hinted || (this.recountMs.get(flight) ?? 0) > staleCountWaitMs;
    const answer = last === undefined
      ? await recount
      : staleCountWaitMs <= 0 || slow
        ? undefined
        : await Promise.race([recount, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), staleCountWaitMs))]);
    return answer ?? last;
  }

  /**
   * The count of a filter made only of equalities on the first fields of a built index, when it is
   * at most SMALL_COUNT: read from that index with a limit, so the work is bounded whatever the
   * table's size. Undefined when the filter is not of that shape or has more matches.
   */
  private smallCount(t: Table, filter: Filter, where: { sql: string; params: unknown[] }): { n: number; seq?: number } | undefined {
    const keys = Object.keys(filter);
    if (keys.length === 0 || !keys.every((k) => !k.startsWith('$') && (typeof filter[k] === 'string' || typeof filter[k] === 'number'))) return undefined;
    const pinned = new Set(keys);
    const index = t.indexes.find((fields) => !t.pending.includes(fields) && keyFields(fields).length >= pinned.size && keyFields(fields).slice(0, pinned.size).every((f) => pinned.has(f)));
    if (!index) return undefined;
    const inner = `SELECT count(*) FROM (SELECT 1 FROM ${t.sql} INDEXED BY "${indexName(t, index)}" WHERE ${where.sql} LIMIT ${SMALL_COUNT + 1})`;
    try {
      const got = counted(this.tables.stmt(this.tables.notices ? `SELECT json_array((${inner}), ${SEQ_SQL})` : inner).pluck().get(...where.params));
      return got.n <= SMALL_COUNT ? got : undefined;
    } catch {
      return undefined; // the index cannot answer this filter as compiled: count as before
    }
  }
}
