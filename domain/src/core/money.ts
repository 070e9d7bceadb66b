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
