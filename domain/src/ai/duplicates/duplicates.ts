/**
 * The same charge posted twice, or the same receipt photographed twice: records with the
 * same amount a few days apart whose merchants read the same once the pending mark, store
 * number and processor prefix are gone. Look-alikes a week or more apart are separate
 * charges, and so are the occurrences of a recurring charge; a pair a person dismissed is
 * never raised again.
 */
import { describe } from '../categorize/merchant';

export interface DuplicateCandidate {
  id: string;
  /** 'YYYY-MM-DD' */
  date: string;
  amountCents: number;
  /** Card descriptor, or the receipt's merchant. */
  description: string;
  /** Card holder or uploader, when known: a charge posted twice lands on the same card. */
  ownerId?: string | null;
  /** Content hash of a receipt file: the same photo uploaded twice. */
  fileHash?: string | null;
}

export interface DuplicatePair {
  a: string;
  b: string;
  confidence: number;
  reasons: string[];
}

export interface DuplicateGroup {
  /** Ids in date order; the first is the one kept. */
  ids: string[];
  confidence: number;
  reasons: string[];
}

export interface DuplicateOptions {
  /** Largest gap in days between two postings of one charge (a week apart is another charge). */
  maxDays?: number;
  /** Pairs (`pairKey`) a person dismissed. */
  dismissed?: ReadonlySet<string>;
  /** Ids that belong to one recurring series each (series id per record id). */
  recurringSeries?: ReadonlyMap<string, string>;
  /** Lowest confidence that is reported. */
  minConfidence?: number;
}

/** Postings of one charge fall within days of each other; a week apart is another charge (truth of the ledgers). */
export const DEFAULT_MAX_DAYS = 6;

/** Order-free key of a pair of ids. */
export function pairKey(a: string, b: string): string {
  return a < b ? `${a}|${b}` : `${b}|${a}`;
}

const DAY_MS = 86_400_000;
function dayNumber(date: string): number {
  return Math.round(Date.parse(`${date.slice(0, 10)}T00:00:00Z`) / DAY_MS);
}

/** Word overlap of two merchant keys (0-1), with a bonus when one contains the other. */
function keySimilarity(a: string[], b: string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const sa = new Set(a), sb = new Set(b);
  let common = 0;
  for (const w of sa) if (sb.has(w)) common++;
  const jaccard = common / (sa.size + sb.size - common);
  const contained = common === Math.min(sa.size, sb.size) ? 0.8 : 0;
  return Math.max(jaccard, contained);
}

/** How likely two records are one charge (0 when they cannot be). */
export function pairConfidence(x: DuplicateCandidate, y: DuplicateCandidate, options: DuplicateOptions = {}): DuplicatePair | null {
  if (x.id === y.id || x.amountCents !== y.amountCents || x.amountCents === 0) return null;
  if ((options.dismissed ?? new Set()).has(pairKey(x.id, y.id))) return null;
  const gap = Math.abs(dayNumber(x.date) - dayNumber(y.date));
  const maxDays = options.maxDays ?? DEFAULT_MAX_DAYS;
  if (!Number.isFinite(gap) || gap > maxDays) return null;
  if (x.ownerId && y.ownerId && x.ownerId !== y.ownerId) return null;
  const reasons = ['same amount', gap === 0 ? 'same day' : `${gap} day${gap === 1 ? '' : 's'} apart`];
  if (x.fileHash && y.fileHash && x.fileHash === y.fileHash) return { a: x.id, b: y.id, confidence: 0.99, reasons: [...reasons, 'same file'] };
  const dx = describe(x.description), dy = describe(y.description);
  const sim = dx.key === dy.key ? 1 : keySimilarity(dx.words, dy.words);
  if (sim < 0.5) return null;
  const seriesX = options.recurringSeries?.get(x.id);
  const oneSeries = seriesX !== undefined && seriesX === options.recurringSeries?.get(y.id);
  const pendingPosted = dx.pending !== dy.pending;
  // A recurring charge repeats at its cadence: two of its occurrences are not one charge unless
  // one is the other's pending form or they fall on the same day.
  if (oneSeries && !pendingPosted && gap > 1) return null;
  let confidence = pendingPosted ? 0.95 : 0.92 - 0.05 * gap;
  // A round amount days apart (a $50.00 fill-up, a $25.00 toll) repeats by itself more often.
  if (!pendingPosted && gap >= 2 && x.amountCents % 100 === 0) confidence -= 0.15;
  if (dx.key !== dy.key) confidence -= 0.15 * (1 - sim) + 0.05;
  if (x.description.trim().toUpperCase() === y.description.trim().toUpperCase()) reasons.push('same descriptor');
  else reasons.push(pendingPosted ? 'pending and posted forms of one descriptor' : 'similar merchant');
  confidence = Math.round(Math.max(0, Math.min(1, confidence)) * 100) / 100;
  if (confidence < (options.minConfidence ?? 0.5)) return null;
  return { a: x.id, b: y.id, confidence, reasons };
}

/**
 * All duplicate pairs among the records, each record paired at most once (its best match: a
 * pending line settles into one posted line), grouped by connection.
 */
export function findDuplicateGroups(records: readonly DuplicateCandidate[], options: DuplicateOptions = {}): DuplicateGroup[] {
  const byAmount = new Map<number, DuplicateCandidate[]>();
  for (const r of records) {
    const list = byAmount.get(r.amountCents);
    if (list) list.push(r);
    else byAmount.set(r.amountCents, [r]);
  }
  const pairs: DuplicatePair[] = [];
  for (const list of byAmount.values()) {
    if (list.length < 2) continue;
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const p = pairConfidence(list[i] as DuplicateCandidate, list[j] as DuplicateCandidate, options);
        if (p) pairs.push(p);
      }
    }
  }
  // Best pairs first; a record joins one pair only.
  pairs.sort((p, q) => q.confidence - p.confidence || (p.a + p.b).localeCompare(q.a + q.b));
  const used = new Set<string>();
  const dateOf = new Map(records.map((r) => [r.id, r.date]));
  const groups: DuplicateGroup[] = [];
  for (const p of pairs) {
    if (used.has(p.a) || used.has(p.b)) continue;
    used.add(p.a);
    used.add(p.b);
    const ids = [p.a, p.b].sort((u, v) => (dateOf.get(u) ?? '').localeCompare(dateOf.get(v) ?? '') || u.localeCompare(v));
    groups.push({ ids, confidence: p.confidence, reasons: p.reasons });
  }
  return groups;
}

/** Duplicates of one record among others (the check of a single transaction or receipt). */
export function duplicatesOf(target: DuplicateCandidate, others: readonly DuplicateCandidate[], options: DuplicateOptions = {}): DuplicatePair[] {
  const out: DuplicatePair[] = [];
  for (const o of others) {
    const p = pairConfidence(target, o, options);
    if (p) out.push(p);
  }
  return out.sort((p, q) => q.confidence - p.confidence);
}
