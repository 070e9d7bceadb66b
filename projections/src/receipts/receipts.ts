import { CONFIDENT_AT, fromCents, receiptStream, toCents, type ReceiptInput, type DateOrder, type DateOrderEvidence, type Doc, type Filter, type ReadStore, type MatchEvent, type ReceiptEvent, type RecordedEvent, type SortSpec } from '@paperlink/domain';
import type { Projection } from '../core/projection';
import { getUsers } from '../accounts/users';
import { RECEIPT_SEARCH_FIELDS, searchClause } from '../transactions/search';

export const RECEIPTS = 'receipts';

/** A receipt as lists show it; money in cents. */
export interface ReceiptDoc extends Doc {
  companyId: string;
  userId: string;
  original_filename: string;
  content_type: string;
  kind: 'jpeg' | 'png' | 'pdf';
  file_size: number;
  sha256: string;
  duplicate_of: string | null;
  upload_date: string;
  processing_status: 'pending' | 'processing' | 'completed' | 'failed';
  failure_reason: string | null;
  ocr_run: number;
  ocr_source: 'pdf-text' | 'ocr' | null;
  ocr_confidence: number | null;
  field_confidence: Record<string, number>;
  /** Where total, date and merchant were read on the page (fractions x0, y0, x1, y1); absent on docs built before. */
  field_boxes?: Record<string, [number, number, number, number]>;
  extracted_date: string | null;
  extractedCents: number | null;
  /** Size of the total, for amount filters. */
  absCents: number | null;
  extracted_merchant: string | null;
  extracted_description: string | null;
  taxCents: number | null;
  /** Which fields people corrected. */
  corrected: string[];
  /** Day or month first, which evidence decided and the date as read (ReceiptRead.dateOrder); absent when unknown. */
  date_order?: { order: DateOrder; evidence: DateOrderEvidence; readDate: string | null };
  /** The receipt's date for date filters: the extracted date, else the upload day. */
  receipt_date: string;
  match_count: number;
  created_at: string;
  updated_at: string;
  /** Events in the receipt's own stream: its ETag, what an If-Match names (absent on docs built before). */
  revision?: number;
}

const FIELD_TO_DOC = { date: 'extracted_date', totalCents: 'extractedCents', merchant: 'extracted_merchant', description: 'extracted_description', taxCents: 'taxCents' } as const;

function withFields(doc: ReceiptDoc, fields: Partial<Record<keyof typeof FIELD_TO_DOC, string | number | null>>): ReceiptDoc {
  const next = { ...doc } as Record<string, unknown>;
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    next[FIELD_TO_DOC[k as keyof typeof FIELD_TO_DOC]] = v;
  }
  const out = next as ReceiptDoc;
  out.absCents = out.extractedCents === null ? null : Math.abs(out.extractedCents);
  out.receipt_date = out.extracted_date ?? out.upload_date.slice(0, 10);
  return out;
}

/** The fields the receipts list filters on besides the company and the upload day (see listIndexes). */
const LIST_COUNTED = ['+userId', '+receipt_date', '+processing_status', '+absCents', '+match_count'];

