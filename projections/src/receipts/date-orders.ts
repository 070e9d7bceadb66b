import { normaliseMerchant, provenOrder, type DateOrder, type DateOrderDecision, type Doc, type ReadStore, type ReceiptEvent, type RecordedEvent } from '@paperlink/domain';
import type { Projection } from '../core/projection';

/**
 * The merchant date-order history (domain receipts/date-order.ts) kept as it changes,
 * so that reading a receipt does not read every receipt of its company: the OCR job read them
 * all (dateOrderHistory, 1.2 s of the request thread and a few hundred MB of garbage per receipt
 * at 100,000 receipts; ADR 0029 sixth round). Per receipt, what of it the history needs; per
 * company and normalised merchant, the votes its receipts cast (provenOrder). The map the
 * extractor takes (merchantDateOrders) is the merchants whose votes differ.
 */
export const RECEIPT_DATE_STATES = 'receipt_date_states';
export const MERCHANT_DATE_ORDERS = 'merchant_date_orders';

/** A receipt as the history sees it: the receipts read model's fields of the same names. */
export interface ReceiptDateState extends Doc {
  companyId: string;
  /** extracted_merchant */
  merchant: string | null;
  /** extracted_date */
  date: string | null;
  /** date_order (absent until a reading recorded one) with its readDate. */
  dateOrder?: DateOrderDecision;
  readDate: string | null;
  /** Fields people corrected (a reading leaves them as they are). */
  corrected: string[];
}

/** Votes of one merchant's receipts in one company. */
export interface MerchantDateOrderDoc extends Doc {
  companyId: string;
  merchant: string;
  day: number;
  month: number;
}

function vote(s: ReceiptDateState | null): { merchant: string; order: DateOrder } | undefined {
  if (!s?.dateOrder) return undefined;
  const order = provenOrder({ merchant: s.merchant, dateOrder: s.dateOrder, readDate: s.readDate, date: s.date, dateCorrected: s.corrected.includes('date') });
  const merchant = s.merchant ? normaliseMerchant(s.merchant) : '';
  return order && merchant ? { merchant, order } : undefined;
}

export const receiptDateOrdersProjection: Projection = {
  name: 'receipt-date-orders',
  version: 1,
  collections: { [RECEIPT_DATE_STATES]: [], [MERCHANT_DATE_ORDERS]: [['companyId']] },
  handles: new Set(['ReceiptRead', 'ReceiptCorrected', 'ReceiptDeleted']),
  async apply(event: RecordedEvent, view) {
    const e = event as unknown as ReceiptEvent;
    if (e.type !== 'ReceiptRead' && e.type !== 'ReceiptCorrected' && e.type !== 'ReceiptDeleted') return;
    const id = e.data.receiptId;
    const before = await view.get<ReceiptDateState>(RECEIPT_DATE_STATES, id);
    let after: ReceiptDateState | null;
    if (e.type === 'ReceiptDeleted') after = null;
    else if (e.type === 'ReceiptRead') {
      const corrected = before?.corrected ?? [];
      const { fields } = e.data;
      after = {
        _id: id,
        companyId: e.data.companyId,
        // Corrections made by people stay, as in the receipts read model.
        merchant: corrected.includes('merchant') || fields.merchant === undefined ? (before?.merchant ?? null) : fields.merchant,
        date: corrected.includes('date') || fields.date === undefined ? (before?.date ?? null) : fields.date,
        readDate: e.data.dateOrder ? (fields.date ?? null) : null,
        corrected,
        ...(e.data.dateOrder ? { dateOrder: e.data.dateOrder } : {}),
      };
    } else {
      const changes = e.data.changes;
      const base: ReceiptDateState = before ?? { _id: id, companyId: e.data.companyId, merchant: null, date: null, readDate: null, corrected: [] };
      after = {
        ...base,
        ...(changes.merchant !== undefined ? { merchant: changes.merchant } : {}),
        ...(changes.date !== undefined ? { date: changes.date } : {}),
        corrected: [...new Set([...base.corrected, ...Object.keys(changes)])],
      };
    }
    await view.update<ReceiptDateState>(RECEIPT_DATE_STATES, id, () => after);
    const was = vote(before);
    const is = vote(after);
    if (was?.merchant === is?.merchant && was?.order === is?.order) return;
    // One update per merchant document and event: a second one in the same event would be taken
    // for a replay (the unit of work skips a document whose _pos is the event's) and lost.
    const companyId = e.data.companyId;
    const deltas = new Map<string, { day: number; month: number }>();
    for (const [v, by] of [[was, -1], [is, 1]] as const) {
      if (!v) continue;
      const d = deltas.get(v.merchant) ?? { day: 0, month: 0 };
      if (v.order === 'day-first') d.day += by;
      else d.month += by;
      deltas.set(v.merchant, d);
    }
    for (const [merchant, delta] of deltas) {
      const id = `${companyId}:${merchant}`;
      await view.update<MerchantDateOrderDoc>(MERCHANT_DATE_ORDERS, id, (d) => {
        const next = d ?? { _id: id, companyId, merchant, day: 0, month: 0 };
        const out = { ...next, day: next.day + delta.day, month: next.month + delta.month };
        return out.day <= 0 && out.month <= 0 ? null : out;
      });
    }
  },
};

/**
 * Per normalised merchant, the order the company's receipts proved (the majority; ties give
 * none): what `merchantDateOrders` makes of every receipt, from the kept votes.
 */
export async function merchantDateOrdersOf(store: ReadStore, companyId: string): Promise<Record<string, DateOrder>> {
  const out: Record<string, DateOrder> = {};
  for (const d of await store.collection<MerchantDateOrderDoc>(MERCHANT_DATE_ORDERS).find({ companyId })) {
    if (d.day !== d.month) out[d.merchant] = d.day > d.month ? 'day-first' : 'month-first';
  }
  return out;
}
