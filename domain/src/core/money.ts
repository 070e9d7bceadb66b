/** Money is integer cents inside the system; the API speaks decimal numbers. */
export type Cents = number;

/** Decimal amount (as the API and CSV files speak it) to integer cents, rounding half away from zero. */
export function toCents(amount: number): Cents {
  if (!Number.isFinite(amount)) throw new RangeError(`not a finite amount: ${amount}`);
  const cents = Math.round(Math.abs(amount) * 100 + 1e-7);
  return amount < 0 ? -cents : cents;
}

/** Integer cents to the decimal number the API returns. */
export function fromCents(cents: Cents): number {
  return Math.round(cents) / 100;
}

/**
 * The one money rule for every way an amount gets in (a CSV import, an edit): at most two
 * decimal places, and at most 999,999,999.99 either way.
 */
export const MAX_AMOUNT_CENTS = 99_999_999_999;
export const MONEY_RULE = 'at most 2 decimal places and at most 999,999,999.99';

/** Whole cents within the range of the money rule. */
export function centsWithinRule(cents: Cents): boolean {
  return Number.isSafeInteger(cents) && Math.abs(cents) <= MAX_AMOUNT_CENTS;
}

/**
 * A decimal amount from a client (a JSON number or a numeric string) to cents under the money
 * rule; null when it is not a number, has more than two decimals, or is out of range.
 */
export function amountToCents(value: unknown): Cents | null {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    text = String(value);
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    return null;
  }
  // Plain decimal notation only ("1e3", "0x10", "Infinity" and 0.1 + 0.2 are refused).
  const m = /^([-+]?)(\d+)(?:\.(\d{1,2})0*|\.0*)?$/.exec(text);
  if (!m) return null;
  const units = Number(m[2]);
  const frac = m[3] ?? '';
  const cents = units * 100 + (frac.length === 0 ? 0 : frac.length === 1 ? Number(frac) * 10 : Number(frac));
  if (!centsWithinRule(cents)) return null;
  return m[1] === '-' && cents !== 0 ? -cents : cents;
}
