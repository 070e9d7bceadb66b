import type { Filter, SortSpec } from '@paperlink/domain';

/**
 * MongoDB filters compiled to SQLite WHERE clauses over documents stored as JSONB, for the
 * SQLite read store (sqlite.ts). Only what translates exactly goes to SQL; the rest of the
 * filter is returned and tested in JavaScript (compile.ts), so results are always MongoDB's.
 *
 * Exactness rests on knowing which paths only ever held plain values (strings, numbers, null
 * or nothing): the store records, per collection, every path that held an array, an object
 * or a boolean (`PathKinds`). On a plain path `json_extract` yields TEXT, INTEGER/REAL or
 * NULL, and SQLite's order of those (NULL < numbers < text) is MongoDB's.
 */

export const ARRAY = 1;
export const OBJECT = 2;
export const BOOL = 4;
/** Paths are recorded this deep; deeper paths are always tested in JavaScript. */
export const MAX_DEPTH = 3;

/** Path -> what it held besides plain values (ARRAY | OBJECT | BOOL bits). */
export type PathKinds = Map<string, number>;

const SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The SQL expression of a path (the same text in indexes and queries, so the planner uses them). */
export function pathExpr(path: string): string {
  return path === '_id' ? 'id' : `json_extract(doc, '$.${path}')`;
}

/** Records the non-plain paths of a document into `kinds`; true when it added anything. */
export function recordKinds(doc: Record<string, unknown>, kinds: PathKinds, prefix = '', depth = 1): boolean {
  let added = false;
  for (const key in doc) {
    const v = doc[key];
    if (v === null || typeof v === 'string' || typeof v === 'number' || v === undefined) continue;
    const path = prefix + key;
    const bit = Array.isArray(v) ? ARRAY : typeof v === 'boolean' ? BOOL : typeof v === 'object' ? OBJECT : ARRAY;
    const had = kinds.get(path) ?? 0;
    if ((had & bit) === 0) {
      kinds.set(path, had | bit);
      added = true;
    }
    if (bit === OBJECT && depth < MAX_DEPTH && !(v instanceof Date)) {
      if (recordKinds(v as Record<string, unknown>, kinds, `${path}.`, depth + 1)) added = true;
    }
  }
  return added;
}

/** Whether a path can be compared in SQL: `allow` are the kinds of the path itself that are fine. */
function usable(path: string, kinds: PathKinds, allow = 0): boolean {
  if (path === '_id') return true;
  const parts = path.split('.');
  if (parts.length > MAX_DEPTH || !parts.every((p) => SEGMENT.test(p))) return false;
  for (let i = 1; i < parts.length; i++) if ((kinds.get(parts.slice(0, i).join('.')) ?? 0) & ARRAY) return false;
  return ((kinds.get(path) ?? 0) & ~allow) === 0;
}

export function isPlainPath(path: string, kinds: PathKinds): boolean {
  return usable(path, kinds);
}

interface Sql {
  sql: string;
  params: unknown[];
}

const isScalar = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/** `^literal$` (metacharacters escaped) as its literal, else undefined. */
function exactLiteral(source: string): string | undefined {
  const m = /^\^((?:[^\\.*+?^${}()|[\]]|\\[.*+?^${}()|[\]\\/-])*)\$$/.exec(source);
  return m ? m[1]!.replace(/\\(.)/g, '$1') : undefined;
}

function regexSql(e: string, pattern: unknown, options: unknown): Sql | undefined {
  let source: string;
  let flags: string;
  if (pattern instanceof RegExp) {
    source = pattern.source;
    flags = pattern.flags;
  } else if (typeof pattern === 'string') {
    source = pattern;
    flags = typeof options === 'string' ? options : '';
  } else return undefined;
  if (flags !== '' && flags !== 'i') return undefined;
  const literal = exactLiteral(source);
  if (literal === undefined) return undefined;
  if (flags === '') return { sql: `${e} = ?`, params: [literal] };
  // Without the `u` flag a non-ASCII character never folds to an ASCII one, so for an ASCII
  // literal SQLite's ASCII-only lower() decides exactly as JavaScript's /i does.
  if (!/^[\x20-\x7e]*$/.test(literal)) return undefined;
  // typeof(), not a range on the expression: a range would let the planner pick the path's own
  // index and then sort every match (the category filter of the transaction list did).
  return { sql: `(typeof(${e}) = 'text' AND lower(${e}) = ?)`, params: [literal.toLowerCase()] };
}

