import type { Filter } from '@paperlink/domain';

/**
 * Indexes with included fields (SQLite read store). An index is declared as its fields; a field
 * named `+name` is carried after the keys and the id, so it changes no order, and a count whose
 * every field the index holds reads the index's entries alone instead of each document.
 */

/** An index's key fields (its order). */
export const keyFields = (fields: readonly string[]): string[] => fields.filter((f) => !f.startsWith('+'));
/** The fields an index carries after its keys and id. */
export const includedFields = (fields: readonly string[]): string[] => fields.filter((f) => f.startsWith('+')).map((f) => f.slice(1));
export const sameFields = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((f, i) => f === b[i]);

/**
 * The declared indexes, each plain one dropped where one with included fields has the same keys
 * (the same order: one index to write instead of two); and which built index an index with
 * included fields replaces: one with its keys that is not wanted itself (the plain index of a data
 * folder from before, or one that carried other fields).
 */
export function withoutReplaced(declared: readonly string[][]): { wanted: string[][]; replaced: (fields: readonly string[]) => boolean } {
  const covering = declared.filter((f) => includedFields(f).length > 0);
  const wanted = declared.filter((f) => !(includedFields(f).length === 0 && covering.some((c) => sameFields(keyFields(c), f))));
  const replaced = (fields: readonly string[]) => !wanted.some((w) => sameFields(w, fields)) && covering.some((c) => sameFields(keyFields(c), keyFields(fields)));
  return { wanted, replaced };
}

/**
 * The built index with included fields a count of `filter` should read, or undefined: one that
 * holds every field of the filter, when no plain index holds them all already (SQLite takes that
 * one) and none narrows the filter more with its first keys: more equalities pinned (a member's
 * lines: their own index's entries and documents, a fiftieth of the company's, beat every entry
 * of the company), or as many and then a range (receipts of one month by their receipt date:
 * that range of its index and those documents, not every receipt's entry).
 */
export function coveringIndexFor(built: readonly string[][], filter: Filter): string[] | undefined {
  const fields = Object.keys(filter);
  if (fields.length === 0 || fields.some((f) => f.startsWith('$'))) return undefined;
  const holds = (index: readonly string[]) => {
    const all = new Set([...keyFields(index), ...includedFields(index)]);
    return fields.every((f) => all.has(f));
  };
  /** How far an index's first keys narrow the filter: the equalities it pins, and a half for a range on the next key. */
  const narrows = (index: readonly string[]) => {
    const keys = keyFields(index);
    let at = 0;
    while (at < keys.length && (typeof filter[keys[at]!] === 'string' || typeof filter[keys[at]!] === 'number')) at++;
    const next = at < keys.length ? filter[keys[at]!] : undefined;
    return at + (next !== null && typeof next === 'object' && !(next instanceof RegExp) && Object.keys(next).some((op) => op === '$gt' || op === '$gte' || op === '$lt' || op === '$lte') ? 0.5 : 0);
  };
  if (built.some((i) => includedFields(i).length === 0 && holds(i))) return undefined;
  const cover = built.filter((i) => includedFields(i).length > 0 && holds(i)).sort((a, b) => narrows(b) - narrows(a))[0];
  if (!cover || built.some((i) => narrows(i) > narrows(cover))) return undefined;
  return cover as string[];
}
