import type { Doc, Filter, FindOptions } from '@paperlink/domain';
import { compileWhere, orderBy } from './sql-filter';
import { ANCHOR_EVERY, anchoredIds } from './sqlite-anchors';
import type { Counts } from './sqlite-counts';
import { comparator, filterKey, predicate } from './sqlite-filters';
import type { Indexes } from './sqlite-indexes';
import { KEPT_COUNTS, type Table, type Tables } from './sqlite-tables';

type Where = ReturnType<typeof compileWhere>;

/**
 * Pages of the SQLite read store: MongoDB filters compiled to SQL where that is exact
 * (sql-filter.ts) and finished in JavaScript otherwise (sqlite-filters.ts); a sorted page read
 * from the index that holds its order, a deep one from a keyset anchor (sqlite-anchors.ts); and
 * findInPages-style readers continued after the last id served.
 */
export class Pages {
  constructor(private readonly tables: Tables, private readonly indexes: Indexes, private readonly counts: Counts) {}

  /** A page (and, when asked, the number of all matches). */
  page(name: string, filter: Filter, options: FindOptions, withTotal: boolean): { docs: Doc[]; total?: number } {
    const t = this.indexes.read(name);
    const where = compileWhere(filter, t.kinds);
    const sorted = Boolean(options.sort && Object.keys(options.sort).length > 0);
    const paged = options.limit !== undefined || (options.skip ?? 0) > 0;
    const order = sorted ? orderBy(options.sort, t.kinds) : paged ? 'id ASC' : undefined;
    // The total (when wanted) comes from count, which may read it on another thread.
    if (!where.rest && (order || !sorted)) return { docs: this.sqlPage(t, filter, where, options, order, paged) };
    return this.filteredPage(t, filter, where, options, order, withTotal);
  }

  /** A page SQL reads whole: by ids first when paged (from an index alone where one covers filter and order), then their documents. */
  private sqlPage(t: Table, filter: Filter, where: Where, options: FindOptions, order: string | undefined, paged: boolean): Doc[] {
    const { stmt } = this.tables;
    const skip = options.skip ?? 0;
    const limit = options.limit ?? -1;
    const orderSql = order ? ` ORDER BY ${order}` : '';
    if (!paged) {
      const all = (indexed: string) => stmt(`SELECT json(doc) AS d FROM ${t.sql}${indexed} WHERE ${where.sql.sql}${orderSql}`).pluck().all(...where.sql.params) as string[];
      const hinted = this.indexes.hint(t, options.hint);
      let rows: string[];
      try {
        rows = all(hinted);
      } catch (error) {
        if (!hinted) throw error;
        rows = all(''); // the hinted index cannot answer this filter: let the planner choose
      }
      return rows.map((d) => JSON.parse(d) as Doc);
    }
    const idsBy = (indexed: string) => stmt(`SELECT id FROM ${t.sql}${indexed} WHERE ${where.sql.sql}${orderSql} LIMIT ? OFFSET ?`).pluck().all(...where.sql.params, limit, skip) as string[];
    const indexed = this.indexes.order(t, filter, options.sort) || this.indexes.hint(t, options.hint);
    const sorted = Boolean(options.sort && Object.keys(options.sort).length > 0);
    let ids: string[] | undefined;
    try {
      // Deep in a sorted list, following commit notices: from the nearest anchor (ADR 0029).
      if (indexed && this.tables.notices && sorted && skip >= ANCHOR_EVERY) ids = anchoredIds(this.tables, t, filter, options.sort!, where.sql, indexed, skip, limit);
      ids ??= idsBy(indexed);
    } catch (error) {
      if (!indexed) throw error;
      ids = idsBy(''); // the planner found no way to use the index: let it choose
    }
    const docs: Doc[] = [];
    for (const id of ids) {
      const doc = this.tables.readDoc(t, id);
      if (doc) docs.push(doc);
    }
    return docs;
  }

  /** A page of a filter finished in JavaScript (or a sort SQL cannot read): the rows SQL selects, tested here. */
  private filteredPage(t: Table, filter: Filter, where: Where, options: FindOptions, order: string | undefined, withTotal: boolean): { docs: Doc[]; total?: number } {
    const skip = options.skip ?? 0;
    const limit = options.limit ?? -1;
    const test = where.rest ? predicate(where.rest) : () => true;
    const rows = this.tables.stmt(`SELECT json(doc) AS d FROM ${t.sql} WHERE ${where.sql.sql}${order ? ` ORDER BY ${order}` : ''}`).pluck().iterate(...where.sql.params) as IterableIterator<string>;
    const end = limit < 0 ? Infinity : skip + limit;
    if (order) {
      // In order from SQL: test each and keep the page; go on counting only for a total not kept.
      const kept = withTotal ? this.counts.kept(t, filter) : undefined;
      const counting = withTotal && kept === undefined;
      const docs: Doc[] = [];
      let n = 0;
      for (const d of rows) {
        const doc = JSON.parse(d) as Doc;
        if (!test(doc)) continue;
        if (n >= skip && n < end) docs.push(doc);
        n++;
        if (n >= end && !counting) {
          rows.return?.();
          break;
        }
      }
      if (counting) this.counts.keep(t, filter, n);
      return { docs, total: withTotal ? kept ?? n : undefined };
    }
    const all: Doc[] = [];
    for (const d of rows) {
      const doc = JSON.parse(d) as Doc;
      if (test(doc)) all.push(doc);
    }
    if (options.sort && Object.keys(options.sort).length > 0) all.sort(comparator(options.sort));
    if (withTotal) this.counts.keep(t, filter, all.length);
    return { docs: all.slice(skip, end), total: all.length };
  }