function inSql(e: string, list: unknown[]): Sql | undefined {
  const values = list.filter((v) => v !== null);
  if (!values.every(isScalar)) return undefined;
  const hasNull = values.length < list.length;
  const parts: string[] = [];
  if (values.length > 0) parts.push(`${e} IN (${values.map(() => '?').join(', ')})`);
  if (hasNull) parts.push(`${e} IS NULL`);
  return { sql: parts.length === 0 ? '0' : `(${parts.join(' OR ')})`, params: values };
}

/**
 * `bounded`: the same condition holds a bound of the same type on the other side (a numeric
 * $lt/$lte beside a numeric $gt/$gte, a string $gt/$gte beside a string $lt/$lte), which keeps
 * the other type out already; the guard is then left out, so that the planner bounds an index
 * range by it (with `< ''` as the upper bound, an amount window read every amount above it).
 */
function rangeSql(e: string, op: string, arg: unknown, bounded = false): Sql | undefined {
  const sym = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[op]!;
  if (typeof arg === 'number' && Number.isFinite(arg)) {
    // Text sorts above every number in SQLite: bound it below '' so strings never match.
    return { sql: (op === '$gt' || op === '$gte') && !bounded ? `(${e} ${sym} ? AND ${e} < '')` : `${e} ${sym} ?`, params: [arg] };
  }
  if (typeof arg === 'string') {
    return { sql: (op === '$lt' || op === '$lte') && !bounded ? `(${e} ${sym} ? AND ${e} >= '')` : `${e} ${sym} ?`, params: [arg] };
  }
  return undefined;
}

/** Whether `ops` bound a range from the side opposite `op` with a value of the same type as `arg` (see rangeSql). */
function otherSide(ops: Record<string, unknown>, op: string, arg: unknown): boolean {
  const other = op === '$gt' || op === '$gte' ? ['$lt', '$lte'] : ['$gt', '$gte'];
  const same = (v: unknown) => (typeof arg === 'number' ? typeof v === 'number' && Number.isFinite(v) : typeof v === 'string');
  return other.some((o) => o in ops && same(ops[o]));
}

