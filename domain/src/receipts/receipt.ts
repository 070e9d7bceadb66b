import type { Decider } from '../core/decider';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors';
import type { Role } from '../core/context';
import { centsWithinRule, MONEY_RULE } from '../core/money';

/**
 * A receipt's life in its stream `receipt-<id>`: uploaded (the file is stored by its SHA-256),
 * read by OCR in runs (pending → processing → completed or failed), corrected by people,
 * deleted. Each OCR run has a number; a run's result is recorded once, and only for the
 * current run, so a job that runs twice, or a stale job after a re-run, changes nothing.
 */
export type ProcessingStatus = 'pending' | 'processing' | 'completed' | 'failed';

/** Fields as read (or corrected): money in cents, dates ISO. */
export interface ReceiptData {
  date: string | null;
  totalCents: number | null;
  merchant: string | null;
  taxCents: number | null;
  description: string | null;
}

export const EMPTY_RECEIPT_DATA: ReceiptData = { date: null, totalCents: null, merchant: null, taxCents: null, description: null };

export interface ReceiptUploadedData {
  receiptId: string;
  companyId: string;
  userId: string;
  originalName: string;
  contentType: string;
  size: number;
  sha256: string;
  kind: 'jpeg' | 'png' | 'pdf';
  width?: number;
  height?: number;
  pages?: number;
  /** Another receipt of the company with the same bytes, when there is one. */
  duplicateOf: string | null;
  via: 'direct' | 'multipart';
}

export type ReceiptEvent =
  | { type: 'ReceiptUploaded'; data: ReceiptUploadedData }
  | { type: 'ReceiptProcessingStarted'; data: { receiptId: string; companyId: string; run: number; attempt: number } }
  | {
      type: 'ReceiptRead';
      data: {
        receiptId: string;
        companyId: string;
        run: number;
        source: 'pdf-text' | 'ocr';
        /** The raw text, kept for auditors and for re-extraction (cut at 20,000 characters). */
        text: string;
        fields: ReceiptData;
        /** Per field, how sure the reader was (0..1). */
        confidence: Partial<Record<keyof ReceiptData, number>>;
        /**
         * Where on the (first) page image total, date and merchant were read: the line's box as
         * fractions of the page, [x0, y0, x1, y1] in 0..1. Absent for text layers and old events.
         */
        boxes?: Partial<Record<'totalCents' | 'date' | 'merchant', [number, number, number, number]>>;
        /**
         * Day or month first for the receipt's numeric dates and which evidence decided it
         * (receipts/date-order.ts): the receipt itself, the merchant's earlier receipts, the
         * company's setting, or the default. Absent when no date was read and on old events.
         */
        dateOrder?: { order: 'day-first' | 'month-first'; evidence: 'receipt' | 'merchant' | 'company' | 'default' };
        ocrConfidence: number;
        ms: number;
      };
    }
  | { type: 'ReceiptReadFailed'; data: { receiptId: string; companyId: string; run: number; reason: string; attempts: number } }
  | { type: 'ReceiptReprocessRequested'; data: { receiptId: string; companyId: string; run: number; by: string } }
  | { type: 'ReceiptCorrected'; data: { receiptId: string; companyId: string; by: string; changes: Partial<ReceiptData> } }
  | { type: 'ReceiptDeleted'; data: { receiptId: string; companyId: string; by: string } };

export const RECEIPT_EVENT_TYPES = ['ReceiptUploaded', 'ReceiptProcessingStarted', 'ReceiptRead', 'ReceiptReadFailed', 'ReceiptReprocessRequested', 'ReceiptCorrected', 'ReceiptDeleted'] as const;

export interface ReceiptState {
  exists: boolean;
  deleted: boolean;
  companyId: string;
  ownerId: string;
  sha256: string;
  /** The file name as uploaded. */
  name: string;
  status: ProcessingStatus;
  /** The current OCR run (0 for the one the upload starts). */
  run: number;
  /** Fields as read by OCR, then as corrected. */
  fields: ReceiptData;
}

export type ReceiptCommand =
  | { type: 'UploadReceipt'; data: ReceiptUploadedData }
  | { type: 'StartProcessing'; run: number; attempt: number }
  | { type: 'RecordRead'; result: Omit<Extract<ReceiptEvent, { type: 'ReceiptRead' }>['data'], 'receiptId' | 'companyId'> }
  | { type: 'RecordReadFailure'; run: number; reason: string; attempts: number }
  | { type: 'RequestReprocess'; actorId: string; role: Role }
  | { type: 'CorrectReceipt'; actorId: string; role: Role; changes: Partial<ReceiptData> }
  | { type: 'DeleteReceipt'; actorId: string; role: Role };

const initial: ReceiptState = { exists: false, deleted: false, companyId: '', ownerId: '', sha256: '', name: '', status: 'pending', run: 0, fields: EMPTY_RECEIPT_DATA };

