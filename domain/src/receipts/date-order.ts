/**
 * Day first or month first, decided per receipt from evidence, never by one
 * global rule. Precedence, strongest first:
 *
 * 1. `receipt`: the receipt's own dates (a numeric date with a day above 12, e.g. 25/03/2026,
 *    reads only one way; see `ownDateOrder`). Dates with a month name or in ISO order read the
 *    same either way and need no decision.
 * 2. `merchant`: the company's earlier receipts of the same merchant (normalised name) whose
 *    order was proven on them (evidence `receipt`) or shown by a person's correction (the
 *    corrected date is the read date with day and month swapped, or confirms it). When they
 *    disagree the majority wins; a tie gives no merchant evidence.
 * 3. `company`: the company's `dateOrder` setting (or a locale / `monthFirst` hint).
 * 4. `default`: day first (most of the world).
 *
 * All pure: the OCR job gathers the inputs from the read models and passes them as data to the
 * extraction worker.
 */
import type { DateOrder } from './learned/candidates';
import { normaliseMerchant } from './merchant-similarity';

export type { DateOrder };
export type DateOrderEvidence = 'receipt' | 'merchant' | 'company' | 'default';

export interface DateOrderDecision {
  order: DateOrder;
  /** Which evidence decided, for people and auditors. */
  evidence: DateOrderEvidence;
}

/** The company setting's values: `auto` leaves ambiguous dates to the other evidence (then day first). */
export const DATE_ORDER_SETTINGS = ['auto', 'day-first', 'month-first'] as const;
export type DateOrderSetting = (typeof DATE_ORDER_SETTINGS)[number];

/** The strongest evidence present decides; none: day first. */
export function decideDateOrder(evidence: { receipt?: DateOrder; merchant?: DateOrder; company?: DateOrder }): DateOrderDecision {
  if (evidence.receipt) return { order: evidence.receipt, evidence: 'receipt' };
  if (evidence.merchant) return { order: evidence.merchant, evidence: 'merchant' };
  if (evidence.company) return { order: evidence.company, evidence: 'company' };
  return { order: 'day-first', evidence: 'default' };
}

/** The company setting as a hint: `auto` gives none. */
export function companyDateOrder(setting: DateOrderSetting | undefined): DateOrder | undefined {
  return setting === 'day-first' || setting === 'month-first' ? setting : undefined;
}

/** An earlier receipt as the merchant history needs it. */
export interface PastReceipt {
  merchant: string | null;
  /** The order recorded when it was read (absent on receipts read before this was recorded). */
  dateOrder?: DateOrderDecision | null;
  /** The date as read, ISO. */
  readDate: string | null;
  /** The date now (a person may have corrected it), ISO. */
  date: string | null;
  /** Whether a person corrected the date. */
  dateCorrected: boolean;
}

/** What one earlier receipt proves about its merchant's order, if anything. */
export function provenOrder(r: PastReceipt): DateOrder | undefined {
  const read = r.dateOrder;
  if (!read) return undefined;
  if (r.dateCorrected && r.readDate && r.date) {
    const [y, m, d] = r.readDate.split('-');
    // A person swapped day and month: the other order was right. An unchanged date confirms it.
    if (r.date === `${y}-${d}-${m}` && m !== d) return read.order === 'day-first' ? 'month-first' : 'day-first';
    if (r.date === r.readDate) return read.order;
    return undefined;
  }
  return read.evidence === 'receipt' ? read.order : undefined;
}

/** Per normalised merchant name, the order its receipts proved (majority; ties give none). */
export function merchantDateOrders(receipts: readonly PastReceipt[]): Record<string, DateOrder> {
  const votes = new Map<string, { day: number; month: number }>();
  for (const r of receipts) {
    const order = provenOrder(r);
    const key = r.merchant ? normaliseMerchant(r.merchant) : '';
    if (!order || !key) continue;
    const v = votes.get(key) ?? { day: 0, month: 0 };
    if (order === 'day-first') v.day++;
    else v.month++;
    votes.set(key, v);
  }
  const out: Record<string, DateOrder> = {};
  for (const [key, v] of votes) if (v.day !== v.month) out[key] = v.day > v.month ? 'day-first' : 'month-first';
  return out;
}

/** The merchant's order from the map, by normalised name. */
export function merchantOrderOf(orders: Readonly<Record<string, DateOrder>> | undefined, merchant: string | null | undefined): DateOrder | undefined {
  if (!orders || !merchant) return undefined;
  const key = normaliseMerchant(merchant);
  return key ? orders[key] : undefined;
}