export const receiptsProjection: Projection = {
  name: 'receipts',
  // 2: date_order (day or month first, per receipt).
  // 3: revision (the receipt stream's, for ETag / If-Match).
  version: 3,
  // (companyId, extracted_date): the receipts a new card line could pay (auto-match's block, ADR 0021).
  // (companyId, extracted_date, extractedCents): the receipts a line could pay, by date range and total, from the index alone (match-block.ts).
  // (companyId, receipt_date): the receipts of a date window (advanced matching of a line, the list's date filter);
  // without it a window read the company's receipts row by row (200 ms of the request thread at 100,000).
  collections: { [RECEIPTS]: [['companyId'], ['companyId', 'userId'], ['companyId', 'sha256'], ['companyId', 'extracted_date'], ['companyId', 'extracted_date', 'extractedCents'], ['companyId', 'receipt_date']] },
  // The list's order (upload date, newest first), with the fields its filters take but the
  // company and the upload day carried after the keys: a list's count reads the index alone.
  listIndexes: { [RECEIPTS]: [['companyId', 'upload_date', ...LIST_COUNTED], ['companyId', 'userId', 'upload_date', ...LIST_COUNTED.filter((c) => c !== '+userId')]] },
  handles: new Set(['ReceiptUploaded', 'ReceiptProcessingStarted', 'ReceiptRead', 'ReceiptReadFailed', 'ReceiptReprocessRequested', 'ReceiptCorrected', 'ReceiptDeleted', 'MatchConfirmed', 'MatchDeleted']),
  async apply(event: RecordedEvent, view) {
    const e = event as unknown as ReceiptEvent | MatchEvent;
    const at = event.metadata.occurredAt;
    // An event of the receipt's own stream moves its revision; a match's does not.
    const revisionOf = (id: string, d: ReceiptDoc) => (event.streamId === receiptStream(id) ? event.revision + 1 : d.revision);
    const change = (id: string, f: (d: ReceiptDoc) => ReceiptDoc | null) => view.update<ReceiptDoc>(RECEIPTS, id, (d) => (d ? f({ ...d, updated_at: at, revision: revisionOf(id, d) }) : null));
    switch (e.type) {
      case 'ReceiptUploaded': {
        const d = e.data;
        await view.update<ReceiptDoc>(RECEIPTS, d.receiptId, () => ({
          _id: d.receiptId,
          companyId: d.companyId,
          userId: d.userId,
          original_filename: d.originalName,
          content_type: d.contentType,
          kind: d.kind,
          file_size: d.size,
          sha256: d.sha256,
          duplicate_of: d.duplicateOf,
          upload_date: at,
          processing_status: 'pending',
          failure_reason: null,
          ocr_run: 0,
          ocr_source: null,
          ocr_confidence: null,
          field_confidence: {},
          extracted_date: null,
          extractedCents: null,
          absCents: null,
          extracted_merchant: null,
          extracted_description: null,
          taxCents: null,
          corrected: [],
          receipt_date: at.slice(0, 10),
          match_count: 0,
          created_at: at,
          updated_at: at,
          revision: event.revision + 1,
        }));
        return;
      }
      case 'ReceiptProcessingStarted':
        return change(e.data.receiptId, (d) => ({ ...d, processing_status: 'processing' }));
      case 'ReceiptRead':
        return change(e.data.receiptId, (d) => {
          // Corrections made by people stay: a re-run fills in only what nobody corrected.
          const fields = Object.fromEntries(Object.entries(e.data.fields).filter(([k]) => !d.corrected.includes(k)));
          const { date_order: _old, ...rest } = d;
          const order = e.data.dateOrder ? { date_order: { ...e.data.dateOrder, readDate: e.data.fields.date } } : {};
          return withFields({ ...rest, ...order, processing_status: 'completed', failure_reason: null, ocr_source: e.data.source, ocr_confidence: e.data.ocrConfidence, field_confidence: e.data.confidence, field_boxes: e.data.boxes ?? {} }, fields);
        });
      case 'ReceiptReadFailed':
        return change(e.data.receiptId, (d) => ({ ...d, processing_status: 'failed', failure_reason: e.data.reason }));
      case 'ReceiptReprocessRequested':
        return change(e.data.receiptId, (d) => ({ ...d, processing_status: 'pending', failure_reason: null, ocr_run: e.data.run }));
      case 'ReceiptCorrected':
        return change(e.data.receiptId, (d) => withFields({ ...d, corrected: [...new Set([...d.corrected, ...Object.keys(e.data.changes)])] }, e.data.changes));
      case 'ReceiptDeleted':
        return view.update<ReceiptDoc>(RECEIPTS, e.data.receiptId, () => null);
      case 'MatchConfirmed':
        return change(e.data.receiptId, (d) => ({ ...d, match_count: d.match_count + 1 }));
      case 'MatchDeleted':
        if (e.data.wasConfirmed) await change(e.data.receiptId, (d) => ({ ...d, match_count: Math.max(0, d.match_count - 1) }));
        return;
    }
  },
};

