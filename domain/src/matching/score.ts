/**
 * Scores one receipt against one card line: a confidence 0-99 and the evidence behind it, so
 * that a reviewer sees why ("card amount 1.9 % above the receipt (foreign-card fee)").
 * The factors and their calibration live in factors.ts; this file reads the inputs.
 */
import {
  amountFactor, confidenceOf, dateFactor, holderFactor, merchantFactor, MISSING, readAmount, receiptDateFactor, resolveOptions,
  TIP_MIN_SIMILARITY,
} from './factors';
import type { AmountKind, MatchOptions, ResolvedMatchOptions } from './factors';
import { foldText } from './normalize';
import { prepareDescriptor, prepareMerchant, similarityToDescriptor } from './similarity';
import type { MerchantName } from './similarity';

/** What OCR (or the user) read from a receipt; any field may be missing. */
export interface ReceiptInput {
  id: string;
  /** Total paid, positive integer cents. */
  totalCents: number | null;
  /** 'YYYY-MM-DD' */
  date: string | null;
  merchant: string | null;
  /**
   * The merchant was read, but not surely (the reader's calibrated confidence under its
   * confident mark, and no person corrected it): a name that differs from a line's may be OCR's
   * slip, so it counts no worse than no merchant; one that matches still counts.
   */
  merchantDoubtful?: boolean;
  /**
   * The date was read, but not surely (as for the merchant): a line posted up to 60 days after
   * it (or 3 before) whose date differs counts no worse than for a receipt with no date
   * (factors.ts receiptDateFactor).
   */
  dateDoubtful?: boolean;
  /** Who uploaded it, in the same terms as `TransactionInput.cardHolder` (a user id or a name). */
  uploadedBy?: string | null;
}

/** A card or bank line as imported: negative amount = expense. */
export interface TransactionInput {
  id: string;
  amountCents: number;
  /** 'YYYY-MM-DD' */
  date: string;
  description: string;
  /** Whose card, in the same terms as `ReceiptInput.uploadedBy`. */
  cardHolder?: string | null;
}

export interface MatchEvidence {
  /** Card amount minus receipt total, cents (positive: the card took more); null without a total. */
  amountDiffCents: number | null;
  /** Card amount / receipt total, 4 decimals; null without a total. */
  amountRatio: number | null;
  amountKind: AmountKind;
  /** Card date minus receipt date, days (positive: posted after); null without a receipt date. */
  daysBetween: number | null;
  /** 0..1, 3 decimals; null when the receipt has no merchant. */
  merchantSimilarity: number | null;
  /** null when either side does not say who. */
  uploaderIsCardHolder: boolean | null;
  /** Plain-language reasons, one per signal. */
  reasons: string[];
}

export interface MatchScore {
  /** 0-99, integer. */
  confidence: number;
  evidence: MatchEvidence;
}

export interface PreparedReceipt {
  id: string;
  totalCents: number | null;
  day: number | null;
  /** Readings of the merchant (see prepareMerchant), or null when the receipt has none. */
  merchant: readonly MerchantName[] | null;
  /** See ReceiptInput.merchantDoubtful. */
  merchantDoubtful: boolean;
  /** See ReceiptInput.dateDoubtful. */
  dateDoubtful: boolean;
  person: string | null;
}