/** One field's condition as SQL, or undefined when it must be tested in JavaScript. */
function fieldSql(path: string, cond: unknown, kinds: PathKinds): Sql | undefined {
  const e = pathExpr(path);
  if (typeof cond === 'boolean') {
    if (!usable(path, kinds, BOOL)) return undefined;
    return { sql: `json_type(doc, '$.${path}') = ?`, params: [cond ? 'true' : 'false'] };
  }
  if (!usable(path, kinds)) return undefined;
  if (cond === null) return { sql: `${e} IS NULL`, params: [] };
  if (isScalar(cond)) return { sql: `${e} = ?`, params: [cond] };
  if (cond instanceof RegExp) return regexSql(e, cond, undefined);
  if (typeof cond !== 'object' || Array.isArray(cond) || cond instanceof Date) return undefined;
  const parts: Sql[] = [];
  const ops = cond as Record<string, unknown>;
  for (const [op, arg] of Object.entries(ops)) {
    let part: Sql | undefined;
    if (op === '$eq') part = arg === null ? { sql: `${e} IS NULL`, params: [] } : isScalar(arg) ? { sql: `${e} = ?`, params: [arg] } : undefined;
    else if (op === '$ne') part = arg === null ? { sql: `${e} IS NOT NULL`, params: [] } : isScalar(arg) ? { sql: `(${e} IS NULL OR ${e} <> ?)`, params: [arg] } : undefined;
    else if (op === '$gt' || op === '$gte' || op === '$lt' || op === '$lte') part = rangeSql(e, op, arg, otherSide(ops, op, arg));
    else if (op === '$in' || op === '$nin') {
      const inner = Array.isArray(arg) ? inSql(e, arg) : undefined;
      part = inner && op === '$nin' ? { sql: `NOT ${inner.sql}`, params: inner.params } : inner;
      // NOT (x IN (...)) is NULL for a missing x: MongoDB's $nin matches it.
      if (part && op === '$nin' && !(arg as unknown[]).includes(null)) part = { sql: `(${e} IS NULL OR ${part.sql})`, params: part.params };
    } else if (op === '$exists') {
      part = path === '_id' ? { sql: arg ? '1' : '0', params: [] } : { sql: `json_type(doc, '$.${path}') IS ${arg ? 'NOT ' : ''}NULL`, params: [] };
    } else if (op === '$regex') part = regexSql(e, arg, ops.$options);
    else if (op === '$options') {
      if (!('$regex' in ops)) return undefined;
      continue;
    }
    if (!part) return undefined;
    parts.push(part);
  }
  if (parts.length === 0) return undefined;
  return { sql: parts.length === 1 ? parts[0]!.sql : `(${parts.map((p) => p.sql).join(' AND ')})`, params: parts.flatMap((p) => p.params) };
}

/** A whole filter as SQL, or undefined when any part of it needs JavaScript. */
function wholeSql(filter: Filter, kinds: PathKinds): Sql | undefined {
  const { sql, rest } = compileWhere(filter, kinds);
  return rest ? undefined : sql;
}

export interface Where {
  /** The SQL part (always a condition; '1' when nothing translated). */
  sql: Sql;
  /** What is left for JavaScript, or null when SQL decides it all. */
  rest: Filter | null;
}

/** Splits a filter's conjuncts into those SQL decides exactly and those left for JavaScript. */
export function compileWhere(filter: Filter, kinds: PathKinds): Where {
  const parts: Sql[] = [];
  const rest: Filter = {};
  const restAnd: Filter[] = [];
  for (const [key, cond] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(cond)) {
      for (const sub of cond as Filter[]) {
        const w = compileWhere(sub, kinds);
        parts.push(w.sql);
        if (w.rest) restAnd.push(w.rest);
      }
      continue;
    }
    if (key === '$or' && Array.isArray(cond)) {
      const subs = (cond as Filter[]).map((f) => wholeSql(f, kinds));
      if (subs.length > 0 && subs.every((s) => s)) {
        parts.push({ sql: `(${subs.map((s) => s!.sql).join(' OR ')})`, params: subs.flatMap((s) => s!.params) });
      } else rest[key] = cond;
      continue;
    }
    const part = key.startsWith('$') ? undefined : fieldSql(key, cond, kinds);
    if (part) parts.push(part);
    else rest[key] = cond;
  }
  if (restAnd.length > 0) rest.$and = restAnd;
  const sql = parts.length === 0 ? { sql: '1', params: [] } : { sql: parts.map((p) => p.sql).join(' AND '), params: parts.flatMap((p) => p.params) };
  return { sql, rest: Object.keys(rest).length === 0 ? null : rest };
}

/** ORDER BY for a sort (ties broken by `_id`, as the embedded store does), or undefined when a key is not plain. */
export function orderBy(sort: SortSpec | undefined, kinds: PathKinds): string | undefined {
  const entries = Object.entries(sort ?? {});
  if (!entries.every(([p]) => isPlainPath(p, kinds))) return undefined;
  if (!entries.some(([p]) => p === '_id')) entries.push(['_id', 1]);
  return entries.map(([p, d]) => `${pathExpr(p)} ${d === -1 ? 'DESC' : 'ASC'}`).join(', ');
}
