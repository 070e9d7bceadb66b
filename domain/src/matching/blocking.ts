/**
 * Blocking: which card lines a receipt is compared with at all. Scoring every receipt
 * against every line is 10^9 pairs for 10,000 receipts and 100,000 lines; a receipt's payment
 * can only be in a few amount windows (exact or rounding, a foreign-card fee, a tip) on a few
 * days. Lines are indexed by posting day, each day's lines sorted by amount, and a window is
 * searched only on the days where it could still reach the threshold: the bound is the
 * confidence the pair would have with a perfect merchant match (factors.ts), so blocking
 * never drops a pair that scoring would have kept. (Amounts that fit no window score 25 at
 * most and are never searched: thresholds that low are not for automatic matching.)
 */
import { AMOUNT_CEILING, confidenceOf, dateFactor, MISSING } from './factors';
import type { ResolvedMatchOptions } from './factors';
import type { PreparedReceipt, PreparedTransaction } from './score';

export interface BlockingIndex {
  /** Lines of each posting day, sorted by amount. */
  byDay: ReadonlyMap<number, readonly PreparedTransaction[]>;
  /** All lines sorted by amount, for receipts without a date: sorted on first use. */
  byAmount: () => readonly PreparedTransaction[];
  /** Memo of {@link reachableDays}: the same few (ceiling, threshold) pairs for every receipt. */
  reachable: Map<string, [number, number] | null>;
}

/** An amount range in cents (inclusive) and the best amount factor a line in it can get. */
interface AmountWindow {
  lo: number;
  hi: number;
  ceiling: number;
}

/** How far after the receipt a window is ever searched, whatever the threshold. */
const MAX_DAYS_SEARCHED = 60;
/** Lines dated this many days before the receipt are never its payment (factor 0.02). */
const MIN_DAYS_SEARCHED = -3;

const byAmountThenId = (a: PreparedTransaction, b: PreparedTransaction) => a.cardCents - b.cardCents || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function buildIndex(transactions: readonly PreparedTransaction[]): BlockingIndex {
  const byDay = new Map<number, PreparedTransaction[]>();
  for (const t of transactions) {
    const day = byDay.get(t.day);
    if (day) day.push(t);
    else byDay.set(t.day, [t]);
  }
  for (const list of byDay.values()) list.sort(byAmountThenId);
  let byAmount: PreparedTransaction[] | null = null;
  return { byDay, byAmount: () => (byAmount ??= [...transactions].sort(byAmountThenId)), reachable: new Map() };
}

/** First index whose amount is >= cents. */
function lowerBound(list: readonly PreparedTransaction[], cents: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid]?.cardCents ?? 0) < cents) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function collect(list: readonly PreparedTransaction[], w: AmountWindow, out: Set<PreparedTransaction>): void {
  for (let k = lowerBound(list, w.lo); k < list.length; k++) {
    const t = list[k];
    if (t === undefined || t.cardCents > w.hi) break;
    out.add(t);
  }
}

/** Amount windows around a receipt total: exact/rounding, foreign-card fee, tip. */
export function amountWindows(totalCents: number | null, o: ResolvedMatchOptions): AmountWindow[] {
  if (totalCents === null) return [{ lo: 1, hi: Number.MAX_SAFE_INTEGER, ceiling: AMOUNT_CEILING.unknown }];
  const t = totalCents;
  return [
    { lo: t - o.roundingCents, hi: t + o.roundingCents, ceiling: AMOUNT_CEILING.exact },
    { lo: Math.ceil(t * (1 + o.fxFeeMin) - 0.5 - 1e-6), hi: Math.floor(t * (1 + o.fxFeeMax) + 0.5 + 1e-6), ceiling: AMOUNT_CEILING.fx_fee },
    { lo: Math.ceil(t * (1 + o.tipMin) - 1e-6), hi: Math.floor(t * (1 + o.tipMax) + 1e-6), ceiling: AMOUNT_CEILING.tipRestaurant },
  ];
}

/** Days after the receipt (a contiguous range, the date factor being unimodal) where a window can reach the threshold. */
function reachableDays(ceiling: number, others: number, o: ResolvedMatchOptions, threshold: number): [number, number] | null {
  let from: number | null = null;
  let to: number | null = null;
  for (let g = MIN_DAYS_SEARCHED; g <= MAX_DAYS_SEARCHED; g++) {
    if (confidenceOf(ceiling, dateFactor(g, o.maxDaysAfter), others) < threshold) continue;
    from ??= g;
    to = g;
  }
  return from === null || to === null ? null : [from, to];
}

/**
 * The card lines a receipt is scored against: every line that could reach `threshold`
 * according to its amount window and posting day, in no particular order.
 */
export function candidatesFor(index: BlockingIndex, r: PreparedReceipt, o: ResolvedMatchOptions, threshold: number): Set<PreparedTransaction> {
  const out = new Set<PreparedTransaction>();
  const others = (r.merchant === null ? MISSING.merchant : 1) * (r.person === null ? 1 : 1.02);
  for (const w of amountWindows(r.totalCents, o)) {
    if (w.hi < w.lo) continue;
    if (r.day === null) {
      if (confidenceOf(w.ceiling, MISSING.date, others) >= threshold) collect(index.byAmount(), w, out);
      continue;
    }
    const key = `${w.ceiling}|${others}|${threshold}`;
    let days = index.reachable.get(key);
    if (days === undefined) {
      days = reachableDays(w.ceiling, others, o, threshold);
      index.reachable.set(key, days);
    }
    if (days === null) continue;
    for (let g = days[0]; g <= days[1]; g++) {
      const list = index.byDay.get(r.day + g);
      if (list) collect(list, w, out);
    }
  }
  return out;
}
