/**
 * Recurring charges: at least three postings of one merchant, amounts within about 7.5 % of
 * each other, spaced at a cadence (weekly, every two weeks, monthly, quarterly, yearly) give
 * or take a couple of days. A merchant can carry several series (two phone lines), and a
 * merchant whose similar amounts fall at random dates is not one.
 */
import { describe } from '../categorize/merchant';

export type Frequency = 'weekly' | 'biweekly' | 'monthly' | 'quarterly' | 'yearly';

export interface RecurringRecord {
  id: string;
  /** 'YYYY-MM-DD' */
  date: string;
  amountCents: number;
  description: string;
  categoryName?: string | null;
}

export interface RecurringPattern {
  /** Stable id: merchant, cadence and amount. */
  id: string;
  merchantKey: string;
  /** The descriptor the series most often carries. */
  description: string;
  frequency: Frequency;
  occurrenceCount: number;
  /** Median amount of the series, signed cents. */
  amountCents: number;
  firstDate: string;
  lastDate: string;
  nextExpectedDate: string;
  categoryName: string | null;
  memberIds: string[];
  confidence: number;
}

export interface RecurringOptions {
  /** Relative amount tolerance between occurrences. */
  amountTolerance?: number;
  minOccurrences?: number;
}

export interface Cadence {
  frequency: Frequency;
  /** Expected next date from a date. */
  next: (day: number) => number;
  tolerance: number;
}

const DAY_MS = 86_400_000;
const toDay = (date: string): number => Math.round(Date.parse(`${date.slice(0, 10)}T00:00:00Z`) / DAY_MS);
const toDate = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** Same day of the month `months` later, clamped to the month's end (Jan 31 -> Feb 28). */
function addMonths(day: number, months: number): number {
  const d = new Date(day * DAY_MS);
  const y = d.getUTCFullYear(), m = d.getUTCMonth() + months, dom = d.getUTCDate();
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Math.round(Date.UTC(y, m, Math.min(dom, last)) / DAY_MS);
}

export const CADENCES: readonly Cadence[] = [
  { frequency: 'weekly', next: (d) => d + 7, tolerance: 2 },
  { frequency: 'biweekly', next: (d) => d + 14, tolerance: 2 },
  { frequency: 'monthly', next: (d) => addMonths(d, 1), tolerance: 3 },
  { frequency: 'quarterly', next: (d) => addMonths(d, 3), tolerance: 4 },
  { frequency: 'yearly', next: (d) => addMonths(d, 12), tolerance: 5 },
];

