import { created, ok, type CommandModule } from '../core/module';
import { RECEIPT_EVENT_TYPES, eventTypes, type UploadEvent } from '@paperlink/domain';
import { IdParams } from '../http/params';
import { CommitBody, CorrectionBody, DirectUploadParams, PresignBody, receiptRouter, receiptUploadTargetRouter, type ReceiptDeps } from './routes';

/** Receipt files uploaded, corrected, read again and deleted. */
export const receiptCommands: CommandModule<ReceiptDeps> = {
  feature: 'receipts',
  events: [...RECEIPT_EVENT_TYPES, ...eventTypes<UploadEvent>({ ReceiptFileReceived: true })],
  operations: [
    // receipts
    { method: 'put', path: '/receipts/direct/:token', summary: 'The target of a presigned upload URL: the file bytes', tags: ['receipts'], auth: 'upload-link', params: DirectUploadParams, body: { raw: 'application/octet-stream' }, success: ok('The file arrived; commit it next'), errors: { 413: 'The file is larger than 10 MB', 400: 'Not a JPG, PNG or PDF', 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' } },
    { method: 'post', path: '/receipts/presign', summary: 'A signed URL to upload one receipt file to', tags: ['receipts'], auth: 'company', body: { json: PresignBody }, success: ok('The upload URL and key'), errors: { 413: 'The file is larger than 10 MB', 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' } },
    { method: 'post', path: '/receipts/commit', summary: 'Turn an uploaded file into a receipt', tags: ['receipts'], auth: 'company', body: { json: CommitBody }, success: created('The receipt (read by OCR next)'), errors: { 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' } },
    { method: 'post', path: '/receipts/upload', summary: 'Upload a receipt file (multipart)', tags: ['receipts'], auth: 'company', body: { multipart: { files: ['receipt'] } }, success: created('The receipt (read by OCR next)'), errors: { 503: 'The read side is behind (read_side_behind): nothing was saved; retry after Retry-After seconds' } },
    { method: 'put', path: '/receipts/:id', summary: "Correct a receipt's date, amounts, merchant or description", tags: ['receipts'], auth: 'company', params: IdParams, body: { json: CorrectionBody }, concurrency: 'if-match', success: ok('The receipt after the change') },
    { method: 'post', path: '/receipts/:id/reprocess', summary: 'Read a receipt again', tags: ['receipts'], auth: 'company', params: IdParams, success: ok('Queued') },
    { method: 'delete', path: '/receipts/:id', summary: 'Delete a receipt (and its matches)', tags: ['receipts'], auth: 'company', params: IdParams, success: ok('Deleted') },
  ],
  publicRouters: (deps) => [receiptUploadTargetRouter(deps)],
  routers: (deps) => [receiptRouter(deps)],
};
