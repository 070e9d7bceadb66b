/**
 * The four signals of a receipt/transaction pair as factors 0..1. The confidence is
 * 100 x amount x date x merchant x card holder, capped at 99: a product, because each signal
 * alone can veto a pair (a week-old line at the right amount and shop is not the payment;
 * the right day and shop at another amount is another purchase).
 *
 * Calibration targets (checked in score.unit.spec.ts and by bench/matching.ts):
 * - exact amount, 0-3 days, a plausible merchant (similarity >= 0.7): >= 85;
 * - exact amount and date but an unrelated merchant: 55-60 (registered names differ from
 *   trading names, so this is a suggestion for review, not an automatic match);
 * - the same amount at another merchant in another week: about 30;
 * - the same merchant at another amount: about 25; with a tip-sized difference at a
 *   restaurant at most 69: tips are real, but so are second visits, and on card
 *   statements the second visit is the more common story;
 * - a foreign-card fee (1-3 % more) with a matching merchant and date: 80-87 while the
 *   fee is small (at most 10.00), fading to about 70 by 15.00 (see DEFAULT_MATCH_OPTIONS);
 * - a missing field costs what it would have proven: no merchant caps at 74, no date at 72,
 *   no total at 60, so a receipt with a gap is suggested but not matched automatically at
 *   the default threshold (75).
 */

export type AmountKind = 'exact' | 'rounding' | 'tip' | 'fx_fee' | 'mismatch' | 'unknown';

/** Tolerances; every field has a default in {@link DEFAULT_MATCH_OPTIONS}. */
export interface MatchOptions {
  /** Largest difference in cents read as rounding (cash rounding, a misread last digit). */
  roundingCents?: number;
  /** Foreign-card fee window, as a share of the receipt total (card amount higher). */
  fxFeeMin?: number;
  fxFeeMax?: number;
  /** Largest fee in cents read with full confidence; larger ones fade to a suggestion by 1.5 x. */
  fxFeeMaxCents?: number;
  /** Tip window, as a share of the receipt total (card amount higher). */
  tipMin?: number;
  tipMax?: number;
  /** Posting delay (days after the receipt) still read as normal; later dates fade out. */
  maxDaysAfter?: number;
}

export type ResolvedMatchOptions = Required<MatchOptions>;

/**
 * Defaults. The fee window is the usual 1-3 % with a tenth of a point of slack (blocking adds
 * half a cent for the issuer's rounding). It is kept tight on purpose: a second visit to the
 * same shop at a slightly different amount is the common false fee. For the same reason a
 * fee above 10.00 loses confidence: 1-3 % of a large bill is tens of ringgit or dollars, the
 * size of a second purchase (the dev statements hold one: 1,007.50 on the receipt, 1,030.65
 * at the same shop two days later), so such a pair is suggested for review, not matched.
 * Tips are 10-25 %; card lines post up to five days after the purchase (three is common,
 * five covers weekends).
 */
export const DEFAULT_MATCH_OPTIONS: ResolvedMatchOptions = {
  roundingCents: 5,
  fxFeeMin: 0.009,
  fxFeeMax: 0.031,
  fxFeeMaxCents: 1000,
  tipMin: 0.1,
  tipMax: 0.25,
  maxDaysAfter: 5,
};

export function resolveOptions(options: MatchOptions = {}): ResolvedMatchOptions {
  const d = DEFAULT_MATCH_OPTIONS;
  return {
    roundingCents: options.roundingCents ?? d.roundingCents,
    fxFeeMin: options.fxFeeMin ?? d.fxFeeMin,
    fxFeeMax: options.fxFeeMax ?? d.fxFeeMax,
    fxFeeMaxCents: options.fxFeeMaxCents ?? d.fxFeeMaxCents,
    tipMin: options.tipMin ?? d.tipMin,
    tipMax: options.tipMax ?? d.tipMax,
    maxDaysAfter: options.maxDaysAfter ?? d.maxDaysAfter,
  };
}

/** Highest amount factor of each kind; used to bound what a candidate window can reach. */
export const AMOUNT_CEILING = { exact: 1, rounding: 0.97, fx_fee: 0.87, tipRestaurant: 0.68, tip: 0.62, unknown: 0.6 } as const;

/** Factors for a missing field: what the field could have proven, taken away. */
export const MISSING = { date: 0.72, merchant: 0.74 } as const;

/** Merchant similarity from which a tip-sized difference may be read as a tip. */
export const TIP_MIN_SIMILARITY = 0.75;

export interface AmountReading {
  kind: Exclude<AmountKind, 'tip'> | 'tip_candidate';
  diffCents: number;
  ratio: number;
}

/**
 * What the difference between the card amount and the receipt total looks like, before the
 * merchant is known (a tip needs a good merchant match, decided by the caller).
 */
export function readAmount(totalCents: number, cardCents: number, o: ResolvedMatchOptions): AmountReading {
  const diffCents = cardCents - totalCents;
  const ratio = cardCents / totalCents;
  const eps = 1e-9;
  if (diffCents === 0) return { kind: 'exact', diffCents, ratio };
  if (Math.abs(diffCents) <= o.roundingCents) return { kind: 'rounding', diffCents, ratio };
  const halfCent = 0.5 / totalCents;
  if (ratio >= 1 + o.fxFeeMin - halfCent - eps && ratio <= 1 + o.fxFeeMax + halfCent + eps) return { kind: 'fx_fee', diffCents, ratio };
  if (ratio >= 1 + o.tipMin - eps && ratio <= 1 + o.tipMax + eps) return { kind: 'tip_candidate', diffCents, ratio };
  return { kind: 'mismatch', diffCents, ratio };
}

