import { RECEIPTS, TRANSACTION_SORTS, TRANSACTIONS } from '@paperlink/projections';

/**
 * The orders the big lists are read in, as indexes for the SQLite read store: a page of a
 * company's transactions sorted by a field is read from an index on (companyId, field)
 * instead of sorting every match (1,000,000 of them). Projections declare the indexes their
 * filters need; these add the sort orders of the paged lists (listTransactions, listReceipts).
 * Each index costs every write of the collection, so only the orders the lists offer.
 */
export function listIndexes(): Record<string, string[][]> {
  const orders = (sorts: Record<string, string>) => [...new Set(Object.values(sorts))];
  return {
    [TRANSACTIONS]: [...orders(TRANSACTION_SORTS).map((f) => ['companyId', f]), ['companyId', 'userId', 'transaction_date']],
    [RECEIPTS]: [['companyId', 'upload_date'], ['companyId', 'userId', 'upload_date']],
  };
}
