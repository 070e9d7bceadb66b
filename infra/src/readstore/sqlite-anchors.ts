import type { Doc, Filter, SortSpec } from '@paperlink/domain';
import { getPath } from './sort';
import { pathExpr } from './sql-filter';
import { filterKey, predicate } from './sqlite-filters';
import { compareSql } from './sqlite-notices';
import { KEPT_COUNTS, type Anchors, type Table, type Tables } from './sqlite-tables';

/** Following commit notices: a deep page is read from an anchor at most this many rows before it (see anchoredIds). */
export const ANCHOR_EVERY = 2000;

/** The value of a sort path as SQL reads it (json_extract: a missing path is NULL). */
function sortValue(doc: Doc, path: string): unknown {
  const v = path === '_id' ? doc._id : getPath(doc, path);
  return v === undefined ? null : v;
}

/** Shifts anchors by one document's change: how many matching rows sort up to each of them. */
function shiftAnchors(a: Anchors, before: Doc | null, after: Doc | null): void {
  const upTo = (doc: Doc | null, values: unknown[]) => {
    if (doc === null || !a.test(doc)) return 0;
    for (let i = 0; i < a.sort.length; i++) {
      const [path, dir] = a.sort[i]!;
      const c = compareSql(sortValue(doc, path), values[i]) * dir;
      if (c !== 0) return c < 0 ? 1 : 0;
    }
    return 1;
  };
  for (const x of a.at) x.offset += upTo(after, x.values) - upTo(before, x.values);
}

/**
 * The ids of a deep page of a sorted list from the nearest anchor at or before it (keyset:
 * the rows after the anchor's sort values and id), walking on from there in steps of
 * ANCHOR_EVERY rows that become anchors too; an OFFSET walk reads every index entry before the
 * page (a page 760,000 rows into a million: hundreds of ms). Anchors follow the writer's
 * commits through its notices (shifted by the documents that moved across them) and are kept
 * per filter and order. Undefined when the page is better read by OFFSET (values SQL cannot
 * seek by, a commit between the notices and this read, the end of the list near NULLs).
 */
export function anchoredIds(tables: Tables, t: Table, filter: Filter, sortSpec: SortSpec, where: { sql: string; params: unknown[] }, indexed: string, skip: number, limit: number): string[] | undefined {
  const key = filterKey(filter);
  if (key === undefined || limit <= 0) return undefined;
  const sort = Object.entries(sortSpec).map(([p, d]) => [p, d === -1 ? -1 : 1] as [string, 1 | -1]);
  if (!sort.some(([p]) => p === '_id')) sort.push(['_id', 1]);
  const exprs = sort.map(([p]) => pathExpr(p));
  const order = sort.map(([, d], i) => `${exprs[i]} ${d === -1 ? 'DESC' : 'ASC'}`).join(', ');
  const notices = tables.notices!;
  const anchorKey = `${key}\0${order}`;
  t.anchors ??= new Map();
  let a = t.anchors.get(anchorKey);
  if (a) {
    t.anchors.delete(anchorKey);
    const list = a;
    if (a.seq !== notices.seq && !notices.rollForward(t.name, a.seq, (before, after) => shiftAnchors(list, before, after))) a = undefined;
    else a.seq = notices.seq;
  }
  a ??= { seq: notices.seq, test: predicate(filter), sort, at: [] };
  if (t.anchors.size >= KEPT_COUNTS) t.anchors.delete(t.anchors.keys().next().value!);
  t.anchors.set(anchorKey, a);
  const anchors = a;
  /** Rows after `from` (all rows without one), in order. */
  const after = (from: unknown[] | undefined): { sql: string; params: unknown[] } => {
    if (!from) return { sql: '', params: [] };
    const ors: string[] = [];
    const params: unknown[] = [from[0]];
    for (let i = 0; i < sort.length; i++) {
      const eq = exprs.slice(0, i).map((e) => `${e} = ?`);
      const past = sort[i]![1] === 1 ? `${exprs[i]} > ?` : `(${exprs[i]} < ? OR ${exprs[i]} IS NULL)`;
      ors.push(`(${[...eq, past].join(' AND ')})`);
      params.push(...from.slice(0, i), from[i]);
    }
    // The first key bounds the index range (the rows before the anchor are not read).
    return { sql: ` AND ${exprs[0]} ${sort[0]![1] === 1 ? '>=' : '<='} ? AND (${ors.join(' OR ')})`, params };
  };
  return tables.db.transaction((): string[] | undefined => {
    // What the notices describe is what this read sees, or the anchors are not used.
    if (tables.readSeq() !== notices.seq) return undefined;
    let base: { offset: number; values?: unknown[] } = { offset: 0 };
    for (const x of anchors.at) if (x.offset <= skip) base = x;
    while (base.offset + ANCHOR_EVERY <= skip) {
      const k = after(base.values);
      const row = tables.stmt(`SELECT ${exprs.join(', ')} FROM ${t.sql}${indexed} WHERE ${where.sql}${k.sql} ORDER BY ${order} LIMIT 1 OFFSET ?`).raw().get(...where.params, ...k.params, ANCHOR_EVERY - 1) as unknown[] | undefined;
      if (!row || row.some((v) => v === null || (typeof v !== 'string' && typeof v !== 'number'))) break;
      const next = { offset: base.offset + ANCHOR_EVERY, values: row };
      const at = anchors.at.findIndex((x) => x.offset >= next.offset);
      if (at < 0) anchors.at.push(next);
      else if (anchors.at[at]!.offset === next.offset) anchors.at[at] = next;
      else anchors.at.splice(at, 0, next);
      base = next;
    }
    const k = after(base.values);
    const ids = tables.stmt(`SELECT id FROM ${t.sql}${indexed} WHERE ${where.sql}${k.sql} ORDER BY ${order} LIMIT ? OFFSET ?`).pluck().all(...where.params, ...k.params, limit, skip - base.offset) as string[];
    // Short near the end of a descending list: rows with NULL keys sort last there and the first key's bound leaves them out.
    if (ids.length < limit && base.values && sort.some(([, d]) => d === -1)) return undefined;
    return ids;
  })();
}
