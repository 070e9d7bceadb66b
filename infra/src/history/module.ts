import { historyQueries } from '@paperlink/query-api';
import type { Feature } from '../boot/feature';
import { EmbeddedReadStore } from '../readstore/embedded';

/**
 * History and as-of reads (ADR 0017): with `asOf`, the transactions, receipts and matches reads
 * answer from the company's state replayed to that moment; listed before those features.
 */
export const history: Feature = {
  feature: 'history',
  queries: historyQueries,
  wire: (k) => ({ routes: historyQueries.routers!({ events: k.events, store: k.readStore, newStore: () => new EmbeddedReadStore() }) }),
};
