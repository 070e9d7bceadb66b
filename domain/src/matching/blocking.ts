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
import { AMOUNT_CEILING, confidenceOf, MAX_DAYS_SEARCHED, MIN_DAYS_SEARCHED, MISSING, receiptDateFactor } from './factors';
import type { ResolvedMatchOptions } from './factors';
import type { PreparedReceipt, PreparedTransaction } from './score';

export interface BlockingIndex {
  /** Lines of each posting day, sorted by amount. */
  byDay: ReadonlyMap<number, readonly PreparedTransaction[]>;
  /** All lines sorted by amount, for receipts without a date: sorted on first use. */
  byAmount: () => readonly PreparedTransaction[];
  /** Memo of {@link reachableDays}: the same few (ceiling, threshold, doubtful date) keys for every receipt. */
  reachable: Map<string, [number, number] | null>;
}

/** An amount range in cents (inclusive) and the best amount factor a line in it can get. */
interface AmountWindow {
  lo: number;
  hi: number;
  ceiling: number;
}

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
function reachableDays(ceiling: number, others: number, o: ResolvedMatchOptions, threshold: number, doubtful: boolean): [number, number] | null {
  let from: number | null = null;
  let to: number | null = null;
  for (let g = MIN_DAYS_SEARCHED; g <= MAX_DAYS_SEARCHED; g++) {
    if (confidenceOf(ceiling, receiptDateFactor(g, o.maxDaysAfter, doubtful), others) < threshold) continue;
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
    const key = `${w.ceiling}|${others}|${threshold}|${r.dateDoubtful}`;
    let days = index.reachable.get(key);
    if (days === undefined) {
      days = reachableDays(w.ceiling, others, o, threshold, r.dateDoubtful);
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

/** 'YYYY-MM-DD' of a day number (days since 1970-01-01), the inverse of dayNumber. */
export function isoOfDay(day: number): string {
  // Howard Hinnant's civil_from_days.
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/**
 * Where a receipt's candidates are, for a store that looks lines up by posting day: the days
 * (ISO) on which some amount window can still reach `threshold`, and the card amounts (positive
 * cents) of the windows. `days` null: the receipt has no date, every day may hold one (its
 * windows then bound the amounts only). The same bound as {@link candidatesFor}, so the lines
 * a store returns for these days and amounts are a superset of the blocked candidates.
 */
export function receiptBlock(r: PreparedReceipt, o: ResolvedMatchOptions, threshold: number): { days: string[] | null; amounts: Array<[number, number]> } {
  const others = (r.merchant === null ? MISSING.merchant : 1) * (r.person === null ? 1 : 1.02);
  const days = new Set<number>();
  const amounts: Array<[number, number]> = [];
  for (const w of amountWindows(r.totalCents, o)) {
    if (w.hi < w.lo) continue;
    if (r.day === null) {
      if (confidenceOf(w.ceiling, MISSING.date, others) >= threshold) amounts.push([w.lo, w.hi]);
      continue;
    }
    const range = reachableDays(w.ceiling, others, o, threshold, r.dateDoubtful);
    if (range === null) continue;
    amounts.push([w.lo, w.hi]);
    for (let g = range[0]; g <= range[1]; g++) days.add(r.day + g);
  }
  return { days: r.day === null ? null : [...days].sort((a, b) => a - b).map(isoOfDay), amounts };
}

/** The receipt days (day numbers, inclusive) whose candidates can include a line posted between `fromDay` and `toDay`: the inverse of the day search. */
export function receiptDayRange(fromDay: number, toDay: number): [number, number] {
  return [fromDay - MAX_DAYS_SEARCHED, toDay - MIN_DAYS_SEARCHED];
}
