/**
 * The total paid. Every labelled amount is a candidate, scored by what its label means
 * (GRAND/NETT TOTAL, AMOUNT DUE > TOTAL > SUBTOTAL > payment > unlabelled), then checked
 * against the receipt's own arithmetic: a rounding adjustment after a total moves the total,
 * cash minus change equals it, the amount paid usually reappears (card slip, GST summary), a
 * GST summary row's base + tax adds up to it, subtotal + service charge + tax (± rounding) adds
 * up to it, two of those sums agreeing outweigh one misread printed total, a GST summary row's
 * own amounts are never it, and it is never below an item line (one below gets a low
 * confidence, so the caller takes another OCR reading).
 * Distractors (quantities, change, tax, discounts) never become candidates.
 */
import { labelledAmount } from './money-lines';
import type { LabelKind, MoneyLine } from './money-lines';
import { clamp01 } from './ocr-text';
import type { ExtractedMoney } from './types';

export interface TotalCandidate {
  cents: number;
  score: number;
  line: number;
  kind: LabelKind | 'derived';
  repaired: boolean;
  /** Fails a sanity check (below an item line): kept, but never trusted enough to skip a second reading. */
  doubtful?: boolean;
}

const LABEL_SCORE: Partial<Record<LabelKind, number>> = {
  final: 10, total: 8, subtotal: 3, excluding: 1, payment: 2, none: 1,
};

/** Rounding adjustments are a few cents (5-sen, 10-cent, nearest unit at most). */
const MAX_ROUNDING_CENTS = 50;

export function extractTotal(all: readonly MoneyLine[]): ExtractedMoney | null {
  const ranked = rankTotals(all);
  return ranked.length === 0 ? null : pickTotal(ranked);
}

/** Every total candidate with its score, best first (one per amount); exported for diagnostics. */
export function rankTotals(all: readonly MoneyLine[]): TotalCandidate[] {
  const candidates = labelledCandidates(all);
  const paid = cashMinusChange(all);
  const rounded = roundedCandidates(all, candidates, paid?.cents);
  candidates.push(...rounded, ...(paid ? [paid] : []));
  corroborate(candidates, all, rounded);
  const best = new Map<number, TotalCandidate>();
  for (const c of candidates) {
    const seen = best.get(c.cents);
    if (!seen || c.score > seen.score) best.set(c.cents, c);
  }
  return [...best.values()].sort((a, b) => b.score - a.score || b.line - a.line);
}

function labelledCandidates(all: readonly MoneyLine[]): TotalCandidate[] {
  const out: TotalCandidate[] = [];
  const n = all.length;
  all.forEach((ml, at) => {
    const base = LABEL_SCORE[ml.kind];
    if (base === undefined) return;
    const tokens = ml.kind === 'none' ? ml.amounts : [labelledAmount(all, at)?.amount].filter((a) => a !== undefined);
    for (const amount of tokens) {
      if (amount.cents <= 0) continue;
      const score = base + (amount.currency ? 0.3 : 0) - (amount.repaired ? 1 : 0) + 0.5 * (at / Math.max(1, n - 1));
      out.push({ cents: amount.cents, score, line: at, kind: ml.kind, repaired: amount.repaired });
    }
  });
  return out;
}

/**
 * "TOTAL 60.31 / ROUNDING ADJ -0.01 / 60.30": the amount paid is the total plus the adjustment.
 * When that sum is printed after the adjustment it wins; when OCR lost it, it is derived.
 * A lost minus sign is tolerated by trying both signs against the printed amounts.
 */
function roundedCandidates(all: readonly MoneyLine[], labelled: readonly TotalCandidate[], paid?: number): TotalCandidate[] {
  const out: TotalCandidate[] = [];
  all.forEach((ml, at) => {
    const adj = ml.kind === 'rounding' ? labelledAmount(all, at)?.amount : undefined;
    if (!adj || Math.abs(adj.cents) > MAX_ROUNDING_CENTS) return;
    const before = labelled.filter((c) => c.line < at && (c.kind === 'total' || c.kind === 'final' || c.kind === 'subtotal'))
      .sort((a, b) => b.line - a.line)[0];
    if (!before) return;
    const later = new Set(all.slice(at + 1).flatMap((l) => l.amounts.map((a) => a.cents)));
    if (paid !== undefined) later.add(paid);
    const signed = [before.cents + adj.cents, before.cents - adj.cents];
    const printed = signed.find((c) => later.has(c));
    if (printed !== undefined) out.push({ ...before, cents: printed, score: before.score + 1.5, line: at, kind: 'derived' });
    else if (adj.cents !== 0) out.push({ ...before, cents: signed[0]!, score: before.score - 0.5, line: at, kind: 'derived' });
  });
  return out;
}

