import { Query } from 'mingo';
import type { Doc, Filter, SortSpec } from '@paperlink/domain';
import { compileFilter, type Predicate } from './compile';
import { compareValues, getPath } from './sort';

/**
 * The JavaScript side of the SQLite read store's filters: what sql-filter.ts leaves out of the
 * SQL (the `rest` of compileWhere) is tested on the rows it reads, compiled where compile.ts
 * can, by mingo otherwise; the same predicates keep counts and anchors through writes.
 */
export function predicate(filter: Filter): Predicate {
  const compiled = compileFilter(filter);
  if (compiled) return compiled;
  const query = new Query(filter);
  return (d) => query.test(d as Record<string, unknown>);
}

/** A filter as a cache key, or undefined when it holds values JSON cannot tell apart (RegExp, Date). */
export function filterKey(filter: Filter): string | undefined {
  let plain = true;
  const key = JSON.stringify(filter, (_k, v: unknown) => {
    if (v instanceof RegExp || v instanceof Date) plain = false;
    return v;
  });
  return plain ? key : undefined;
}

/** The order of a sort SQL cannot read (a filter finished in JavaScript), ties by `_id`. */
export function comparator(sort: SortSpec): (a: Doc, b: Doc) => number {
  const fields = Object.entries(sort);
  if (!('_id' in sort)) fields.push(['_id', 1]);
  return (a, b) => {
    for (const [p, d] of fields) {
      const c = compareValues(getPath(a, p), getPath(b, p));
      if (c !== 0) return d === -1 ? -c : c;
    }
    return 0;
  };
}
