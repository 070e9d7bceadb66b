import type { Document } from 'mongodb';
import type { Filter, SortSpec } from '@paperlink/domain';
import { getPath } from './sort';
import { filterKey } from './mongo-counts';

/** A deep page is read from an anchor at most this many documents before it. */
const ANCHOR_EVERY = 1000;
/** Lists (filter and order) whose anchors are kept per collection. */
const KEPT = 16;

interface Anchor {
  /** How many documents sort up to this one, itself included. */
  offset: number;
  /** Its sort values, `_id` last. */
  values: unknown[];
}

interface Anchors {
  version: number;
  at: Anchor[];
}

/** Reads one document of a list: `filter` in `sort`, skipping `skip` (the anchor walk's step). */
export type ReadAt = (filter: Document, skip: number, limit: number) => Promise<Document[]>;

const seekable = (v: unknown) => typeof v === 'string' || typeof v === 'number';

/**
 * The documents after an anchor in a list's order: those past its first key, or equal on the
 * first keys and past the next one. Missing and null values sort first ascending and last
 * descending, so a descending key's rest includes them. A bound on the first key comes first, so
 * the server reads the index from the anchor on. Sort fields hold one type each (or null), as
 * every list's fields do: values of another type would sort apart from a range on the anchor's.
 */
export function after(sort: Array<[string, 1 | -1]>, values: unknown[]): Document {
  const ors: Document[] = [];
  for (let i = 0; i < sort.length; i++) {
    const [path, dir] = sort[i]!;
    const clause: Document = {};
    for (let j = 0; j < i; j++) clause[sort[j]![0]] = values[j];
    const past = dir === 1 ? { [path]: { $gt: values[i] } } : { $or: [{ [path]: { $lt: values[i] } }, { [path]: null }] };
    ors.push(Object.keys(clause).length === 0 ? past : { $and: [clause, past] });
  }
  const [first, dir] = sort[0]!;
  const bound = dir === 1 ? { [first]: { $gte: values[0] } } : { $or: [{ [first]: { $lte: values[0] } }, { [first]: null }] };
  return { $and: [bound, { $or: ors }] };
}

/**
 * Positions in sorted lists (keyset paging), kept per filter and order with the collection's
 * version (mongo-counts.ts): a page deep in a list is read from the nearest anchor at or before it
 * by its sort values, instead of skipping every entry before it (760,000 index entries and their
 * documents for a page near the end of a million). New anchors are laid every ANCHOR_EVERY
 * documents as a page further on is asked for. A write to the collection drops them (its version moves).
 */
export class KeysetAnchors {
  private readonly lists = new Map<string, Map<string, Anchors>>();

  /** `every`: documents between two anchors (a smaller step in tests). */
  constructor(readonly every = ANCHOR_EVERY) {}

  /**
   * The page `skip`..`skip + limit` of `filter` in `sort` (`_id` last), read from an anchor; undefined
   * when the list cannot be anchored (a filter JSON cannot key, a sort value that is not a string or number).
   */
  async page(collection: string, version: number, filter: Filter, sort: SortSpec, skip: number, limit: number, read: ReadAt): Promise<Document[] | undefined> {
    const key = filterKey(filter);
    if (key === undefined || limit <= 0) return undefined;
    const order = Object.entries(sort) as Array<[string, 1 | -1]>;
    if (order[order.length - 1]![0] !== '_id') return undefined;
    let lists = this.lists.get(collection);
    if (!lists) this.lists.set(collection, (lists = new Map()));
    const listKey = `${key}\0${JSON.stringify(order)}`;
    let anchors = lists.get(listKey);
    if (!anchors || anchors.version !== version) anchors = { version, at: [] };
    lists.delete(listKey);
    if (lists.size >= KEPT) lists.delete(lists.keys().next().value!);
    lists.set(listKey, anchors);
    const within = (from: Anchor | undefined): Document => (from ? { $and: [filter, after(order, from.values)] } : (filter as Document));
    let base: Anchor | undefined;
    for (const a of anchors.at) if (a.offset <= skip) base = a;
    while ((base?.offset ?? 0) + this.every <= skip) {
      const [doc] = await read(within(base), this.every - 1, 1);
      if (!doc) break;
      const values = order.map(([path]) => (path === '_id' ? doc._id : getPath(doc, path)));
      if (!values.every(seekable)) break;
      const next: Anchor = { offset: (base?.offset ?? 0) + this.every, values };
      const at = anchors.at.findIndex((a) => a.offset >= next.offset);
      if (at < 0) anchors.at.push(next);
      else if (anchors.at[at]!.offset === next.offset) anchors.at[at] = next;
      else anchors.at.splice(at, 0, next);
      base = next;
    }
    if (!base) return undefined;
    return read(within(base), skip - base.offset, limit);
  }

  forget(collection: string): void {
    this.lists.delete(collection);
  }
}
