import { createHash } from 'node:crypto';
import type { Filter, SortSpec } from '@paperlink/domain';
import { RECEIPT_SORTS, RECEIPTS, TRANSACTION_SORTS, TRANSACTIONS } from '@paperlink/projections';

/**
 * Indexes on MongoDB. A declared index is a list of fields as for every read store (ascending), here
 * with two more forms: `-field` descends, `+field` is carried after the keys (covering.ts: a count
 * filtering on it is decided from the index entry). `_id` is added after the keys in the direction
 * of the last one: a list sorts with an `_id` tie-break in its sort's direction (sortWithTieBreak),
 * so every page of it is read from one index in order, forwards or backwards, with no blocking
 * sort of a company's matches (a million transactions).
 */
export interface MongoIndex {
  name: string;
  key: Record<string, 1 | -1>;
}

/** The order a list is read in: its keys, then `_id` in the direction of the last key. */
export function sortWithTieBreak(sort: SortSpec | undefined): SortSpec | undefined {
  if (!sort) return undefined;
  const keys = Object.keys(sort);
  if (keys.length === 0) return undefined;
  if ('_id' in sort) return sort;
  return { ...sort, _id: sort[keys[keys.length - 1]!]! };
}

export function indexOf(fields: readonly string[]): MongoIndex {
  const key: Record<string, 1 | -1> = {};
  const included: string[] = [];
  let last: 1 | -1 = 1;
  for (const f of fields) {
    if (f.startsWith('+')) included.push(f.slice(1));
    else if (f.startsWith('-')) key[f.slice(1)] = last = -1;
    else key[f] = last = 1;
  }
  if (!('_id' in key)) key._id = last;
  for (const f of included) if (!(f in key)) key[f] = 1;
  const name = `pl_${createHash('sha1').update(fields.join('\0')).digest('hex').slice(0, 16)}`;
  return { name, key };
}

/** Indexes the server made itself or older versions of this store made (`field_1_other_1`): replaced by ours. */
export const isLegacyIndex = (name: string) => name !== '_id_' && !name.startsWith('pl_') && /^([^.]+_-?1)(_[^.]+_-?1)*$/.test(name);

/** The direction of `key` read forwards (1), backwards (-1), or neither (0) for `order`. */
function direction(key: Array<[string, number]>, order: Array<[string, number]>): 1 | -1 | 0 {
  if (key.length < order.length) return 0;
  let dir: 1 | -1 | 0 = 0;
  for (let i = 0; i < order.length; i++) {
    const [field, d] = order[i]!;
    const [kf, kd] = key[i]!;
    if (kf !== field) return 0;
    const here = kd === d ? 1 : -1;
    if (dir === 0) dir = here;
    else if (dir !== here) return 0;
  }
  return dir;
}

/**
 * The index that reads a sorted page in order: its first keys pinned by equalities of the filter,
 * the next ones the sort (tie-break included), forwards or backwards. Of several, the one that
 * pins the most equalities (a member's receipts by upload day: (companyId, userId, upload_date)).
 */
export function orderIndex(indexes: readonly MongoIndex[], filter: Filter, sort: SortSpec): string | undefined {
  const pinned = new Set(Object.entries(filter).filter(([k, v]) => !k.startsWith('$') && (typeof v === 'string' || typeof v === 'number')).map(([k]) => k));
  const order = Object.entries(sort);
  let best: { name: string; at: number } | undefined;
  for (const index of indexes) {
    const key = Object.entries(index.key);
    let at = 0;
    while (at < key.length && pinned.has(key[at]![0])) at++;
    if (direction(key.slice(at), order) !== 0 && (!best || at > best.at)) best = { name: index.name, at };
  }
  return best?.name;
}

/** The index a query names by its key fields (FindOptions.hint): the one whose keys start with them, then `_id`. */
export function hintedIndex(indexes: readonly MongoIndex[], hint: readonly string[]): string | undefined {
  return indexes.find((index) => {
    const keys = Object.keys(index.key);
    return keys.length > hint.length && hint.every((f, i) => keys[i] === f) && keys[hint.length] === '_id';
  })?.name;
}

/** The fields the transactions and receipts lists filter on, carried by their indexes (sqlite-indexes.ts). */
const TX_COUNTED = ['+userId', '+category_name', '+absCents', '+receipt_count'];
const RECEIPT_COUNTED = ['+userId', '+receipt_date', '+processing_status', '+absCents', '+match_count'];

/**
 * The orders the paged lists read (listTransactions, listReceipts), as indexes: by the date
 * field `{ date: d, _id: d }` (one index, read either way); by another field F, the date second
 * and descending: `{ F: 1, date: -1, _id: -1 }` and `{ F: -1, date: -1, _id: -1 }` (read
 * backwards as `{ F: 1, date: 1, _id: 1 }`), two indexes, since one index is read in order only
 * for its own directions or all of them reversed.
 */
function listOrders(sorts: Record<string, string>, date: string, counted: string[]): string[][] {
  const out: string[][] = [['companyId', date, ...counted]];
  for (const f of new Set(Object.values(sorts))) {
    if (f === date) continue;
    const carried = counted.filter((c) => c !== `+${f}`);
    out.push(['companyId', f, `-${date}`, ...carried], ['companyId', f, date, ...carried]);
  }
  return out;
}

export function mongoListIndexes(): Record<string, string[][]> {
  return {
    [TRANSACTIONS]: [...listOrders(TRANSACTION_SORTS, 'transaction_date', TX_COUNTED), ['companyId', 'userId', 'transaction_date', ...TX_COUNTED.filter((c) => c !== '+userId')]],
    [RECEIPTS]: [...listOrders(RECEIPT_SORTS, 'upload_date', RECEIPT_COUNTED), ['companyId', 'userId', 'upload_date', ...RECEIPT_COUNTED.filter((c) => c !== '+userId')]],
  };
}
