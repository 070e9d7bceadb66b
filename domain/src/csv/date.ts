/**
 * Date cells to 'YYYY-MM-DD': ISO dates and timestamps, d/m/y or m/d/y with '/', '-' or '.',
 * two-digit years, compact yyyymmdd, and month names (English and the common European
 * abbreviations). Month-first or day-first is decided once for the whole file.
 */
import type { DateOrder } from './types';

const ISO = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:$|[T\s])/;
const COMPACT = /^(\d{4})(\d{2})(\d{2})$/;
const DAY_MONTH_NAME = /^(\d{1,2})(?:st|nd|rd|th)?[-\s/.]*([A-Za-zÀ-ÿ]{3,10})\.?[-\s/.,]*(\d{4}|\d{2})(?:$|[T\s,])/;
const MONTH_NAME_DAY = /^([A-Za-zÀ-ÿ]{3,10})\.?[-\s/.]*(\d{1,2})(?:st|nd|rd|th)?,?[-\s/.]+(\d{4}|\d{2})(?:$|[T\s,])/;

const MONTHS: Record<string, number> = {
  jan: 1, ene: 1, feb: 2, fev: 2, mar: 3, mrt: 3, apr: 4, avr: 4, abr: 4, may: 5, mai: 5, mei: 5,
  jun: 6, jul: 7, aug: 8, aou: 8, ago: 8, sep: 9, set: 9, oct: 10, okt: 10, out: 10, nov: 11,
  dec: 12, dez: 12, dic: 12,
};

function monthFromName(name: string): number | undefined {
  const n = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
  if (n.startsWith('juin')) return 6;
  if (n.startsWith('juil')) return 7;
  return MONTHS[n.slice(0, 3)];
}

function fullYear(y: string): number {
  const n = Number(y);
  if (y.length === 4) return n;
  return n < 70 ? 2000 + n : 1900 + n;
}

export function formatDate(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12 || day < 1 || year < 1900 || year > 2199) return null;
  const days = [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  if (day > days) return null;
  return `${year}-${month < 10 ? '0' : ''}${month}-${day < 10 ? '0' : ''}${day}`;
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

interface NumericDate {
  a: number;
  b: number;
  year: number;
  sep: number;
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * 'a/b/yyyy' (or '-', '.'; two-digit years) without a regular expression: this runs on
 * every date cell of the file, twice.
 */
function numericDate(s: string): NumericDate | null {
  let i = 0;
  let a = 0;
  while (i < 2 && isDigit(s.charCodeAt(i))) a = a * 10 + s.charCodeAt(i++) - 48;
  if (i === 0) return null;
  const sep = s.charCodeAt(i);
  if (sep !== 47 && sep !== 45 && sep !== 46) return null;
  const bStart = ++i;
  let b = 0;
  while (i < bStart + 2 && isDigit(s.charCodeAt(i))) b = b * 10 + s.charCodeAt(i++) - 48;
  if (i === bStart || s.charCodeAt(i) !== sep) return null;
  const yStart = ++i;
  let year = 0;
  while (i < yStart + 4 && isDigit(s.charCodeAt(i))) year = year * 10 + s.charCodeAt(i++) - 48;
  const digits = i - yStart;
  if (digits !== 2 && digits !== 4) return null;
  if (i < s.length) {
    const c = s.charCodeAt(i);
    if (c !== 32 && c !== 84 && c !== 44 && c !== 9) return null;
  }
  if (digits === 2) year = year < 70 ? 2000 + year : 1900 + year;
  return { a, b, year, sep };
}

/** Parses one date cell; `order` settles numeric dates such as 03/04/2024. */
export function parseDate(raw: string, order: DateOrder): string | null {
  let s = raw.trim();
  if (s.startsWith('="') && s.endsWith('"')) s = s.slice(2, -1).trim();
  const n = numericDate(s);
  if (n) return order === 'dmy' ? formatDate(n.year, n.b, n.a) : formatDate(n.year, n.a, n.b);
  let m = ISO.exec(s);
  if (m) return formatDate(Number(m[1]), Number(m[2]), Number(m[3]));
  m = COMPACT.exec(s);
  if (m) return formatDate(Number(m[1]), Number(m[2]), Number(m[3]));
  m = DAY_MONTH_NAME.exec(s);
  if (m) {
    const month = monthFromName(m[2] ?? '');
    return month ? formatDate(fullYear(m[3] ?? ''), month, Number(m[1])) : null;
  }
  m = MONTH_NAME_DAY.exec(s);
  if (m) {
    const month = monthFromName(m[1] ?? '');
    return month ? formatDate(fullYear(m[3] ?? ''), month, Number(m[2])) : null;
  }
  return null;
}

export interface DateOrderEvidence {
  /** Cells that only make sense day-first (first number above 12). */
  dayFirst: number;
  /** Cells that only make sense month-first (second number above 12). */
  monthFirst: number;
  /** Numeric cells written with dots (dd.mm.yyyy is a European habit). */
  dotted: number;
}

export function dateOrderEvidence(values: Iterable<string>): DateOrderEvidence {
  const evidence: DateOrderEvidence = { dayFirst: 0, monthFirst: 0, dotted: 0 };
  for (const raw of values) {
    const m = numericDate(raw.trim());
    if (!m) continue;
    const { a, b } = m;
    if (m.sep === 46) evidence.dotted++;
    if (a > 12 && b <= 12) evidence.dayFirst++;
    else if (b > 12 && a <= 12) evidence.monthFirst++;
  }
  return evidence;
}

/**
 * The whole file decides: dates that can only be read one way win (the majority, if a
 * file contradicts itself; the other lines then fail as bad dates). An ambiguous file
 * falls back to the given convention.
 */
export function decideDateOrder(evidence: DateOrderEvidence, fallback: DateOrder): DateOrder {
  if (evidence.dayFirst > evidence.monthFirst) return 'dmy';
  if (evidence.monthFirst > evidence.dayFirst) return 'mdy';
  return fallback;
}
