import { RECEIPTS, TRANSACTION_SORTS, TRANSACTIONS } from '@paperlink/projections';

/**
 * The orders the big lists are read in, as indexes for the SQLite read store: a page of a
 * company's transactions sorted by a field is read from an index on (companyId, field)
 * instead of sorting every match (1,000,000 of them). Projections declare the indexes their
 * filters need; these add the sort orders of the paged lists (listTransactions, listReceipts).
 * Each index costs every write of the collection, so only the orders the lists offer.
 */
/**
 * Orders left without an index: each index on a big collection costs about 12 µs of CPU per
 * written document (measured at 200,000 transactions), in rebuilds and imports. `created_at`
 * is the import time, one value for a whole statement; a list sorted by it reads every match.
 */
const UNINDEXED = new Set(['created_at']);

/**
 * The fields the transactions list filters on besides the company and the date, carried by the
 * (companyId, transaction_date) index after its keys (`+field`: SqliteReadStore's included
 * fields). A list's total is a count of its filter; a count the index answers alone reads its
 * entries instead of every line's document (a company of 1,000,000 lines: a category and amount
 * range, or unmatched, read each document first; ADR 0029 amendment).
 */
const COUNTED = ['+userId', '+category_name', '+absCents', '+receipt_count'];
/** The same for the receipts list (100,000 receipts at the acceptance size): its filters but the company and the upload day. */
const RECEIPT_COUNTED = ['+userId', '+receipt_date', '+processing_status', '+absCents', '+match_count'];

export function listIndexes(): Record<string, string[][]> {
  const orders = (sorts: Record<string, string>) => [...new Set(Object.values(sorts))];
  return {
    // A list sorted by another field is sorted by date next (listTransactions): with the date in
    // the index a deep page is read from the index alone (92,000 entries into a list by
    // description: 40-60 ms, against 330-410 ms reading each row for its date; load 12).
    [TRANSACTIONS]: [
      ...orders(TRANSACTION_SORTS)
        .filter((f) => !UNINDEXED.has(f))
        .map((f) => (f === 'transaction_date' ? ['companyId', f, ...COUNTED] : ['companyId', f, 'transaction_date', ...COUNTED.filter((c) => c !== `+${f}`)])),
      ['companyId', 'userId', 'transaction_date', ...COUNTED.filter((c) => c !== '+userId')],
    ],
    [RECEIPTS]: [['companyId', 'upload_date', ...RECEIPT_COUNTED], ['companyId', 'userId', 'upload_date', ...RECEIPT_COUNTED.filter((c) => c !== '+userId')]],
  };
}
