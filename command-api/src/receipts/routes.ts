import { createHmac, timingSafeEqual } from 'node:crypto';
import express, { Router, type Request } from 'express';
import multer from 'multer';
import { z } from 'zod';
import {
  amountToCents,
  decideReceipt,
  MONEY_RULE,
  NotFoundError,
  PayloadTooLargeError,
  RECEIPT_MAX_BYTES,
  receiptDecider,
  sniffFile,
  toCents,
  UnauthorizedError,
  ValidationError,
  type BlobStore,
  type Decider,
  type ReceiptCommand,
  type ReceiptData,
  type ReceiptEvent,
  type ReceiptState,
  type RequestContext,
  type SniffedFile,
  type UploadEvent,
} from '@paperlink/domain';
import { revisionOfIfMatch } from '@paperlink/domain/http/etag';
import type { CommandBus, HandleOptions, Plan } from '../core/bus';
import { send } from '../core/http';
import { newId } from '../core/ids';
import { ctxOf, requireCompany } from '../http/context';
import { validIdParams } from '../http/params';
import { unreadableUpload } from '../http/uploads';
import { forgetReceiptAppends } from '../matches/routes';

import { receiptStream, uploadStream } from '@paperlink/domain';
export { receiptStream, uploadStream };

/** How long a presigned upload URL stays valid. */
export const UPLOAD_URL_TTL_SECONDS = 600;
const TOO_LARGE = 'The file is larger than 10MB.';

export interface ReceiptDeps {
  bus: CommandBus;
  blobs: BlobStore;
  /** Secret for signing direct-upload URLs. */
  uploadSecret: Uint8Array;
  /** Another live receipt with these bytes: of the company, or of one member when `userId` is set. */
  sameBytes(companyId: string, sha256: string, scope: { userId?: string }): Promise<string | null>;
  /** The receipt as the API shows it (to one member when `userId` is set). */
  view(companyId: string, id: string, scope?: { userId?: string }): Promise<Record<string, unknown> | null>;
  /** Refuses a PDF with nothing in it to read (before anything is stored). */
  checkPdf?: (bytes: Buffer) => Promise<void>;
  /** The clock, in milliseconds (tests move it). */
  now?: () => number;
  /** The company's own upload limit in bytes (its maxFileSize setting; never above RECEIPT_MAX_BYTES). */
  uploadLimit?: (companyId: string) => Promise<number>;
}

/** Refuses a file over the company's own limit (the server's 10 MB is checked by inspect). */
async function checkCompanyLimit(deps: Pick<ReceiptDeps, 'uploadLimit'>, companyId: string, size: number): Promise<void> {
  const limit = deps.uploadLimit ? Math.min(await deps.uploadLimit(companyId), RECEIPT_MAX_BYTES) : RECEIPT_MAX_BYTES;
  if (size > limit) throw new PayloadTooLargeError(`The file is larger than this company's limit of ${(limit / 1024 / 1024).toFixed(1)} MB.`, 'too_large');
}

/** Signed direct-upload tokens: `<payload>.<hmac>`, payload = base64url JSON. */
interface UploadClaims {
  k: string;
  c: string;
  u: string;
  n: number;
  exp: number;
}