export interface PreparedTransaction {
  id: string;
  description: string;
  /** The expense as a positive number of cents. */
  cardCents: number;
  day: number;
  person: string | null;
  /** Normalised readings of the description, computed on first use. */
  readings: () => readonly MerchantName[];
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days since 1970-01-01 for a valid 'YYYY-MM-DD', else null. Called for every line, so no regex or Date. */
export function dayNumber(iso: string | null | undefined): number | null {
  if (typeof iso !== 'string') return null;
  const s = iso.length === 10 ? iso : iso.trim();
  if (s.length !== 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return null;
  let y = 0;
  let m = 0;
  let d = 0;
  for (let k = 0; k < 10; k++) {
    if (k === 4 || k === 7) continue;
    const c = s.charCodeAt(k) - 48;
    if (c < 0 || c > 9) return null;
    if (k < 4) y = y * 10 + c;
    else if (k < 7) m = m * 10 + c;
    else d = d * 10 + c;
  }
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const monthDays = m === 2 && leap ? 29 : DAYS_IN_MONTH[m - 1];
  if (monthDays === undefined || d < 1 || d > monthDays) return null;
  return daysFromCivil(y, m, d);
}

function person(raw: string | null | undefined): string | null {
  if (typeof raw !== 'string') return null;
  const p = foldText(raw).replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  return p.length > 0 ? p : null;
}

/**
 * A receipt ready to score, or null when it can match nothing: a total of zero or below is a
 * refund or a void, and a receipt without total, date and merchant has nothing to compare.
 * `merchants` shares the normalised merchant between receipts that spell it the same.
 */
export function prepareReceipt(r: ReceiptInput, merchants?: Map<string, readonly MerchantName[]>): PreparedReceipt | null {
  const totalCents = typeof r.totalCents === 'number' && Number.isFinite(r.totalCents) ? Math.round(r.totalCents) : null;
  if (totalCents !== null && totalCents <= 0) return null;
  const day = dayNumber(r.date);
  const merchantText = typeof r.merchant === 'string' ? r.merchant.trim() : '';
  let merchant: readonly MerchantName[] | null = null;
  if (merchantText.length > 0) {
    merchant = merchants?.get(merchantText) ?? prepareMerchant(merchantText);
    merchants?.set(merchantText, merchant);
  }
  if (totalCents === null && day === null && merchant === null) return null;
  return { id: r.id, totalCents, day, merchant, merchantDoubtful: merchant !== null && r.merchantDoubtful === true, dateDoubtful: day !== null && r.dateDoubtful === true, person: person(r.uploadedBy) };
}

/**
 * A card line ready to score, or null for credits (refunds never pay an expense) and bad
 * dates. `descriptors` shares the normalised description between lines that repeat it (a
 * company's lines from one shop all read the same).
 */
export function prepareTransaction(t: TransactionInput, descriptors?: Map<string, readonly MerchantName[]>): PreparedTransaction | null {
  const day = dayNumber(t.date);
  if (day === null || !Number.isFinite(t.amountCents) || t.amountCents >= 0) return null;
  const description = typeof t.description === 'string' ? t.description : '';
  let readings: readonly MerchantName[] | null = null;
  const read = (): readonly MerchantName[] => {
    const known = descriptors?.get(description);
    if (known) return known;
    const fresh = prepareDescriptor(description);
    descriptors?.set(description, fresh);
    return fresh;
  };
  return {
    id: t.id,
    description,
    cardCents: -Math.round(t.amountCents),
    day,
    person: person(t.cardHolder),
    readings: () => (readings ??= read()),
  };
}

/** Merchant similarity of a prepared pair; the automatic matcher passes a memoised one. */
export type PairSimilarity = (merchant: readonly MerchantName[], t: PreparedTransaction) => number;

const directSimilarity: PairSimilarity = (merchant, t) => similarityToDescriptor(merchant, t.readings());

const money = (cents: number) => (cents / 100).toFixed(2);
const pct = (ratio: number) => `${(Math.abs(ratio - 1) * 100).toFixed(1)} %`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function amountReason(kind: AmountKind, diff: number, ratio: number, total: number, restaurant: boolean, tipRejected: boolean): string {
  switch (kind) {
    case 'exact':
      return `amount equal (${money(total)})`;
    case 'rounding':
      return `amount differs by ${plural(Math.abs(diff), 'cent')} (rounding)`;
    case 'fx_fee':
      return `card amount ${pct(ratio)} above the receipt (foreign-card fee)`;
    case 'tip':
      return `card amount ${pct(ratio)} above the receipt (tip${restaurant ? ' at a restaurant' : ''})`;
    case 'unknown':
      return 'receipt has no total';
    case 'mismatch':
      return tipRejected
        ? `card amount ${pct(ratio)} above the receipt; merchant too different to read it as a tip`
        : `amounts differ by ${pct(ratio)} (${money(total)} on the receipt, ${money(total + diff)} on the card)`;
  }
}

function dateReason(days: number | null, discounted = false): string {
  if (days === null) return 'receipt has no date';
  const aside = discounted ? ', receipt date read doubtfully: not counted against' : '';
  if (days === 0) return 'posted the same day';
  if (days > 0) return `posted ${plural(days, 'day')} after the receipt${aside}`;
  return `dated ${plural(-days, 'day')} before the receipt${aside}`;
}

function merchantReason(similarity: number | null, discounted = false): string {
  if (similarity === null) return 'receipt has no merchant';
  const s = similarity.toFixed(2);
  if (similarity >= 0.85) return `merchant matches (${s})`;
  if (similarity >= 0.5) return `merchant similar (${s})${discounted ? ', read doubtfully: not counted against' : ''}`;
  return `merchant differs (${s})${discounted ? ', read doubtfully: not counted against' : ''}`;
}

function holderReason(same: boolean | null): string | null {
  if (same === null) return null;
  return same ? 'uploaded by the card holder' : 'uploaded by someone other than the card holder';
}

/**
 * Scores prepared inputs. With `floor`, gives up (null) as soon as the pair cannot reach it,
 * before the costlier merchant comparison: the automatic matcher scores many such pairs.
 */
export function scorePrepared(
  r: PreparedReceipt, t: PreparedTransaction, o: ResolvedMatchOptions, floor = 0, similarityOf: PairSimilarity = directSimilarity,
): MatchScore | null {
  const reading = r.totalCents === null ? null : readAmount(r.totalCents, t.cardCents, o);
  const days = r.day === null ? null : t.day - r.day;
  const dFactor = days === null ? MISSING.date : receiptDateFactor(days, o.maxDaysAfter, r.dateDoubtful);
  const same = r.person === null || t.person === null ? null : r.person === t.person;
  const hFactor = holderFactor(same);
  const preKind: AmountKind = reading === null ? 'unknown' : reading.kind === 'tip_candidate' ? 'tip' : reading.kind;
  const aCeiling = amountFactor(preKind, reading?.diffCents ?? 0, reading?.ratio ?? 1, true, o);
  if (confidenceOf(aCeiling, dFactor, r.merchant === null ? MISSING.merchant : 1, hFactor) < floor) return null;

  const readings = r.merchant === null ? [] : t.readings();
  const similarity = r.merchant === null ? null : similarityOf(r.merchant, t);
  const restaurant = (r.merchant ?? []).some((m) => m.restaurant) || readings.some((d) => d.restaurant);
  const tipRejected = reading?.kind === 'tip_candidate' && (similarity === null || similarity < TIP_MIN_SIMILARITY);
  const kind: AmountKind = tipRejected ? 'mismatch' : preKind;
  const aFactor = amountFactor(kind, reading?.diffCents ?? 0, reading?.ratio ?? 1, restaurant, o);
  // A doubtful reading that differs counts as no merchant; one that matches counts as read.
  const mFactor = similarity === null ? MISSING.merchant : r.merchantDoubtful ? Math.max(MISSING.merchant, merchantFactor(similarity)) : merchantFactor(similarity);
  const confidence = confidenceOf(aFactor, dFactor, mFactor, hFactor);
  if (confidence < floor) return null;

  const reasons = [
    reading === null || r.totalCents === null
      ? amountReason('unknown', 0, 1, 0, restaurant, false)
      : amountReason(kind, reading.diffCents, reading.ratio, r.totalCents, restaurant, tipRejected),
    dateReason(days, days !== null && r.dateDoubtful && dFactor > dateFactor(days, o.maxDaysAfter)),
    merchantReason(similarity, r.merchantDoubtful && similarity !== null && merchantFactor(similarity) < MISSING.merchant),
  ];
  const holder = holderReason(same);
  if (holder !== null) reasons.push(holder);
  return {
    confidence,
    evidence: {
      amountDiffCents: reading?.diffCents ?? null,
      amountRatio: reading === null ? null : Math.round(reading.ratio * 10_000) / 10_000,
      amountKind: kind,
      daysBetween: days,
      merchantSimilarity: similarity === null ? null : Math.round(similarity * 1000) / 1000,
      uploaderIsCardHolder: same,
      reasons,
    },
  };
}

/**
 * Confidence (0-99) that `transaction` is the card payment of `receipt`, with the evidence;
 * null when it cannot be: a credit or refund line, a receipt total of zero or below, an
 * unreadable transaction date, or a receipt with no total, date or merchant at all.
 */
export function scoreMatch(receipt: ReceiptInput, transaction: TransactionInput, options?: MatchOptions): MatchScore | null {
  const r = prepareReceipt(receipt);
  const t = prepareTransaction(transaction);
  if (r === null || t === null) return null;
  return scorePrepared(r, t, resolveOptions(options));
}