export interface Item {
  r: RecurringRecord;
  day: number;
  abs: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

const close = (a: number, b: number, tol: number): boolean => Math.abs(a - b) <= tol * Math.max(a, b);

/**
 * Candidates tried per posting. A merchant with more postings than this within a few days of one
 * period after another (a dense one: two or three a day and more) is tried on the nearest ones only; such
 * a merchant's look-alike amounts are strays that rule out a series anyway (detectRecurringPatterns).
 */
export const PREDECESSORS = 32;


/**
 * Longest chain of items at the cadence (dynamic programming over date order). An item can only
 * follow one whose next date falls within twice the cadence's tolerance of its own day (both
 * conditions below need that), and the next date rises with the day, so the candidates of each
 * item are one window of the date order, found with two pointers: work per item is the
 * merchant's postings of a few days, not all before it (a merchant with 50,000 postings over
 * five years took minutes, one request's worth of a pool worker and more). The window is tried
 * in the same order as a scan of every earlier item, so the chain is the same whenever a window
 * holds at most PREDECESSORS postings.
 */
export function longestChain(items: readonly Item[], cadence: Cadence, tol: number): Item[] {
  const n = items.length;
  const len = new Array<number>(n).fill(1);
  const prev = new Array<number>(n).fill(-1);
  // Next dates by day (a merchant's postings share a few thousand days; addMonths builds Dates).
  const byDay = new Map<number, number>();
  const next = items.map((x) => {
    let d = byDay.get(x.day);
    if (d === undefined) byDay.set(x.day, (d = cadence.next(x.day)));
    return d;
  });
  let lo = 0;
  let mid = 0;
  for (let i = 0; i < n; i++) {
    const it = items[i] as Item;
    while (lo < i && (next[lo] as number) < it.day - 2 * cadence.tolerance) lo++;
    // At most PREDECESSORS candidates, those whose next date is nearest the item's day.
    if (mid < lo) mid = lo;
    while (mid < i && (next[mid] as number) < it.day) mid++;
    const from = Math.max(lo, mid - PREDECESSORS / 2);
    for (let j = from, seen = 0; j < i && seen < PREDECESSORS; j++, seen++) {
      if ((next[j] as number) > it.day + 2 * cadence.tolerance) break;
      const jt = items[j] as Item;
      // Within the tolerance of one period after the previous occurrence, or (a date early one
      // period and late the next) within it of two periods after the one before.
      const miss = Math.abs((next[j] as number) - it.day);
      if (miss > cadence.tolerance) {
        const p = prev[j] ?? -1;
        const pt = items[p];
        if (pt === undefined || Math.abs(cadence.next(next[p] as number) - it.day) > cadence.tolerance) continue;
      }
      if (!close(jt.abs, it.abs, tol)) continue;
      if ((len[j] ?? 1) + 1 > (len[i] ?? 1)) {
        len[i] = (len[j] ?? 1) + 1;
        prev[i] = j;
      }
    }
  }
  let end = 0;
  for (let i = 1; i < n; i++) if ((len[i] ?? 0) > (len[end] ?? 0)) end = i;
  const chain: Item[] = [];
  for (let i = n > 0 ? end : -1; i >= 0; i = prev[i] ?? -1) chain.unshift(items[i] as Item);
  return chain;
}

function countBy<T>(xs: T[]): Map<T, number> {
  const m = new Map<T, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

function fnv(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

function mostCommon(values: (string | null | undefined)[]): string | null {
  const counts = new Map<string, number>();
  for (const v of values) if (v) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: string | null = null;
  let n = 0;
  for (const [v, c] of counts) if (c > n) [best, n] = [v, c];
  return best;
}

/** Every recurring series among the records. */
export function detectRecurringPatterns(records: readonly RecurringRecord[], options: RecurringOptions = {}): RecurringPattern[] {
  const tol = options.amountTolerance ?? 0.075;
  const minCount = options.minOccurrences ?? 3;
  const groups = new Map<string, Item[]>();
  for (const r of records) {
    const d = describe(r.description);
    if (d.pending || r.amountCents === 0) continue;
    const day = toDay(r.date);
    if (!Number.isFinite(day)) continue;
    const key = `${d.key}|${r.amountCents < 0 ? '-' : '+'}`;
    const list = groups.get(key) ?? [];
    list.push({ r, day, abs: Math.abs(r.amountCents) });
    groups.set(key, list);
  }
  const patterns: RecurringPattern[] = [];
  for (const [groupKey, all] of groups) {
    let rest = all.sort((a, b) => a.day - b.day || a.r.id.localeCompare(b.r.id));
    for (let guard = 0; guard < 5 && rest.length >= minCount; guard++) {
      let best: { chain: Item[]; cadence: Cadence } | null = null;
      for (const cadence of CADENCES) {
        const chain = longestChain(rest, cadence, tol);
        if (chain.length >= minCount && (best === null || chain.length > best.chain.length)) best = { chain, cadence };
      }
      if (best === null) break;
      const { chain, cadence } = best;
      const ref = median(chain.map((c) => c.abs));
      if (!chain.every((c) => close(c.abs, ref, tol))) break;
      // Look-alike amounts inside the series' span that do not keep its rhythm: a merchant
      // visited at random dates, not a subscription.
      const first = chain[0] as Item, last = chain[chain.length - 1] as Item;
      const inChain = new Set(chain);
      const stray = rest.filter((x) => !inChain.has(x) && x.day >= first.day && x.day <= last.day && close(x.abs, ref, tol)
        && !chain.some((c) => Math.abs(c.day - x.day) <= 1));
      if (stray.length > chain.length * 0.25) break;
      // A bill repeats its amount: three visits of similar but all different amounts that happen
      // to fall a period apart are a coincidence, not a series (longer series may all differ: a
      // quarterly bill shows four times a year).
      const modeCount = Math.max(...[...countBy(chain.map((c) => c.abs)).values()]);
      if (chain.length <= minCount && modeCount < 2) break;
      const merchantKey = groupKey.slice(0, groupKey.lastIndexOf('|'));
      const sign = first.r.amountCents < 0 ? -1 : 1;
      const gaps = chain.slice(1).map((c, i) => Math.abs(c.day - cadence.next((chain[i] as Item).day)));
      const regularity = Math.max(0, 1 - median(gaps) / (2 * cadence.tolerance + 1));
      patterns.push({
        id: `rec-${fnv(`${merchantKey}|${cadence.frequency}|${Math.round(ref)}`)}`,
        merchantKey,
        description: mostCommon(chain.map((c) => c.r.description)) ?? merchantKey,
        frequency: cadence.frequency,
        occurrenceCount: chain.length,
        amountCents: sign * Math.round(ref),
        firstDate: toDate(first.day),
        lastDate: toDate(last.day),
        nextExpectedDate: toDate(cadence.next(last.day)),
        categoryName: mostCommon(chain.map((c) => c.r.categoryName)),
        memberIds: chain.map((c) => c.r.id),
        confidence: Math.round(Math.min(0.99, 0.5 + 0.08 * chain.length) * (0.6 + 0.2 * regularity + 0.2 * (modeCount / chain.length)) * 100) / 100,
      });
      rest = rest.filter((x) => !inChain.has(x));
    }
  }
  return patterns.sort((a, b) => b.occurrenceCount - a.occurrenceCount || a.id.localeCompare(b.id));
}

/** The series a record belongs to, or null. */
export function recurringPatternOf(id: string, patterns: readonly RecurringPattern[]): RecurringPattern | null {
  return patterns.find((p) => p.memberIds.includes(id)) ?? null;
}