export const RECEIPT_SORTS = {
  upload_date: 'upload_date',
  extracted_date: 'extracted_date',
  extracted_amount: 'extractedCents',
  file_size: 'file_size',
  original_filename: 'original_filename',
  created_at: 'created_at',
} as const;
export type ReceiptSort = keyof typeof RECEIPT_SORTS;

export interface ReceiptQuery {
  companyId: string;
  userId?: string;
  startDate?: string;
  endDate?: string;
  processingStatus?: ReceiptDoc['processing_status'];
  minAmount?: number;
  maxAmount?: number;
  status?: 'matched' | 'unmatched';
  /** One search over the merchant, description and file name read or given, and the total. */
  q?: string;
  sortBy: ReceiptSort;
  sortOrder: 'asc' | 'desc';
  page: number;
  limit: number;
}

export function receiptFilter(q: Omit<ReceiptQuery, 'sortBy' | 'sortOrder' | 'page' | 'limit'>): Filter {
  const filter: Filter = { companyId: q.companyId };
  if (q.userId) filter.userId = q.userId;
  const date: Record<string, string> = {};
  if (q.startDate) date.$gte = q.startDate;
  if (q.endDate) date.$lte = q.endDate;
  if (Object.keys(date).length) filter.receipt_date = date;
  if (q.processingStatus) filter.processing_status = q.processingStatus;
  const size: Record<string, number> = {};
  if (q.minAmount !== undefined) size.$gte = toCents(Math.abs(q.minAmount));
  if (q.maxAmount !== undefined) size.$lte = toCents(Math.abs(q.maxAmount));
  if (Object.keys(size).length) filter.absCents = size;
  if (q.status === 'matched') filter.match_count = { $gt: 0 };
  if (q.status === 'unmatched') filter.match_count = 0;
  const search = searchClause(q.q, RECEIPT_SEARCH_FIELDS, 'absCents');
  if (search) Object.assign(filter, search);
  return filter;
}

export async function listReceipts(store: ReadStore, q: ReceiptQuery): Promise<{ docs: ReceiptDoc[]; total: number; pages: number }> {
  const sort: SortSpec = { [RECEIPT_SORTS[q.sortBy]]: q.sortOrder === 'asc' ? 1 : -1 };
  if (q.sortBy !== 'upload_date') sort.upload_date = -1;
  const { docs, total } = await store.collection<ReceiptDoc>(RECEIPTS).findPage(receiptFilter(q), { sort, skip: (q.page - 1) * q.limit, limit: q.limit });
  return { docs, total, pages: Math.max(1, Math.ceil(total / q.limit)) };
}

/**
 * A read receipt as the matcher takes it (domain/src/matching/score.ts). Its merchant (and its
 * date) is doubtful when the reader's calibrated confidence for it is under the confident mark and no
 * person corrected it: the same mark the receipt details show (ReadFields). A receipt read
 * before confidences were kept counts as sure, as it did.
 */
export function receiptMatchInput(d: ReceiptDoc): ReceiptInput {
  const doubtful = (field: 'merchant' | 'date', value: unknown): boolean => {
    const c = d.field_confidence?.[field];
    return value !== null && typeof c === 'number' && c < CONFIDENT_AT && !d.corrected.includes(field);
  };
  return {
    id: d._id, totalCents: d.extractedCents, date: d.extracted_date, merchant: d.extracted_merchant, uploadedBy: d.userId,
    ...(doubtful('merchant', d.extracted_merchant) ? { merchantDoubtful: true } : {}),
    ...(doubtful('date', d.extracted_date) ? { dateDoubtful: true } : {}),
  };
}

