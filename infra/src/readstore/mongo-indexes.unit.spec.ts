import { describe, expect, it } from 'vitest';
import type { SortSpec } from '@paperlink/domain';
import { allProjections, MATCHES, RECEIPT_SORTS, RECEIPTS, TRANSACTION_SORTS, TRANSACTIONS } from '@paperlink/projections';
import { withoutReplaced } from './covering';
import { hintedIndex, indexOf, isLegacyIndex, mongoListIndexes, orderIndex, sortWithTieBreak } from './mongo-indexes';

/** The indexes a collection gets: its projection's and the lists' (as MongoReadStore.ensureIndexes makes them). */
function indexesOf(collection: string) {
  const declared = allProjections().flatMap((p) => p.collections[collection] ?? []);
  return withoutReplaced([...declared, ...(mongoListIndexes()[collection] ?? [])]).wanted.map(indexOf);
}

/** Every order a paged list reads (listTransactions, listReceipts): the sort field, then the date descending. */
function listSorts(sorts: Record<string, string>, date: string): SortSpec[] {
  return Object.values(sorts).flatMap((field) => ([1, -1] as const).map((dir) => {
    const sort: SortSpec = { [field]: dir };
    if (field !== date) sort[date] = -1;
    return sortWithTieBreak(sort)!;
  }));
}

describe('MongoDB list indexes', () => {
  it('breaks ties by _id in the direction of the sort\'s last key', () => {
    expect(sortWithTieBreak({ transaction_date: -1 })).toEqual({ transaction_date: -1, _id: -1 });
    expect(sortWithTieBreak({ description: 1, transaction_date: -1 })).toEqual({ description: 1, transaction_date: -1, _id: -1 });
    expect(sortWithTieBreak({ amountCents: 1 })).toEqual({ amountCents: 1, _id: 1 });
    expect(sortWithTieBreak({ _id: -1, x: 1 })).toEqual({ _id: -1, x: 1 });
    expect(sortWithTieBreak({})).toBeUndefined();
  });

  it('keys an index by its fields, then _id in the last key\'s direction, then the fields it carries', () => {
    expect(indexOf(['companyId', 'description', '-transaction_date', '+userId']).key).toEqual({ companyId: 1, description: 1, transaction_date: -1, _id: -1, userId: 1 });
    expect(Object.keys(indexOf(['companyId', 'transaction_date', '+absCents']).key)).toEqual(['companyId', 'transaction_date', '_id', 'absCents']);
    expect(indexOf(['a']).name).toMatch(/^pl_[0-9a-f]{16}$/);
    expect(indexOf(['a']).name).not.toBe(indexOf(['a', '+b']).name);
  });

  it('has an index that reads every transactions list in order, for a company and for a member', () => {
    const indexes = indexesOf(TRANSACTIONS);
    for (const sort of listSorts(TRANSACTION_SORTS, 'transaction_date')) {
      expect(orderIndex(indexes, { companyId: 'c' }, sort), JSON.stringify(sort)).toBeDefined();
      expect(orderIndex(indexes, { companyId: 'c', userId: 'u', absCents: { $gte: 1 } }, sort), JSON.stringify(sort)).toBeDefined();
    }
    // A member's lines by date: the index that pins the member too.
    const member = orderIndex(indexes, { companyId: 'c', userId: 'u' }, { transaction_date: -1, _id: -1 });
    expect(Object.keys(indexes.find((i) => i.name === member)!.key).slice(0, 3)).toEqual(['companyId', 'userId', 'transaction_date']);
  });

  it('has an index that reads every receipts list in order', () => {
    const indexes = indexesOf(RECEIPTS);
    for (const sort of listSorts(RECEIPT_SORTS, 'upload_date')) expect(orderIndex(indexes, { companyId: 'c' }, sort), JSON.stringify(sort)).toBeDefined();
  });

  it('reads the matches list (best first) from its declared index, and finds the index a query hints at', () => {
    const indexes = indexesOf(MATCHES);
    expect(orderIndex(indexes, { companyId: 'c', status: 'pending' }, sortWithTieBreak({ confidence: -1, suggested_at: -1 })!)).toBeDefined();
    const tx = indexesOf(TRANSACTIONS);
    expect(hintedIndex(tx, ['companyId', 'transaction_date'])).toBeDefined();
    expect(hintedIndex(tx, ['companyId', 'transaction_date', 'amountCents'])).toBeDefined();
    expect(hintedIndex(tx, ['companyId', 'nothing'])).toBeUndefined();
    // An order no index holds: none named (the server plans it).
    expect(orderIndex(tx, { companyId: 'c' }, { description: 1, amountCents: 1, _id: 1 })).toBeUndefined();
  });

  it('replaces the indexes older versions made (no tie-break), and no other', () => {
    expect(isLegacyIndex('companyId_1_userId_1')).toBe(true);
    expect(isLegacyIndex('companyId_1')).toBe(true);
    expect(isLegacyIndex('_id_')).toBe(false);
    expect(isLegacyIndex(indexOf(['companyId']).name)).toBe(false);
    expect(isLegacyIndex('by_company')).toBe(false);
  });
});
