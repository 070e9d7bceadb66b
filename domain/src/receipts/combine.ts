/**
 * Several OCR readings of one receipt (the image as it is, then with heavier ink and with
 * evened contrast) make different mistakes. When the first reading leaves a field missing or
 * unsure, the others are taken and each field is decided by a vote weighted by confidence:
 * values that several readings agree on win, and the first reading breaks ties.
 */
import { merchantSimilarity } from './merchant-similarity';
import { clamp01 } from './ocr-text';
import type { ReceiptFields } from './types';

/** Totals this close agree up to cash rounding (5 sen / 5 cents): 19.99 and 20.00 support each other. */
const ROUNDING_CENTS = 2;
/** Merchant readings this similar are the same name read differently. */
const SAME_MERCHANT = 0.8;

/** Below these confidences a field is worth a second look. */
export const RETRY_BELOW = { total: 0.6, date: 0.6 } as const;

/** Whether another OCR reading could help: the total or date is missing or unsure, or no merchant. */
export function needsAnotherReading(fields: ReceiptFields): boolean {
  return !fields.total || fields.total.confidence < RETRY_BELOW.total
    || !fields.date || fields.date.confidence < RETRY_BELOW.date
    || !fields.merchant;
}

/**
 * The first reading with the fields that were read again line by line (reread-lines.ts,
 * infra/src/ocr/line-reread.ts) taken from the mended reading: its value or none, its confidence
 * and its line's box (the mended reading's words are in the same page pixels). The other fields,
 * tax and description stay the first reading's.
 */
export function takeRereadFields(first: ReceiptFields, mended: ReceiptFields, fields: ReadonlyArray<'total' | 'date' | 'merchant'>): ReceiptFields {
  const out: ReceiptFields = { ...first };
  const boxes = { ...first.boxes };
  for (const f of fields) {
    if (f === 'total') out.total = mended.total;
    else if (f === 'date') out.date = mended.date;
    else out.merchant = mended.merchant;
    const b = mended.boxes?.[f];
    if (b) boxes[f] = b;
    else delete boxes[f];
  }
  if (fields.includes('date')) {
    if (mended.dateOrder) out.dateOrder = mended.dateOrder;
    else delete out.dateOrder;
  }
  if (Object.keys(boxes).length > 0) out.boxes = boxes;
  else delete out.boxes;
  return out;
}

/** Field-by-field vote over readings (first = preferred on ties). */
export function combineReadings(readings: readonly ReceiptFields[]): ReceiptFields {
  if (readings.length === 0) throw new RangeError('combineReadings needs at least one reading');
  if (readings.length === 1) return readings[0]!;
  const date = vote(readings.map((r) => r.date), (a, b) => a.value === b.value);
  // The order (and its evidence) of a reading that gave the chosen date.
  const dateOrder = (readings.find((r) => r.date?.value === date?.value) ?? readings[0]!).dateOrder;
  return {
    date,
    total: vote(readings.map((r) => r.total), (a, b) => Math.abs(a.cents - b.cents) <= ROUNDING_CENTS),
    merchant: vote(readings.map((r) => r.merchant), (a, b) => merchantSimilarity(a.value, b.value) >= SAME_MERCHANT),
    tax: vote(readings.map((r) => r.tax), (a, b) => a.cents === b.cents),
    description: vote(readings.map((r) => r.description), (a, b) => a.value.toUpperCase() === b.value.toUpperCase()),
    ...(dateOrder ? { dateOrder } : {}),
  };
}

/**
 * Groups values that `same` says agree (with the group's first value), weighs each group by
 * the sum of its confidences and keeps the most confident member of the heaviest group (the
 * earliest reading on ties). Its confidence grows with agreement and shrinks with dissent.
 */
function vote<T extends { confidence: number }>(values: ReadonlyArray<T | null>, same: (a: T, b: T) => boolean): T | null {
  const groups: Array<{ first: T; best: T; order: number; weight: number; count: number }> = [];
  values.forEach((v, order) => {
    if (!v) return;
    const g = groups.find((x) => same(x.first, v));
    if (!g) {
      groups.push({ first: v, best: v, order, weight: v.confidence, count: 1 });
      return;
    }
    g.weight += v.confidence;
    g.count += 1;
    if (v.confidence > g.best.confidence) g.best = v;
  });
  const ranked = [...groups].sort((a, b) => b.weight - a.weight || a.order - b.order);
  const top = ranked[0];
  if (!top) return null;
  const all = ranked.reduce((sum, g) => sum + g.weight, 0);
  const confidence = clamp01(top.best.confidence * (all > 0 ? 0.6 + 0.4 * (top.weight / all) : 1) + 0.05 * (top.count - 1));
  return { ...top.best, confidence: Math.round(confidence * 100) / 100 };
}