export async function getReceipt(store: ReadStore, companyId: string, id: string): Promise<ReceiptDoc | null> {
  return store.collection<ReceiptDoc>(RECEIPTS).findOne({ _id: id, companyId });
}

/** Receipts of a company (of one member when `userId` is set) with the same bytes. */
export async function receiptsWithBytes(store: ReadStore, companyId: string, sha256: string, scope: { userId?: string } = {}): Promise<ReceiptDoc[]> {
  return store.collection<ReceiptDoc>(RECEIPTS).find({ companyId, sha256, ...(scope.userId ? { userId: scope.userId } : {}) }, { sort: { upload_date: 1 } });
}

/** The receipt as the API returns it (spec section 3). */
export interface ReceiptView {
  id: string;
  original_filename: string;
  upload_date: string;
  extracted_date: string | null;
  extracted_amount: number | null;
  extracted_merchant: string | null;
  extracted_description: string | null;
  extracted_tax: number | null;
  file_size: number;
  content_type: string;
  processing_status: ReceiptDoc['processing_status'];
  failure_reason: string | null;
  match_count: number;
  match_status: 'matched' | 'unmatched';
  duplicate_of: string | null;
  ocr_source: ReceiptDoc['ocr_source'];
  ocr_confidence: number | null;
  field_confidence: Record<string, number>;
  field_boxes: Record<string, [number, number, number, number]>;
  corrected_fields: string[];
  user_id: string;
  created_by_first_name: string | null;
  created_by_last_name: string | null;
  created_at: string;
  updated_at: string;
  /** The receipt's revision (also its ETag): send it back in If-Match to edit this version. */
  revision: number;
}

/**
 * Receipts as the API shows them. For a viewer scoped to one member (`userId`), `duplicate_of`
 * names only a receipt of theirs (uploads before the scoped check may name another's).
 */
export async function toReceiptViews(store: ReadStore, docs: ReceiptDoc[], scope: { userId?: string } = {}): Promise<ReceiptView[]> {
  const users = await getUsers(store, [...new Set(docs.map((d) => d.userId))]);
  const earlier = scope.userId ? ((await store.getMany(RECEIPTS, [...new Set(docs.flatMap((d) => (d.duplicate_of ? [d.duplicate_of] : [])))])) as Map<string, ReceiptDoc>) : null;
  const duplicateOf = (d: ReceiptDoc) => (d.duplicate_of && earlier && earlier.get(d.duplicate_of)?.userId !== scope.userId ? null : d.duplicate_of);
  return docs.map((d) => {
    const u = users.get(d.userId);
    return {
      id: d._id,
      original_filename: d.original_filename,
      upload_date: d.upload_date,
      extracted_date: d.extracted_date,
      extracted_amount: d.extractedCents === null ? null : fromCents(d.extractedCents),
      extracted_merchant: d.extracted_merchant,
      extracted_description: d.extracted_description,
      extracted_tax: d.taxCents === null ? null : fromCents(d.taxCents),
      file_size: d.file_size,
      content_type: d.content_type,
      processing_status: d.processing_status,
      failure_reason: d.failure_reason,
      match_count: d.match_count,
      match_status: d.match_count > 0 ? 'matched' : 'unmatched',
      duplicate_of: duplicateOf(d),
      ocr_source: d.ocr_source,
      ocr_confidence: d.ocr_confidence,
      field_confidence: d.field_confidence,
      // A corrected value was not read where its box is: only boxes of uncorrected fields.
      field_boxes: Object.fromEntries(Object.entries(d.field_boxes ?? {}).filter(([k]) => !d.corrected.includes(k))),
      corrected_fields: d.corrected,
      user_id: d.userId,
      created_by_first_name: u?.firstName ?? null,
      created_by_last_name: u?.lastName ?? null,
      created_at: d.created_at,
      updated_at: d.updated_at,
      revision: d.revision ?? 0,
    };
  });
}
