/**
 * The year of a receipt's date checked against the company's own period ("date
 * plausibility", ADR 0019): the days its card lines were posted on. A receipt is
 * paid inside that period, give or take a quarter (a receipt kept before the first statement was
 * imported, one uploaded after the last). A date outside it is doubtful; when one OCR slip of the
 * year's last two digits (learned/digit-confusions.json: which digit tesseract.js reads for which,
 * counted on receipts-train, e.g. `3` for `8`) puts it inside, the mended year is taken, still
 * marked doubtful so that a person looks at it first and the line readers read the line again.
 *
 * A date after the day the receipt is read (`notAfter`) is outside too: with a period it is
 * mended the same way; without one it is only flagged doubtful (which year, nothing says). A date
 * between the last card line and that day is inside: a receipt is often read before its statement
 * is imported. Without either (a company with no card lines yet, a reading with no day) nothing
 * changes.
 */
import { slipsFor } from './learned/digit-confusions';
import type { DigitConfusions } from './learned/digit-confusions';
import confusions from './learned/digit-confusions.json' with { type: 'json' };
import type { DatePeriod, Extracted } from './types';

export type { DatePeriod };

/** What bounds a receipt's date: the company's period and the day it is read (ExtractOptions). */
export interface DateBounds {
  period?: DatePeriod;
  /** The day the receipt is read, one day ahead for time zones (ISO): a purchase is never in the future. */
  notAfter?: string;
}

/** Days either side of the period still inside it. */
export const PERIOD_SLACK_DAYS = 92;
/**
 * Confidence of a date outside the period, mended or not: under the confident mark (doubtful,
 * flagged, its line read again), not so low that whole-page retry readings start (RETRY_BELOW).
 */
export const OUTSIDE_PERIOD_CONFIDENCE = 0.6;

const TABLE = confusions as DigitConfusions;
const DAY_MS = 86_400_000;

function time(iso: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(iso)) return null;
  const t = Date.parse(`${iso}T00:00:00Z`);
  // Date.parse rolls 2019-02-29 over to March: a date that does not exist is none.
  return Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== iso ? null : t;
}

/**
 * Whether `iso` lies in the period widened by `slackDays` ({@link PERIOD_SLACK_DAYS}) and not after
 * `notAfter`; true without a (valid) period and bound. With both, the period reaches up to the day
 * the receipt is read: receipts come in before their statement does (a company that last imported
 * its card lines in June and uploads November's receipts), so a date after the last line and not
 * after today is as plausible as one inside; only one before the first line, or in the future, is
 * out of place.
 */
export function inPeriod(iso: string, { period, notAfter }: DateBounds, slackDays = PERIOD_SLACK_DAYS): boolean {
  const t = time(iso);
  if (t === null) return true;
  const last = notAfter === undefined ? null : time(notAfter);
  if (last !== null && t > last) return false;
  const from = period ? time(period.from) : null;
  const to = period ? time(period.to) : null;
  if (from === null || to === null || to < from) return true;
  // A day to read it on (already checked above) is the upper bound; else the period's end, widened.
  return t >= from - slackDays * DAY_MS && (last !== null || t <= to + slackDays * DAY_MS);
}

/**
 * The date with its year checked against its bounds: unchanged inside them (or without any);
 * outside, the year one learned OCR slip away that falls inside (among those, one inside the
 * lines' own days before one in the slack around them, then the slip seen most often, then the
 * later year), or the date as read, either way at most {@link OUTSIDE_PERIOD_CONFIDENCE}.
 */
export function checkYear(date: Extracted<string>, bounds: DateBounds, table: DigitConfusions = TABLE): Extracted<string> {
  if (inPeriod(date.value, bounds)) return date;
  // A date in the future with no period to say which year it is: doubtful, as read.
  if (!bounds.period) return { value: date.value, confidence: Math.min(date.confidence, OUTSIDE_PERIOD_CONFIDENCE) };
  const year = date.value.slice(0, 4);
  const rest = date.value.slice(4);
  const mended: Array<{ value: string; times: number; inside: boolean }> = [];
  for (const at of [2, 3]) {
    for (const slip of slipsFor(table, year[at]!)) {
      const value = `${year.slice(0, at)}${slip.digit}${year.slice(at + 1)}${rest}`;
      if (time(value) !== null && inPeriod(value, bounds)) mended.push({ value, times: slip.times, inside: inPeriod(value, bounds, 0) });
    }
  }
  // Inside the lines' own days before the slack around them; then the slip seen most often.
  mended.sort((a, b) => Number(b.inside) - Number(a.inside) || b.times - a.times || b.value.localeCompare(a.value));
  const confidence = Math.min(date.confidence, OUTSIDE_PERIOD_CONFIDENCE);
  const best = mended[0];
  return { value: best?.value ?? date.value, confidence };
}