/** Amount factor of a foreign-card fee: full up to `fxFeeMaxCents`, then down to 0.7 at 1.5 times that. */
function feeFactor(diffCents: number, o: ResolvedMatchOptions): number {
  const over = (diffCents - o.fxFeeMaxCents) / Math.max(1, 0.5 * o.fxFeeMaxCents);
  return AMOUNT_CEILING.fx_fee - (AMOUNT_CEILING.fx_fee - 0.7) * Math.min(1, Math.max(0, over));
}

/** Amount factor of a settled kind. Rounding loses a point per cent of difference. */
export function amountFactor(kind: AmountKind, diffCents: number, ratio: number, restaurant: boolean, o: ResolvedMatchOptions): number {
  switch (kind) {
    case 'exact':
      return AMOUNT_CEILING.exact;
    case 'rounding':
      return Math.max(0.9, AMOUNT_CEILING.rounding - 0.01 * (Math.abs(diffCents) - 1));
    case 'fx_fee':
      return feeFactor(diffCents, o);
    case 'tip':
      return restaurant ? AMOUNT_CEILING.tipRestaurant : AMOUNT_CEILING.tip;
    case 'unknown':
      return AMOUNT_CEILING.unknown;
    case 'mismatch':
      return ratio >= 0.5 && ratio <= 2 ? 0.25 : 0.1;
  }
}

/**
 * Date factor for a card line posted `days` after the receipt. Same or next day 1; then two
 * points a day to day 3; then down to 0.87 at `maxDaysAfter`; after that it fades by a quarter
 * a day. A line dated before the receipt is almost never its payment (0.5 the day before,
 * time zones; 0.25, 0.1; then 0.02).
 */
export function dateFactor(days: number, maxDaysAfter: number): number {
  if (days < 0) return days === -1 ? 0.5 : days === -2 ? 0.25 : days === -3 ? 0.1 : 0.02;
  if (days <= 1) return 1;
  const steady = Math.max(1, Math.min(3, maxDaysAfter));
  if (days <= steady) return 1 - 0.02 * (days - 1);
  const atSteady = 1 - 0.02 * (steady - 1);
  if (days <= maxDaysAfter) return atSteady - ((atSteady - 0.87) * (days - steady)) / Math.max(1, maxDaysAfter - steady);
  return 0.87 * 0.75 ** (days - maxDaysAfter);
}

/** How far after the receipt a line is ever searched, whatever the threshold (blocking.ts). */
export const MAX_DAYS_SEARCHED = 60;
/** Lines dated this many days before the receipt are never its payment (factor 0.02). */
export const MIN_DAYS_SEARCHED = -3;

/**
 * Date factor of a receipt whose date was read doubtfully (the reader's calibrated confidence
 * under its confident mark, no person corrected it): a line inside the searched days
 * ({@link MIN_DAYS_SEARCHED} to {@link MAX_DAYS_SEARCHED}) whose date differs counts no worse
 * than a receipt with no date (a digit OCR slipped on: `01` for `11`), one that agrees counts
 * as read. Outside those days, and for a sure date, {@link dateFactor}. The days searched stay
 * the same, so a block read by posting day still holds every pair that can reach a threshold.
 */
export function receiptDateFactor(days: number, maxDaysAfter: number, doubtful: boolean): number {
  const f = dateFactor(days, maxDaysAfter);
  return doubtful && days >= MIN_DAYS_SEARCHED && days <= MAX_DAYS_SEARCHED ? Math.max(MISSING.date, f) : f;
}

const MERCHANT_CURVE: ReadonlyArray<readonly [number, number]> = [[0, 0.55], [0.3, 0.58], [0.5, 0.7], [0.7, 0.9], [0.85, 0.96], [1, 1]];

/**
 * Merchant factor from similarity: flat and low for unrelated names (0.55-0.58 up to 0.3),
 * steep through the uncertain middle, near 1 from 0.85. Never 0: a registered company name
 * may share nothing with its trading name on the card (SROIE: UNIHAKKA is "Bar Wang Rice").
 */
export function merchantFactor(similarity: number): number {
  const s = Math.min(1, Math.max(0, similarity));
  for (let k = 1; k < MERCHANT_CURVE.length; k++) {
    const [x1, y1] = MERCHANT_CURVE[k] ?? [1, 1];
    const [x0, y0] = MERCHANT_CURVE[k - 1] ?? [0, 0];
    if (s <= x1) return y0 + ((y1 - y0) * (s - x0)) / (x1 - x0);
  }
  return 1;
}

/** Uploader is the card holder: a small plus; someone else: a small minus (admins upload for others). */
export function holderFactor(same: boolean | null): number {
  return same === null ? 1 : same ? 1.02 : 0.9;
}

/** Confidence 0-99 (integer) from the factors (amount, date, merchant, holder). 100 is never claimed. */
export function confidenceOf(amount: number, date: number, merchant: number, holder = 1): number {
  return Math.round(Math.min(99, 100 * amount * date * merchant * holder));
}
