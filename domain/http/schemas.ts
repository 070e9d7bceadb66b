import { z } from 'zod';

const DATE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` naming a day that exists (no 2024-02-30, month 13 or day 00); years 0100-9999. */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = DATE_SHAPE.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === value;
}

/**
 * A calendar date in a query or body: the shape first (`Dates look like YYYY-MM-DD`), then the
 * day itself, so that `2024-02-30` is a 400 that names the field instead of an empty list.
 */
export const calendarDate = z
  .string()
  .regex(DATE_SHAPE, { error: 'Dates look like YYYY-MM-DD', abort: true })
  .refine(isCalendarDate, { error: (issue) => `${String(issue.input)} is not a date on the calendar` })
  .meta({ format: 'date' });