/** CASH 50.00 / CHANGE 19.10 means 30.90 was paid: strong evidence, as OCR rarely misreads both alike. */
function cashMinusChange(all: readonly MoneyLine[]): TotalCandidate | undefined {
  const cashAt = all.findIndex((ml, i) => ml.kind === 'payment' && labelledAmount(all, i) !== null);
  if (cashAt < 0) return undefined;
  const changeAt = all.findIndex((ml, i) => i > cashAt && ml.kind === 'change');
  const cash = labelledAmount(all, cashAt)?.amount;
  const change = changeAt < 0 ? undefined : labelledAmount(all, changeAt)?.amount;
  if (!cash || !change || change.cents < 0 || change.cents >= cash.cents) return undefined;
  // CHANGE 0.00 means the exact amount was handed over: one printed figure, not two that agree.
  const score = change.cents === 0 ? 4 : 7;
  return { cents: cash.cents - change.cents, score, line: cashAt, kind: 'derived', repaired: cash.repaired || change.repaired };
}

/** What the whole receipt says about its total, computed once for all candidates. */
interface ReceiptFacts {
  /** How often each amount is printed (rounding, quantity and change lines left out). */
  printed: Map<number, number>;
  /** Amounts the receipt's arithmetic produced (rounded totals, cash minus change). */
  derived: Set<number>;
  /** Printed amounts that equal an earlier amount plus the tax and/or rounding printed between. */
  checksOut: Set<number>;
  subtotal: number;
  largest: number;
  /** Cash handed over when change came back: nothing paid can exceed it. */
  tendered: number | undefined;
  lastFinal: number;
  /** A GRAND/NETT TOTAL line is there but its amount could not be read. */
  finalLost: boolean;
  /** The largest item-line amount above the totals: the total cannot be less. */
  largestItem: number;
  /** Taxable amount + tax of a GST/VAT summary row: the total (before rounding) it adds up to. */
  taxSummed: Set<number>;
  /** Unlabelled rows below the totals that print a tax rate: a GST/VAT summary's base and tax. */
  rateRows: Set<number>;
  /** Amounts that two independent sums agree on (rounded total, cash minus change, tax summary). */
  agreed: Set<number>;
}

function receiptFacts(candidates: readonly TotalCandidate[], all: readonly MoneyLine[], rounded: readonly TotalCandidate[]): ReceiptFacts {
  const printed = new Map<number, number>();
  for (const ml of all) {
    if (ml.kind === 'rounding' || ml.kind === 'count' || ml.kind === 'change') continue;
    for (const a of ml.amounts) printed.set(a.cents, (printed.get(a.cents) ?? 0) + 1);
  }
  const paid = cashMinusChange(all);
  const change = Math.max(0, ...all.filter((ml) => ml.kind === 'change').flatMap((ml) => ml.amounts.map((a) => a.cents)));
  const lastFinal = all.findLastIndex((ml) => ml.kind === 'final');
  const taxSummed = taxSummaryTotals(all);
  return {
    printed,
    derived: new Set(candidates.filter((c) => c.kind === 'derived').map((c) => c.cents)),
    checksOut: sumsThatCheckOut(all),
    subtotal: Math.max(0, ...candidates.filter((c) => c.kind === 'subtotal').map((c) => c.cents)),
    largest: Math.max(...candidates.filter((c) => c.kind !== 'payment').map((c) => c.cents)),
    // Only when change came back: with none, a misread cash figure would veto the total.
    tendered: paid && change > 0 ? paid.cents + change : undefined,
    lastFinal,
    finalLost: lastFinal >= 0 && labelledAmount(all, lastFinal) === null,
    largestItem: largestItem(all),
    taxSummed,
    rateRows: rateRows(all),
    agreed: agreedSums([
      new Set(rounded.map((c) => c.cents)),
      new Set(paid && change > 0 ? [paid.cents] : []),
      taxSummed,
    ]),
  };
}

