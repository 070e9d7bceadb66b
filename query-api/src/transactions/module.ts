import { ok, type QueryModule } from '../core/module';
import type { ReadStore } from '@paperlink/domain';
import { IdParams } from '@paperlink/domain/http/params';
import { AsOfQuery } from '../history/routes';
import { transactionQueryRouter, TransactionListQuery } from './routes';

/** Transactions, filtered and paged. */
export const transactionQueries: QueryModule<{ store: ReadStore }> = {
  feature: 'transactions',
  operations: [
    { method: 'get', path: '/transactions', summary: "Transactions, filtered (q: one search over description, statement file name and amount) and paged (a non-admin: their own)", tags: ['transactions'], auth: 'company', query: TransactionListQuery.extend(AsOfQuery.shape), success: ok('A page of transactions') },
    { method: 'get', path: '/transactions/:id', summary: 'One transaction', tags: ['transactions'], auth: 'company', params: IdParams, query: AsOfQuery, concurrency: 'etag', success: ok('The transaction') },
  ],
  routers: (deps) => [transactionQueryRouter(deps.store)],
};
