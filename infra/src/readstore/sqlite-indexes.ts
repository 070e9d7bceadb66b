import type { Filter, SortSpec } from '@paperlink/domain';
import { allProjections, type Projection } from '@paperlink/projections';
import { coveringIndexFor, includedFields, keyFields, withoutReplaced } from './covering';
import { pathExpr } from './sql-filter';
import { indexName, type Table, type Tables } from './sqlite-tables';

/**
 * The list orders the projections declare (Projection.listIndexes), by collection: the SQLite
 * read store builds them besides the indexes of `collections` (its extraIndexes), so a page of
 * a big list is read from an index in order instead of sorting every match.
 */
export function listIndexes(projections: readonly Projection[] = allProjections()): Record<string, string[][]> {
  const out: Record<string, string[][]> = {};
  for (const p of projections) for (const [collection, indexes] of Object.entries(p.listIndexes ?? {})) (out[collection] ??= []).push(...indexes);
  return out;
}

/**
 * The indexes of the SQLite read store's tables: expression indexes on `json_extract`, declared
 * in `_indexes`, built at once or, for a collection filled from empty, after its load; and
 * which of them a query names (`INDEXED BY`) so SQLite reads a page or a count from it.
 */
export class Indexes {
  /** `extra`: indexes beyond those declared, by collection (SqliteReadStoreOptions.extraIndexes). */
  constructor(private readonly tables: Tables, private readonly extra: Record<string, string[][]>) {}

  /** A table about to be queried (not read by id): with its indexes. */
  read(name: string): Table {
    const t = this.tables.get(name);
    this.buildPending(t);
    return t;
  }

  /** Declares a collection's indexes (and its extra ones) and builds those new to it, unless it waits for its load. */
  ensure(collection: string, indexes: string[][]): void {
    const { db, stmt } = this.tables;
    const t = this.tables.get(collection);
    const { wanted, replaced } = withoutReplaced([...indexes, ...(this.extra[collection.replace(/__g\d+$/, '')] ?? [])]);
    for (const fields of t.indexes.filter(replaced)) {
      // Replaced by one with included fields (a data folder from before them): it goes, that one is built.
      if (!this.tables.otherWriters) {
        db.transaction(() => {
          stmt('DELETE FROM _indexes WHERE coll = ? AND fields = ?').run(collection, JSON.stringify(fields));
          db.exec(`DROP INDEX IF EXISTS "${indexName(t, fields)}"`);
        }).immediate();
      }
      t.indexes = t.indexes.filter((i) => i !== fields);
      t.pending = t.pending.filter((i) => i !== fields);
    }
    for (const fields of wanted) {
      if (fields.length === 0 || t.indexes.some((i) => i.join('\0') === fields.join('\0'))) continue;
      const later = t.deferring;
      db.transaction(() => {
        if (!later) this.create(t, fields);
        stmt('INSERT OR IGNORE INTO _indexes (coll, fields) VALUES (?, ?)').run(collection, JSON.stringify(fields));
      }).immediate();
      t.indexes.push(fields);
      if (later) t.pending.push(fields);
    }
  }

  /**
   * The fields, then `id DESC`: lists sort descending by default with ties by ascending id,
   * which a backward scan of the index then reads in order (no sort of equal keys: a page
   * 25,000 entries deep into a million by date took 50-110 ms sorting each day's ties).
   * Included fields (`+name`, covering.ts) come after the id: they change no order, and a filter
   * on them is decided from the index entry (a count reads the index alone).
   */
  create(t: Table, fields: string[]): void {
    const columns = [...keyFields(fields).filter((f) => f !== '_id').map(pathExpr), 'id DESC', ...includedFields(fields).map(pathExpr)];
    this.tables.db.exec(`CREATE INDEX IF NOT EXISTS "${indexName(t, fields)}" ON ${t.sql} (${columns.join(', ')})`);
  }

  /**
   * Builds the indexes a collection filled from empty was waiting for. SQLite builds an index
   * from a sort of the whole table, several times faster than updating it row by row while
   * the rows arrive. Not in a process that follows another's writes (it never writes).
   */
  private buildPending(t: Table): void {
    if (!t.deferring || this.tables.otherWriters) return;
    const pending = t.pending;
    this.tables.db.transaction(() => {
      for (const fields of pending) this.create(t, fields);
    }).immediate();
    t.pending = [];
    t.deferring = false;
    this.analyze(t);
  }

  /** Builds every table's pending indexes one at a time, the event loop free between them (a million rows: seconds each). */
  async buildAllPending(): Promise<void> {
    for (const t of [...this.tables.byName.values()]) {
      if (!t.deferring || this.tables.otherWriters) continue;
      while (t.pending.length > 0 && this.tables.byName.get(t.name) === t) {
        this.create(t, t.pending[0]!);
        t.pending.shift();
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (t.pending.length > 0) continue;
      t.deferring = false;
      this.analyze(t);
    }
  }

  /**
   * Statistics of a table (a sample: analysis_limit): without them SQLite reads a filter that
   * selects most of a company's rows through the companyId index, a random lookup per row (a
   * count of 1,000,000 unmatched transactions took 11 s), where a scan of the table is sequential.
   */
  private analyze(t: Table): void {
    this.tables.db.exec(`ANALYZE ${t.sql}`);
  }

  /**
   * The index that reads a sorted page in order: its first fields pinned by equalities of the
   * filter, the next ones the sort's keys. Without statistics SQLite prefers a range on another
   * index and sorts every match (a date range sorted by amount: 120,000 rows of a million);
   * read in order from a covering index, a page costs the entries up to it.
   */
  order(t: Table, filter: Filter, sort: SortSpec | undefined): string {
    const keys = Object.keys(sort ?? {});
    if (keys.length === 0) return '';
    const pinned = new Set(Object.entries(filter).filter(([k, v]) => !k.startsWith('$') && (typeof v === 'string' || typeof v === 'number')).map(([k]) => k));
    // Of the indexes that read the order, the one that pins the most equalities: a member's
    // receipts by upload date are read from (companyId, userId, upload_date), not from the
    // company's (companyId, upload_date) filtered row by row (100,000 entries for a member with
    // none: 76 ms a page).
    let best: { fields: string[]; at: number } | undefined;
    for (const fields of t.indexes) {
      if (t.pending.includes(fields)) continue;
      const order = keyFields(fields);
      let at = 0;
      while (at < order.length && pinned.has(order[at]!)) at++;
      if (at < order.length && order[at] === keys[0] && (!best || at > best.at)) best = { fields, at };
    }
    return best ? ` INDEXED BY "${indexName(t, best.fields)}"` : '';
  }

  /** `INDEXED BY` the index a query names by its fields (FindOptions.hint), when the table has it built. */
  hint(t: Table, hint: readonly string[] | undefined): string {
    if (!hint || hint.length === 0) return '';
    // By its keys: the (companyId, transaction_date) a query names is the index that carries included fields too.
    const fields = t.indexes.find((i) => i.join('\0') === hint.join('\0')) ?? t.indexes.find((i) => keyFields(i).join('\0') === hint.join('\0'));
    return fields && !t.pending.includes(fields) ? ` INDEXED BY "${indexName(t, fields)}"` : '';
  }

  /** `INDEXED BY` the index with included fields a count of `filter` reads alone (covering.ts), if any. */
  covering(t: Table, filter: Filter): string {
    const cover = coveringIndexFor(t.indexes.filter((i) => !t.pending.includes(i)), filter);
    return cover ? ` INDEXED BY "${indexName(t, cover)}"` : '';
  }
}
