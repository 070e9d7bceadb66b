import { Router, type Response } from 'express';
import { z } from 'zod';
import { NotFoundError, type BlobStore, type ReadStore, type RequestContext } from '@paperlink/domain';
import { requireCompany } from '@paperlink/domain/http/context';
import { validIdParams } from '@paperlink/domain/http/params';
import { calendarDate } from '@paperlink/domain/http/schemas';
import { getReceipt, listReceipts, RECEIPT_SORTS, RECEIPTS, toReceiptViews, type ReceiptDoc, type ReceiptSort, SEARCH_MAX } from '@paperlink/projections';
import { setEtag } from '@paperlink/domain/http/etag';
import { readStoreOf } from '../history/as-of';

const ctxOf = (res: { locals: Record<string, unknown> }) => res.locals.ctx as RequestContext;
const blankToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);
const date = z.preprocess(blankToUndefined, calendarDate.optional());
const amount = z.preprocess(blankToUndefined, z.coerce.number({ error: 'Amounts must be numbers' }).finite('Amounts must be numbers').optional());

export const ReceiptListQuery = z.object({
  page: z.preprocess(blankToUndefined, z.coerce.number().int().min(1).max(1_000_000).default(1)),
  limit: z.preprocess(blankToUndefined, z.coerce.number().int().min(1).max(200).default(20)),
  userId: z.preprocess(blankToUndefined, z.string().max(100).optional()),
  startDate: date,
  endDate: date,
  processingStatus: z.preprocess(blankToUndefined, z.enum(['pending', 'processing', 'completed', 'failed'], { error: 'Processing status is pending, processing, completed or failed' }).optional()),
  minAmount: amount,
  maxAmount: amount,
  status: z.preprocess(blankToUndefined, z.enum(['matched', 'unmatched'], { error: 'Status is matched or unmatched' }).optional()),
  q: z.preprocess(blankToUndefined, z.string().max(SEARCH_MAX, `q is at most ${SEARCH_MAX} characters`).optional()),
  sortBy: z.preprocess(blankToUndefined, z.enum(Object.keys(RECEIPT_SORTS) as [ReceiptSort, ...ReceiptSort[]], { error: 'Unknown sort field' }).default('upload_date')),
  sortOrder: z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : blankToUndefined(v)), z.enum(['asc', 'desc']).default('desc')),
});

export interface ReceiptQueryDeps {
  store: ReadStore;
  blobs: BlobStore;
  /** A small JPEG preview of a receipt file (first page of a PDF). */
  thumbnail(bytes: Buffer, kind: ReceiptDoc['kind']): Promise<Buffer>;
}

/** Merchant names compared loosely: case, punctuation and spacing ignored. */
const looseName = (s: string | null) => (s ?? '').toUpperCase().replace(/[^A-Z0-9]+/g, '');

/**
 * Same bytes, or the same merchant, date and amount: the same purchase sent twice. Only
 * receipts the caller may see: the company's, or one member's when `userId` is set.
 */
export async function receiptDuplicates(store: ReadStore, doc: ReceiptDoc, scope: { userId?: string } = {}): Promise<Array<{ id: string; original_filename: string; upload_date: string; reason: 'same_file' | 'same_details'; extracted_merchant: string | null; extracted_date: string | null; extracted_amount: number | null }>> {
  const coll = store.collection<ReceiptDoc>(RECEIPTS);
  const own = { companyId: doc.companyId, ...(scope.userId ? { userId: scope.userId } : {}) };
  const sameFile = await coll.find({ ...own, sha256: doc.sha256 });
  const sameDetails = doc.extractedCents !== null && doc.extracted_date !== null
    ? (await coll.find({ ...own, extractedCents: doc.extractedCents, extracted_date: doc.extracted_date })).filter((d) => {
        const a = looseName(d.extracted_merchant);
        const b = looseName(doc.extracted_merchant);
        return a === '' || b === '' || a.includes(b) || b.includes(a);
      })
    : [];
  const out = new Map<string, Awaited<ReturnType<typeof receiptDuplicates>>[number]>();
  for (const [list, reason] of [[sameFile, 'same_file'], [sameDetails, 'same_details']] as const) {
    for (const d of list) {
      if (d._id === doc._id || out.has(d._id)) continue;
      out.set(d._id, { id: d._id, original_filename: d.original_filename, upload_date: d.upload_date, reason, extracted_merchant: d.extracted_merchant, extracted_date: d.extracted_date, extracted_amount: d.extractedCents === null ? null : d.extractedCents / 100 });
    }
  }
  return [...out.values()];
}