  /**
   * How SQLite reads a page of a list (EXPLAIN QUERY PLAN of the id query `page` runs), or
   * null when part of the filter or sort is left to JavaScript. For tests and diagnosis.
   */
  plan(name: string, filter: Filter, options: FindOptions): string[] | null {
    const t = this.indexes.read(name);
    const where = compileWhere(filter, t.kinds);
    const order = options.sort && Object.keys(options.sort).length > 0 ? orderBy(options.sort, t.kinds) : 'id ASC';
    if (where.rest || !order) return null;
    const sql = `EXPLAIN QUERY PLAN SELECT id FROM ${t.sql}${this.indexes.order(t, filter, options.sort) || this.indexes.hint(t, options.hint)} WHERE ${where.sql.sql} ORDER BY ${order} LIMIT ? OFFSET ?`;
    return (this.tables.db.prepare(sql).all(...where.sql.params, options.limit ?? -1, options.skip ?? 0) as Array<{ detail: string }>).map((r) => r.detail);
  }

  /** SQLite's plan for the full count of a filter (tests: whether it reads an index alone). */
  countPlan(name: string, filter: Filter): string[] | null {
    const t = this.indexes.read(name);
    const where = compileWhere(filter, t.kinds);
    if (where.rest) return null;
    const sql = `EXPLAIN QUERY PLAN SELECT count(*) FROM ${t.sql}${this.indexes.covering(t, filter)} WHERE ${where.sql.sql}`;
    return (this.tables.db.prepare(sql).all(...where.sql.params) as Array<{ detail: string }>).map((r) => r.detail);
  }

  /** Documents in `_id` order, `skip` matches on: a reader going through pages in turn continues after the last id it was served. */
  mapPage(name: string, filter: Filter, skip: number, limit: number): Doc[] {
    const t = this.indexes.read(name);
    const notices = this.tables.notices;
    if (notices && t.cursorsSeq !== notices.seq) {
      // Following commit notices: cursors stay only through commits that did not write the table.
      let changed = false;
      if (t.cursorsSeq === undefined || !notices.rollForward(t.name, t.cursorsSeq, () => (changed = true)) || changed) t.cursors.clear();
      t.cursorsSeq = notices.seq;
    }
    const where = compileWhere(filter, t.kinds);
    const key = filterKey(filter);
    const cursorKey = key === undefined ? undefined : `${key}\0${skip}`;
    const after = cursorKey === undefined ? undefined : t.cursors.get(cursorKey);
    const test = where.rest ? predicate(where.rest) : () => true;
    // Without a filter left for JavaScript, SQL skips (or continues after the last id served).
    const sqlSkips = !where.rest;
    let toSkip = after === undefined && !sqlSkips ? skip : 0;
    const docs: Doc[] = [];
    const sql = `SELECT json(doc) AS d FROM ${t.sql} WHERE ${where.sql.sql}${after === undefined ? '' : ' AND id > ?'} ORDER BY id${sqlSkips ? ' LIMIT ? OFFSET ?' : ''}`;
    const params = [...where.sql.params, ...(after === undefined ? [] : [after]), ...(sqlSkips ? [limit, after === undefined ? skip : 0] : [])];
    const rows = this.tables.stmt(sql).pluck().iterate(...params) as IterableIterator<string>;
    for (const d of rows) {
      const doc = JSON.parse(d) as Doc;
      if (!test(doc)) continue;
      if (toSkip > 0) {
        toSkip--;
        continue;
      }
      docs.push(doc);
      if (docs.length >= limit) {
        rows.return?.();
        break;
      }
    }
    if (cursorKey !== undefined) {
      t.cursors.delete(cursorKey);
      if (docs.length > 0) {
        if (t.cursors.size >= KEPT_COUNTS) t.cursors.delete(t.cursors.keys().next().value!);
        t.cursors.set(`${key}\0${skip + docs.length}`, docs[docs.length - 1]!._id);
      }
    }
    return docs;
  }
}
