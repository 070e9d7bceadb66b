import { ok, type CommandModule } from '../core/module';
import { eventTypes, type TransactionEvent } from '@paperlink/domain';
import { IdParams } from '../http/params';
import { transactionRouter, TransactionUpdateBody, type TransactionDeps } from './routes';

/** Edits and deletions of transactions. */
export const transactionCommands: CommandModule<TransactionDeps> = {
  feature: 'transactions',
  events: eventTypes<TransactionEvent>({ TransactionUpdated: true, TransactionDeleted: true }),
  operations: [
    { method: 'put', path: '/transactions/:id', summary: 'Edit a transaction', tags: ['transactions'], auth: 'company', params: IdParams, body: { json: TransactionUpdateBody }, concurrency: 'if-match', success: ok('The transaction after the change'), errors: { 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' } },
    { method: 'delete', path: '/transactions/:id', summary: 'Delete a transaction (and its matches)', tags: ['transactions'], auth: 'company', params: IdParams, success: ok('Deleted'), errors: { 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' } },
  ],
  routers: (deps) => [transactionRouter(deps)],
};