export function signUpload(secret: Uint8Array, claims: UploadClaims): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${payload}.${createHmac('sha256', secret).update(payload).digest('base64url')}`;
}

export function verifyUpload(secret: Uint8Array, token: string, nowSeconds: number): UploadClaims {
  const [payload, mac] = token.split('.');
  const bad = new UnauthorizedError('This upload link is not valid. Start the upload again.', 'bad_upload_link');
  if (!payload || !mac) throw bad;
  const expected = createHmac('sha256', secret).update(payload).digest();
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad;
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as UploadClaims;
  if (claims.exp < nowSeconds) throw new UnauthorizedError('This upload link has expired. Start the upload again.', 'upload_link_expired');
  return claims;
}

/** The signed token of a direct-upload URL (`/receipts/direct/{token}`). */
export const DirectUploadParams = z.object({ token: z.string().max(4096) });

export const PresignBody = z.object({
  originalName: z.string({ error: 'originalName is required' }).trim().min(1, 'originalName is required').max(255, 'File names are at most 255 characters'),
  contentType: z.string().max(200).optional().default('application/octet-stream'),
  size: z.coerce.number().int().min(0).optional().default(0),
});
export const CommitBody = PresignBody.extend({ key: z.string().min(1).max(2000) });

const money = (label: string) =>
  z.preprocess(
    (v) => (v === '' ? null : typeof v === 'string' ? Number(v) : v),
    z
      .number({ error: `${label} must be a number` })
      .finite(`${label} must be a number`)
      // the money rule of imports and transaction edits, so a corrected receipt holds what they hold
      .refine((v) => amountToCents(v) !== null, `${label} must have ${MONEY_RULE}`)
      .nullable()
      .optional(),
  );
export const CorrectionBody = z.object({
  extracted_date: z.preprocess((v) => (v === '' ? null : v), z.string().nullable().optional()),
  extracted_amount: money('Amount'),
  extracted_tax: money('Tax'),
  extracted_merchant: z.string().max(200, 'Merchant must be at most 200 characters').nullable().optional(),
  extracted_description: z.string().max(1000, 'Description must be at most 1000 characters').nullable().optional(),
});

/** The receipt decider of one receipt (its events carry the receipt's id). */
const receiptDeciderOf = (id: string): Decider<ReceiptState, ReceiptCommand, ReceiptEvent> => ({ ...receiptDecider, decide: (command, state) => decideReceipt(id, command, state) });

/** Plans one command on a receipt of the company (CommandBus.handle on its stream). */
export async function planReceipt(
  bus: CommandBus,
  id: string,
  companyId: string,
  command: (s: ReceiptState) => ReceiptCommand,
  body: (events: ReceiptEvent[]) => Promise<unknown> | unknown,
  options?: HandleOptions,
): Promise<Plan> {
  const h = await bus.handle(receiptStream(id), receiptDeciderOf(id), (state) => {
    if (state.exists && state.companyId !== companyId) throw new NotFoundError('Receipt not found', 'receipt_not_found');
    return command(state);
  }, options);
  return { appends: [h.append], body: await body(h.events) };
}

const STALE_RECEIPT = 'This receipt was changed by someone else. Reload to see the changes.';

/** Checks the bytes before anything is stored: a bad file leaves no trace. */
async function inspect(bytes: Buffer, deps: Pick<ReceiptDeps, 'checkPdf'>): Promise<SniffedFile> {
  if (bytes.byteLength > RECEIPT_MAX_BYTES) throw new PayloadTooLargeError(TOO_LARGE, 'too_large');
  const file = sniffFile(bytes);
  if (file.kind === 'pdf') await deps.checkPdf?.(bytes);
  return file;
}

/**
 * The public direct-upload target: the signed URL is the credential (like a presigned S3 URL),
 * so it is mounted before bearer authentication. The bytes are checked, stored by their hash,
 * and the arrival is recorded as an event that the commit call then turns into a receipt.
 */
export function receiptUploadTargetRouter(deps: ReceiptDeps): Router {
  const router = Router();
  const now = deps.now ?? Date.now;
  router.put(
    '/receipts/direct/:token',
    (req, _res, next) => {
      const length = Number(req.header('content-length'));
      if (Number.isFinite(length) && length > RECEIPT_MAX_BYTES) next(new PayloadTooLargeError(TOO_LARGE, 'too_large'));
      else next();
    },
    express.raw({ type: () => true, limit: RECEIPT_MAX_BYTES + 1 }),
    async (req, res) => {
      const claims = verifyUpload(deps.uploadSecret, DirectUploadParams.parse(req.params).token, Math.floor(now() / 1000));
      const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const file = await inspect(bytes, deps);
      await checkCompanyLimit(deps, claims.c, bytes.byteLength);
      const stored = await deps.blobs.put(bytes);
      const ctx = ctxOf(res);
      ctx.userId = claims.u;
      ctx.companyId = claims.c;
      const received: UploadEvent = { type: 'ReceiptFileReceived', data: { key: claims.k, companyId: claims.c, userId: claims.u, sha256: stored.sha256, size: stored.size, kind: file.kind, mime: file.mime, width: file.width, height: file.height, pages: file.pages } };
      await send(req, res, deps.bus, async (): Promise<Plan> => ({
        appends: [{ streamId: uploadStream(claims.k), expectedRevision: 'any', events: [received] }],
        body: { ok: true, key: claims.k, sha256: stored.sha256, size: stored.size },
      }));
    },
  );
  return router;
}

/** Receipt writes: presign, commit, multipart upload, correct, re-read, delete. */
export function receiptRouter(deps: ReceiptDeps): Router {
  const { bus } = deps;
  const router = validIdParams(Router());
  const company = requireCompany();
  const now = deps.now ?? Date.now;
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: RECEIPT_MAX_BYTES, files: 1, fields: 10 } });

  const uploadPlan = (ctx: RequestContext, id: string, file: Omit<UploadEvent['data'], 'key' | 'companyId' | 'userId'>, originalName: string, via: 'direct' | 'multipart') => async (): Promise<Plan> => {
    // Only a receipt the uploader may see is named (admins: the company's; others: their own).
    const duplicateOf = await deps.sameBytes(ctx.companyId!, file.sha256, ctx.role === 'admin' ? {} : { userId: ctx.userId! });
    const data = {
      receiptId: id,
      companyId: ctx.companyId!,
      userId: ctx.userId!,
      originalName: originalName.slice(0, 255),
      contentType: file.mime,
      size: file.size,
      sha256: file.sha256,
      kind: file.kind,
      ...(file.width !== undefined ? { width: file.width } : {}),
      ...(file.height !== undefined ? { height: file.height } : {}),
      ...(file.pages !== undefined ? { pages: file.pages } : {}),
      duplicateOf,
      via,
    };
    return {
      status: 201,
      appends: [{ streamId: receiptStream(id), expectedRevision: 'no_stream', events: decideReceipt(id, { type: 'UploadReceipt', data }, receiptDecider.initialState()) }],
      body: {
        receipt: { id, original_filename: data.originalName, file_size: data.size, content_type: data.contentType, processing_status: 'pending', duplicate_of: duplicateOf },
        duplicate: duplicateOf !== null,
        message: duplicateOf ? 'Receipt uploaded; the same file was uploaded before' : 'Receipt uploaded successfully',
      },
    };
  };

  router.post('/receipts/presign', company, async (req, res) => {
    const ctx = ctxOf(res);
    const b = PresignBody.parse(req.body ?? {});
    if (b.size > RECEIPT_MAX_BYTES) throw new PayloadTooLargeError(TOO_LARGE, 'too_large');
    await checkCompanyLimit(deps, ctx.companyId!, b.size);
    const key = newId();
    const token = signUpload(deps.uploadSecret, { k: key, c: ctx.companyId!, u: ctx.userId!, n: b.size, exp: Math.floor(now() / 1000) + UPLOAD_URL_TTL_SECONDS });
    res.json({ uploadUrl: `${req.baseUrl}/receipts/direct/${token}`, key: token, method: 'PUT', expiresIn: UPLOAD_URL_TTL_SECONDS, maxSize: RECEIPT_MAX_BYTES });
  });

  router.post('/receipts/commit', company, async (req, res) => {
    const ctx = ctxOf(res);
    const b = CommitBody.parse(req.body ?? {});
    const claims = verifyUpload(deps.uploadSecret, b.key, Math.floor(now() / 1000) - UPLOAD_URL_TTL_SECONDS);
    if (claims.c !== ctx.companyId || claims.u !== ctx.userId) throw new NotFoundError('No upload with this key', 'upload_not_found');
    const [received] = ((await bus.events.readStream(uploadStream(claims.k))) as unknown as UploadEvent[]).slice(-1);
    if (!received) throw new ValidationError('The file has not arrived yet. Upload it to the upload URL first.', [{ field: 'key', message: 'No file was uploaded with this key' }], 'upload_missing');
    const file = received.data;
    await send(req, res, bus, uploadPlan(ctx, claims.k, file, b.originalName, 'direct'), undefined, { bind: [file.sha256] });
  });

  router.post('/receipts/upload', company, (req, res, next) => {
    upload.single('receipt')(req, res, (err: unknown) => {
      if (err instanceof multer.MulterError) {
        next(err.code === 'LIMIT_FILE_SIZE' ? new PayloadTooLargeError(TOO_LARGE, 'too_large') : new ValidationError('Send one file in the receipt field.', [{ field: 'receipt', message: 'Send one file in the receipt field' }], 'bad_upload'));
      } else next(unreadableUpload(err));
    });
  }, async (req: Request, res) => {
    const ctx = ctxOf(res);
    if (!req.file) throw new ValidationError('Choose a receipt file (JPG, PNG or PDF).', [{ field: 'receipt', message: 'A file is required' }], 'file_required');
    const sniffed = await inspect(req.file.buffer, deps);
    await checkCompanyLimit(deps, ctx.companyId!, req.file.size);
    const stored = await deps.blobs.put(req.file.buffer);
    await send(req, res, bus, uploadPlan(ctx, newId(), { ...sniffed, sha256: stored.sha256, size: stored.size }, req.file.originalname || 'receipt', 'multipart'));
  });

  router.put('/receipts/:id', company, async (req, res) => {
    const id = String(req.params.id);
    const b = CorrectionBody.parse(req.body ?? {});
    const changes: Partial<ReceiptData> = {};
    if (b.extracted_date !== undefined) changes.date = b.extracted_date;
    if (b.extracted_amount !== undefined) changes.totalCents = b.extracted_amount === null ? null : toCents(b.extracted_amount);
    if (b.extracted_tax !== undefined) changes.taxCents = b.extracted_tax === null ? null : toCents(b.extracted_tax);
    if (b.extracted_merchant !== undefined) changes.merchant = b.extracted_merchant;
    if (b.extracted_description !== undefined) changes.description = b.extracted_description;
    const ifRevision = revisionOfIfMatch(req.header('if-match'));
    await send(
      req, res, bus,
      (ctx) => planReceipt(bus, id, ctx.companyId!, () => ({ type: 'CorrectReceipt', actorId: ctx.userId!, role: ctx.role!, changes }), () => ({ message: 'Receipt updated successfully' }), { ifRevision, staleMessage: STALE_RECEIPT }),
      undefined,
      // The reply shows the receipt as the read model has it once the correction is projected.
      { answer: async (ctx) => ({ receipt: await deps.view(ctx.companyId!, id, ctx.role === 'admin' ? {} : { userId: ctx.userId! }) }) },
    );
  });

  router.post('/receipts/:id/reprocess', company, async (req, res) => {
    const id = String(req.params.id);
    await send(req, res, bus, (ctx) =>
      planReceipt(bus, id, ctx.companyId!, () => ({ type: 'RequestReprocess', actorId: ctx.userId!, role: ctx.role! }), () => ({ message: 'The receipt will be read again', processing_status: 'pending' })),
    );
  });

  router.delete('/receipts/:id', company, async (req, res) => {
    const id = String(req.params.id);
    await send(req, res, bus, async (ctx) => {
      let name = '';
      const plan = await planReceipt(bus, id, ctx.companyId!, (s) => ((name = s.name), { type: 'DeleteReceipt', actorId: ctx.userId!, role: ctx.role! }), () => ({ success: true, message: 'Receipt deleted successfully' }));
      // Its matches go with it, in the same append; matches first, so a non-atomic append (EventStoreDB)
      // that fails half-way leaves the receipt for the retry (ADR 0016).
      return { ...plan, appends: [...(await forgetReceiptAppends(bus, ctx.companyId!, ctx.userId!, id, name)), ...plan.appends] };
    });
  });

  return router;
}
