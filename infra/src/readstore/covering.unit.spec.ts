import { describe, expect, it } from 'vitest';
import { coveringIndexFor, includedFields, keyFields, withoutReplaced } from './covering';

const BY_DATE = ['companyId', 'transaction_date', '+userId', '+category_name', '+absCents', '+receipt_count'];
const BUILT = [['companyId'], ['companyId', 'userId'], BY_DATE, ['companyId', 'category_name', 'transaction_date'], ['companyId', 'userId', 'transaction_date']];

describe('indexes with included fields', () => {
  it('split into keys and included fields', () => {
    expect(keyFields(BY_DATE)).toEqual(['companyId', 'transaction_date']);
    expect(includedFields(BY_DATE)).toEqual(['userId', 'category_name', 'absCents', 'receipt_count']);
  });

  it('take the place of the plain index with the same keys, and of no other', () => {
    const { wanted, replaced } = withoutReplaced([['companyId'], ['companyId', 'transaction_date'], ['companyId', 'transaction_date', 'amountCents'], BY_DATE]);
    expect(wanted).toEqual([['companyId'], ['companyId', 'transaction_date', 'amountCents'], BY_DATE]);
    expect(replaced(['companyId', 'transaction_date'])).toBe(true);
    expect(replaced(BY_DATE)).toBe(false);
    // One that carried other fields goes too; an index with other keys stays.
    expect(replaced(['companyId', 'transaction_date', '+userId'])).toBe(true);
    expect(replaced(['companyId', 'transaction_date', 'amountCents'])).toBe(false);
    expect(replaced(['companyId', 'userId'])).toBe(false);
    expect(withoutReplaced([['a'], ['a', 'b']]).wanted).toEqual([['a'], ['a', 'b']]);
  });
});

describe('the index a count reads alone', () => {
  const company = { companyId: 'c1' };

  it('is the covering one when no plain index holds every field of the filter', () => {
    expect(coveringIndexFor(BUILT, { ...company, category_name: { $regex: '^travel$', $options: 'i' }, absCents: { $gte: 100, $lte: 300 } })).toBe(BY_DATE);
    expect(coveringIndexFor(BUILT, { ...company, receipt_count: 0 })).toBe(BY_DATE);
    expect(coveringIndexFor(BUILT, { ...company, receipt_count: { $gt: 0 }, transaction_date: { $gte: '2024-01-01' } })).toBe(BY_DATE);
  });

  it('is none where a plain index holds the filter, pins more equalities, or a field is not carried', () => {
    expect(coveringIndexFor(BUILT, company)).toBeUndefined(); // (companyId) holds it
    expect(coveringIndexFor(BUILT, { ...company, transaction_date: { $gte: '2024-01-01' } })).toBeUndefined(); // the keys alone
    expect(coveringIndexFor(BUILT, { ...company, userId: 'u1', receipt_count: 0 })).toBeUndefined(); // the member's own index pins two
    expect(coveringIndexFor(BUILT, { ...company, description: 'x' })).toBeUndefined();
    expect(coveringIndexFor(BUILT, { $or: [company] })).toBeUndefined();
    expect(coveringIndexFor(BUILT, {})).toBeUndefined();
    expect(coveringIndexFor(BUILT.filter((i) => i !== BY_DATE), { ...company, receipt_count: 0 })).toBeUndefined();
  });

  it('is none where another index reads a range of the filter and the covering one does not', () => {
    const receipts = [['companyId'], ['companyId', 'receipt_date'], ['companyId', 'upload_date', '+receipt_date', '+match_count']];
    expect(coveringIndexFor(receipts, { ...company, receipt_date: { $gte: '2024-01-01', $lte: '2024-01-31' }, match_count: 0 })).toBeUndefined();
    expect(coveringIndexFor(receipts, { ...company, match_count: 0 })).toBe(receipts[2]);
    // A date range on the covering index's own key: it reads that range alone.
    expect(coveringIndexFor(BUILT, { ...company, transaction_date: { $gte: '2024-01-01' }, absCents: { $lte: 500 } })).toBe(BY_DATE);
  });
});