/**
 * "TOTAL 60.31 / ROUNDING -0.01 / RM 50.30 / CASH 70.30 / CHANGE 10.00": when the rounded total
 * and cash minus change (or a GST summary's base + tax) come to the same figure, two separate
 * sums agree and OCR has misread the printed total, which rarely happens to two sums alike.
 * Change 0.00 does not count: cash is then one printed figure, not a sum.
 */
function agreedSums(sources: ReadonlyArray<ReadonlySet<number>>): Set<number> {
  const seen = new Map<number, number>();
  for (const source of sources) for (const cents of source) seen.set(cents, (seen.get(cents) ?? 0) + 1);
  return new Set([...seen].filter(([, n]) => n >= 2).map(([cents]) => cents));
}

/** An item misread a little high (104.40 for 104.00) must not veto the real total. */
const ITEM_SLACK = 0.9;

const TOTAL_KINDS = new Set<LabelKind>(['subtotal', 'total', 'final', 'excluding']);

/**
 * Item lines are the unlabelled lines above the first total-like label; the line amount is
 * the last one (quantity and unit price come first). The total paid is never below an item
 * less the discounts, so a total below one has lost a digit to OCR (NET TOTAL 1.40 printed as
 * 7.40 under a 7.00 item).
 */
function largestItem(all: readonly MoneyLine[]): number {
  const end = all.findIndex((ml) => TOTAL_KINDS.has(ml.kind));
  if (end < 0) return 0;
  const items = all.slice(0, end).filter((ml) => ml.kind === 'none').map((ml) => ml.amounts[ml.amounts.length - 1]?.cents ?? 0);
  const discounts = all.filter((ml) => ml.kind === 'discount').map((ml) => ml.amounts[ml.amounts.length - 1]?.cents ?? 0)
    .concat(items.filter((c) => c < 0))
    .reduce((sum, c) => sum + Math.abs(c), 0);
  return Math.max(0, ...items) - discounts;
}

/** A tax rate or code on a summary row: "SR @6% 122.64 7.36", "S = GST 6% 68.82 4.13", "VAT A 20% 10.00 2.00". */
const TAX_ROW = /%|@|\b(GST|SST|VAT|TAX|SR|ZR)\b/;
/** Tax is a small share of the base it is charged on (no sales tax reaches 30 %). */
const MAX_TAX_RATE = 0.3;

/**
 * GST summary tables print each rate's taxable base and its tax on one row; base + tax is
 * what was charged before any rounding. Only the last two amounts of a row count, and the
 * tax must be a plausible share of the base (a quantity × price line never qualifies).
 */
function taxSummaryTotals(all: readonly MoneyLine[]): Set<number> {
  const out = new Set<number>();
  for (const ml of all) {
    if (ml.amounts.length < 2 || !TAX_ROW.test(ml.line.label)) continue;
    const [base, tax] = ml.amounts.slice(-2).map((a) => a.cents) as [number, number];
    if (base > 0 && tax > 0 && tax <= base * MAX_TAX_RATE) out.add(base + tax);
  }
  return out;
}

/** A rate printed on a row: "6%", "@ 6 %", "SR 6.0%". */
const RATE = /\d\s?%/;

/**
 * "S = GST @6% 68.82 4.13", "SR 6% 42.45 2.55": below the totals, an unlabelled row with a tax
 * rate is the tax summary, whose amounts are a taxable base and its tax, never the amount paid.
 */
function rateRows(all: readonly MoneyLine[]): Set<number> {
  const first = all.findIndex((ml) => TOTAL_KINDS.has(ml.kind));
  const out = new Set<number>();
  if (first < 0) return out;
  all.forEach((ml, at) => {
    if (at > first && ml.kind === 'none' && RATE.test(ml.line.text)) out.add(at);
  });
  return out;
}

const BASE_KINDS = new Set<LabelKind>(['subtotal', 'total', 'excluding', 'none']);