/** For a receipt's bytes: sandboxed (no script, an opaque origin), nothing loads from it or frames it. */
export const RECEIPT_FILE_CSP = "sandbox; default-src 'none'; img-src 'self' data: blob:; style-src 'unsafe-inline'; frame-ancestors 'none'";

/** Receipt reads. Admins see the company's; everyone else only their own. */
export function receiptQueryRouter(deps: ReceiptQueryDeps): Router {
  const { blobs } = deps;
  // The live read models, or the state as of `asOf` on the list and record reads (history/as-of.ts).
  const storeOf = (res: Response) => readStoreOf(res, deps.store);
  const router = validIdParams(Router());
  const company = requireCompany();

  const visible = async (res: Response, id: string): Promise<ReceiptDoc> => {
    const ctx = ctxOf(res);
    const doc = await getReceipt(storeOf(res), ctx.companyId!, id);
    if (!doc || (ctx.role !== 'admin' && doc.userId !== ctx.userId)) throw new NotFoundError('Receipt not found', 'receipt_not_found');
    return doc;
  };
  const bytesOf = async (doc: ReceiptDoc): Promise<Buffer> => {
    const bytes = await blobs.get(doc.sha256);
    if (!bytes) throw new NotFoundError('The file of this receipt is missing', 'receipt_file_missing');
    return bytes;
  };
  /**
   * A receipt's bytes never run in the app's origin: a sandboxed document (a PDF's JavaScript,
   * an image sniffed as HTML get no script and no origin), no loads, no framing, no sniffing.
   */
  const fileHeaders = (res: Response) => {
    res.setHeader('Content-Security-Policy', RECEIPT_FILE_CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  };
  const disposition = (kind: 'inline' | 'attachment', name: string) =>
    `${kind}; filename="${name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`;

  router.get('/receipts', company, async (req, res) => {
    const ctx = ctxOf(res);
    const q = ReceiptListQuery.parse(req.query);
    const userId = ctx.role === 'admin' ? q.userId : ctx.userId!;
    const { userId: _ignored, ...rest } = q;
    const store = storeOf(res);
    const { docs, total, pages } = await listReceipts(store, { ...rest, companyId: ctx.companyId!, ...(userId ? { userId } : {}) });
    res.json({ receipts: await toReceiptViews(store, docs, ctx.role === 'admin' ? {} : { userId: ctx.userId! }), pagination: { page: q.page, limit: q.limit, total, pages } });
  });

  router.get('/receipts/:id', company, async (req, res) => {
    const doc = await visible(res, String(req.params.id));
    const ctx = ctxOf(res);
    const [view] = await toReceiptViews(storeOf(res), [doc], ctx.role === 'admin' ? {} : { userId: ctx.userId! });
    setEtag(res, view?.revision);
    res.json({ receipt: view });
  });

  router.get('/receipts/:id/view', company, async (req, res) => {
    const doc = await visible(res, String(req.params.id));
    const bytes = await bytesOf(doc);
    res.setHeader('Content-Type', doc.content_type);
    res.setHeader('Content-Disposition', disposition('inline', doc.original_filename));
    res.setHeader('Cache-Control', 'private, max-age=300');
    fileHeaders(res);
    res.send(bytes);
  });

  router.get('/receipts/:id/download', company, async (req, res) => {
    const doc = await visible(res, String(req.params.id));
    const bytes = await bytesOf(doc);
    res.setHeader('Content-Type', doc.content_type);
    res.setHeader('Content-Disposition', disposition('attachment', doc.original_filename));
    fileHeaders(res);
    res.send(bytes);
  });

  router.get('/receipts/:id/thumbnail', company, async (req, res) => {
    const doc = await visible(res, String(req.params.id));
    const thumb = await deps.thumbnail(await bytesOf(doc), doc.kind);
    res.setHeader('Content-Type', 'image/jpeg');
    res.setHeader('Cache-Control', 'private, max-age=3600');
    fileHeaders(res);
    res.send(thumb);
  });

  const duplicates = async (req: { params: Record<string, string> }, res: Response) => {
    const doc = await visible(res, String(req.params.id));
    const ctx = ctxOf(res);
    const found = await receiptDuplicates(storeOf(res), doc, ctx.role === 'admin' ? {} : { userId: ctx.userId! });
    res.json({ duplicateAnalysis: { isDuplicate: found.length > 0, duplicates: found } });
  };
  router.get('/receipts/:id/duplicates', company, (req, res) => duplicates(req as never, res));
  router.post('/receipts/:id/duplicate-check', company, (req, res) => duplicates(req as never, res));

  return router;
}