/** Admins act on every receipt of the company; others on their own only (others' are "not found"). */
export function canActOn(state: ReceiptState, actorId: string, role: Role): boolean {
  return role === 'admin' || state.ownerId === actorId;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function validDate(d: string): boolean {
  if (!ISO_DATE.test(d)) return false;
  const t = new Date(`${d}T00:00:00Z`);
  return !Number.isNaN(t.getTime()) && t.toISOString().slice(0, 10) === d;
}

/** Checks corrected fields: a real date, money of sane size, short text. */
export function validateCorrection(changes: Partial<ReceiptData>): Partial<ReceiptData> {
  const out: Partial<ReceiptData> = {};
  const problems: Array<{ field: string; message: string }> = [];
  if (changes.date !== undefined) {
    if (changes.date !== null && !validDate(changes.date)) problems.push({ field: 'extracted_date', message: 'Date must be a real date written YYYY-MM-DD' });
    else out.date = changes.date;
  }
  for (const [key, label, field] of [['totalCents', 'Amount', 'extracted_amount'], ['taxCents', 'Tax', 'extracted_tax']] as const) {
    const v = changes[key];
    if (v === undefined) continue;
    if (v !== null && !centsWithinRule(v)) problems.push({ field, message: `${label} must have ${MONEY_RULE}` });
    else out[key] = v;
  }
  for (const [key, field, max] of [['merchant', 'extracted_merchant', 200], ['description', 'extracted_description', 1000]] as const) {
    const v = changes[key];
    if (v === undefined) continue;
    const t = v === null ? null : v.trim();
    if (t !== null && t.length > max) problems.push({ field, message: `${field === 'extracted_merchant' ? 'Merchant' : 'Description'} must be at most ${max} characters` });
    else out[key] = t === '' ? null : t;
  }
  if (problems.length > 0) throw new ValidationError(problems[0]!.message, problems);
  return out;
}

export const receiptDecider: Decider<ReceiptState, ReceiptCommand, ReceiptEvent> = {
  initialState: () => initial,
  evolve(state, event) {
    switch (event.type) {
      case 'ReceiptUploaded':
        return { ...state, exists: true, companyId: event.data.companyId, ownerId: event.data.userId, sha256: event.data.sha256, name: event.data.originalName, status: 'pending', run: 0 };
      case 'ReceiptProcessingStarted':
        return { ...state, status: 'processing' };
      case 'ReceiptRead':
        return { ...state, status: 'completed', fields: { ...event.data.fields } };
      case 'ReceiptReadFailed':
        return { ...state, status: 'failed' };
      case 'ReceiptReprocessRequested':
        return { ...state, status: 'pending', run: event.data.run };
      case 'ReceiptCorrected':
        return { ...state, fields: { ...state.fields, ...event.data.changes } };
      case 'ReceiptDeleted':
        return { ...state, deleted: true };
    }
  },
  decide(command, state) {
    if (command.type === 'UploadReceipt') {
      if (state.exists) throw new ConflictError('This receipt was already uploaded', 'receipt_exists');
      return [{ type: 'ReceiptUploaded', data: command.data }];
    }
    if (!state.exists || state.deleted) {
      // A job for a receipt deleted meanwhile has nothing left to do.
      if (command.type === 'StartProcessing' || command.type === 'RecordRead' || command.type === 'RecordReadFailure') return [];
      throw new NotFoundError('Receipt not found', 'receipt_not_found');
    }
    const ids = { receiptId: '', companyId: state.companyId };
    switch (command.type) {
      case 'StartProcessing':
        if (command.run !== state.run || state.status === 'completed' || state.status === 'failed') return [];
        if (state.status === 'processing' && command.attempt === 1) return [];
        return [{ type: 'ReceiptProcessingStarted', data: { ...ids, run: command.run, attempt: command.attempt } }];
      case 'RecordRead':
        if (command.result.run !== state.run || state.status === 'completed' || state.status === 'failed') return [];
        return [{ type: 'ReceiptRead', data: { ...ids, ...command.result } }];
      case 'RecordReadFailure':
        if (command.run !== state.run || state.status === 'completed' || state.status === 'failed') return [];
        return [{ type: 'ReceiptReadFailed', data: { ...ids, run: command.run, reason: command.reason, attempts: command.attempts } }];
      case 'RequestReprocess':
        if (!canActOn(state, command.actorId, command.role)) throw new NotFoundError('Receipt not found', 'receipt_not_found');
        if (state.status === 'pending' || state.status === 'processing') throw new ConflictError('This receipt is being read already', 'receipt_busy');
        return [{ type: 'ReceiptReprocessRequested', data: { ...ids, run: state.run + 1, by: command.actorId } }];
      case 'CorrectReceipt': {
        if (!canActOn(state, command.actorId, command.role)) throw new NotFoundError('Receipt not found', 'receipt_not_found');
        const checked = validateCorrection(command.changes);
        const changes = Object.fromEntries(Object.entries(checked).filter(([k, v]) => state.fields[k as keyof ReceiptData] !== v)) as Partial<ReceiptData>;
        return Object.keys(changes).length === 0 ? [] : [{ type: 'ReceiptCorrected', data: { ...ids, by: command.actorId, changes } }];
      }
      case 'DeleteReceipt':
        if (!canActOn(state, command.actorId, command.role)) throw new NotFoundError('Receipt not found', 'receipt_not_found');
        return [{ type: 'ReceiptDeleted', data: { ...ids, by: command.actorId } }];
    }
  },
};

/** The decider fills the receipt id in: events of a stream carry it. */
export function decideReceipt(receiptId: string, command: ReceiptCommand, state: ReceiptState): ReceiptEvent[] {
  return receiptDecider.decide(command, state).map((e) => ({ ...e, data: { ...e.data, receiptId } }) as ReceiptEvent);
}
