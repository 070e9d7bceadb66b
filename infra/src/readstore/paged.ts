import type { Doc, Filter, ReadCollection } from '@paperlink/domain';

const PAGE = 2000;

interface MapsPages {
  mapPage<R>(filter: Filter, skip: number, limit: number, map: (doc: Doc) => R): Promise<R[]>;
}

/**
 * Every document a filter selects, read a page per turn of the event loop: copying a company's
 * 200,000 transactions out of the embedded store at once held the request thread for a second.
 * Pages follow the store's natural order; a document written between two pages may be missed
 * or seen twice (callers that read everything for a background run tolerate that). `map`
 * shapes each page as it is read, so no second pass over every document is needed.
 */
export async function findInPages<T extends Doc, R = T>(collection: ReadCollection<T>, filter: Filter, map: (doc: T) => R = (d) => d as unknown as R): Promise<R[]> {
  const out: R[] = [];
  // The embedded store shapes its stored documents without copying them first.
  const direct = (collection as Partial<MapsPages>).mapPage?.bind(collection) as MapsPages['mapPage'] | undefined;
  for (let skip = 0; ; skip += PAGE) {
    const before = out.length;
    if (direct) {
      for (const r of await direct(filter, skip, PAGE, map as (doc: Doc) => R)) out.push(r);
    } else {
      const { docs } = await collection.findPage(filter, { skip, limit: PAGE });
      for (const d of docs) out.push(map(d));
    }
    if (out.length - before < PAGE) return out;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
