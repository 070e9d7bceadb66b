import { ok, type QueryModule } from '../core/module';
import { IdParams } from '@paperlink/domain/http/params';
import { AsOfQuery } from '../history/routes';
import { receiptQueryRouter, ReceiptListQuery, type ReceiptQueryDeps } from './routes';

/** Receipts, their files, thumbnails and look-alikes. */
export const receiptQueries: QueryModule<ReceiptQueryDeps> = {
  feature: 'receipts',
  operations: [
    { method: 'get', path: '/receipts', summary: 'Receipts, filtered (q: one search over merchant, description, file name and total) and paged (a non-admin: their own)', tags: ['receipts'], auth: 'company', query: ReceiptListQuery.extend(AsOfQuery.shape), success: ok('A page of receipts') },
    { method: 'get', path: '/receipts/:id', summary: 'One receipt', tags: ['receipts'], auth: 'company', params: IdParams, query: AsOfQuery, concurrency: 'etag', success: ok('The receipt') },
    { method: 'get', path: '/receipts/:id/view', summary: "A receipt's file, to show (sandboxed)", tags: ['receipts'], auth: 'company', params: IdParams, success: ok('The file', 'file') },
    { method: 'get', path: '/receipts/:id/download', summary: "A receipt's file, to save", tags: ['receipts'], auth: 'company', params: IdParams, success: ok('The file', 'file') },
    { method: 'get', path: '/receipts/:id/thumbnail', summary: "A small JPEG of a receipt's first page", tags: ['receipts'], auth: 'company', params: IdParams, success: ok('A JPEG', 'image/jpeg') },
    { method: 'get', path: '/receipts/:id/duplicates', summary: 'Receipts the caller may see that look like the same purchase', tags: ['receipts'], auth: 'company', params: IdParams, success: ok('Duplicates') },
    { method: 'post', path: '/receipts/:id/duplicate-check', summary: 'Same as GET duplicates', tags: ['receipts'], auth: 'company', params: IdParams, success: ok('Duplicates') },
  ],
  routers: (deps) => [receiptQueryRouter(deps)],
};