/**
 * "14.00 / GST 6% 0.84 / ROUNDING 0.01 / NET TOTAL 14.85": an amount that equals an earlier
 * amount plus the tax and rounding printed in between is the receipt adding up. A lost minus
 * sign on the rounding is tolerated.
 */
function sumsThatCheckOut(all: readonly MoneyLine[]): Set<number> {
  const out = new Set<number>();
  all.forEach((ml, at) => {
    if (!BASE_KINDS.has(ml.kind)) return;
    for (const base of ml.amounts.filter((a) => a.cents > 0)) {
      let taxes = 0;
      let charges = 0;
      let rounding = 0;
      for (const later of all.slice(at + 1)) {
        const amount = later.amounts[later.amounts.length - 1]?.cents;
        if (amount === undefined) continue;
        if (later.kind === 'tax' && taxes === 0 && amount > 0 && amount < base.cents) taxes = amount;
        else if (later.kind === 'charge' && charges === 0 && amount > 0 && amount < base.cents) charges = amount;
        else if (later.kind === 'rounding' && rounding === 0 && Math.abs(amount) <= MAX_ROUNDING_CENTS) rounding = amount;
        else if (taxes !== 0 || charges !== 0 || rounding !== 0) {
          const added = base.cents + taxes + charges;
          const sums = [added + rounding, added - rounding];
          for (const a of later.amounts) if (sums.includes(a.cents)) out.add(a.cents);
        }
      }
    }
  });
  return out;
}

/**
 * The same figure printed on other lines (card slip, summary table) or produced by the
 * receipt's arithmetic supports a candidate; figures that contradict it lose.
 */
function corroborate(candidates: TotalCandidate[], all: readonly MoneyLine[], rounded: readonly TotalCandidate[]): void {
  const facts = receiptFacts(candidates, all, rounded);
  for (const c of candidates) c.score += evidence(c, facts);
}

function evidence(c: TotalCandidate, facts: ReceiptFacts): number {
  const repeats = (facts.printed.get(c.cents) ?? 0) - (c.kind === 'derived' ? 0 : 1);
  let score = 0.7 * Math.min(3, Math.max(0, repeats));
  if (facts.derived.has(c.cents) && c.kind !== 'derived') score += 2;
  if (facts.checksOut.has(c.cents)) score += 1.5;
  if (facts.taxSummed.has(c.cents) && c.kind !== 'none') score += 1;
  if (facts.agreed.has(c.cents) && c.kind === 'derived') score += AGREED;
  // Below an item line by more than an OCR slip in the cents: a digit of the total was misread.
  if (c.cents < facts.largestItem * ITEM_SLACK) {
    score -= 2.5;
    c.doubtful = true;
  }
  // A "total" far below the subtotal was misread.
  if (facts.subtotal > 0 && c.cents < facts.subtotal * 0.5) score -= 3;
  if (c.kind === 'none' && c.cents === facts.largest) score += 1;
  if (c.kind === 'none' && facts.rateRows.has(c.line)) score -= 2;
  if (facts.tendered !== undefined && c.cents > facts.tendered) score -= 4;
  // A plain TOTAL above a GRAND/NETT TOTAL line is an intermediate figure.
  if ((c.kind === 'total' || c.kind === 'subtotal') && c.line < facts.lastFinal) score -= 1.5;
  // The final line is there but its amount was lost: what was paid is the best evidence left.
  if (facts.finalLost && c.kind === 'derived' && c.line > facts.lastFinal) score += 2;
  return score;
}

/** Two sums that agree outweigh one printed total (a printed GRAND TOTAL scores about 10). */
const AGREED = 2.5;

/** A total that fails a sanity check stays below the retry threshold (combine.ts RETRY_BELOW). */
const DOUBTFUL = 0.55;

function pickTotal(ranked: readonly TotalCandidate[]): ExtractedMoney {
  const top = ranked[0]!;
  const margin = ranked[1] ? top.score - ranked[1].score : 4;
  const confidence = clamp01(0.25 + 0.05 * top.score + 0.06 * Math.min(margin, 4)) * (top.repaired ? 0.8 : 1)
    * (top.doubtful ? DOUBTFUL : 1);
  return { cents: top.cents, confidence: Math.round(confidence * 100) / 100 };
}
