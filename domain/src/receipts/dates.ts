/**
 * The purchase date. Receipts print it in many shapes (19/10/2018, 18-11-18, 12 MAR 2018,
 * 2018-03-23, 20180428, Mar 12, 2018), often more than once (sale time, print time) and next to
 * other dates (expiry, due date). Candidates are scored by shape, by a DATE label nearby and by
 * a time of day beside them. Numeric dates read day first unless the receipt proves otherwise.
 */
import { clamp01, labelForm } from './ocr-text';
import type { ReceiptLine } from './ocr-text';
import type { ExtractOptions, Extracted } from './types';

interface DateCandidate {
  iso: string;
  score: number;
  line: number;
  /** Both numbers ≤ 12: the reading depends on the day/month order. */
  ambiguous: boolean;
}

interface NumericDate {
  a: number;
  b: number;
  year: number;
  line: number;
  yearFixed: boolean;
  shortYear: boolean;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
/** Month names, whole or cut to three letters, and nothing longer (MAYBANK, MARLBORO are not dates). */
const MONTH = String.raw`(JAN(?:UARY)?|FEB(?:RUARY)?|MAR(?:CH)?|APR(?:IL)?|MAY|JUNE?|JULY?|AUG(?:UST)?|SEP(?:T(?:EMBER)?)?|OCT(?:OBER)?|NOV(?:EMBER)?|DEC(?:EMBER)?)(?![A-Z])\.?`;
const SEP = String.raw`\s?[-/.]\s?`;

const ISO = /(?<!\d)((?:19|20)\d\d)[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)/g;
/** A date followed by another separator and digits ("REG #19- 10/03/2018") is not a date ending there. */
const NUMERIC = new RegExp(String.raw`(?<![\d.,])(\d{1,2})${SEP}(\d{1,2})${SEP}(\d{4}|\d{2})(?![\d/-]|[.,]\d)`, 'g');
const DAY_MONTH_NAME = new RegExp(String.raw`(?<!\d)(\d{1,2})(?:ST|ND|RD|TH)?[\s\-/.,]*${MONTH}[\s\-/.,']*(\d{4}|\d{2})(?!\d)`, 'g');
const MONTH_NAME_DAY = new RegExp(String.raw`(?<![A-Z])${MONTH}\s?(\d{1,2})(?:ST|ND|RD|TH)?,?\s?(\d{4})(?!\d)`, 'g');
/** "2703/2018", "27/032018": one separator of a DD/MM/YYYY date lost to OCR (trusted only beside a DATE label). */
const LOST_SEPARATOR = /(?<![\d/.-])(?:(\d{2})(\d{2})[-/.](\d{4})|(\d{2})[-/.](\d{2})(\d{4}))(?![\d/.-])/g;
const COMPACT = /(?<![\d/-])(20\d\d)(\d\d)(\d\d)(?![\d-]|\/\d{1,2}\/)/g;

const DATE_LABEL = /\b(DATE|DATED|TARIKH|DT|TXN DATE|BIZDATE|DATUM|FECHA)\b/;
const TIME = /\b\d{1,2}:\d{2}(?::\d{2})?\b|\b\d{1,2}\.\d{2}\s?[AP]M\b/;
const OTHER_DATE_LABEL = /\b(EXP|EXPIRY|EXPIRES|VALID|BEST BEFORE|DUE|BIRTH|DOB|UNTIL)\b/;

/**
 * A line where a date was printed, whether or not one could be read from it: a DATE label, or
 * three groups of digits parted like a date (`05-05-7015`, a year no reading can take).
 */
export function mayHoldDate(text: string): boolean {
  const upper = text.toUpperCase();
  return DATE_LABEL.test(labelForm(upper)) || /(?<!\d)\d{1,4}\s?[-/.]\s?\d{1,2}\s?[-/.]\s?\d{2,4}(?!\d)/.test(upper);
}

/** Finds the purchase date; day first for ambiguous numeric dates unless told or shown otherwise. */
export function extractDate(lines: readonly ReceiptLine[], options: ExtractOptions = {}): Extracted<string> | null {
  const normalised = lines.map((l) => ({ ...l, text: dateDigitsForm(l.text.toUpperCase()) }));
  const numeric = normalised.flatMap(numericDates);
  const monthFirst = options.monthFirst ?? numeric.some((d) => provesMonthFirst(d) && looksLikeDateLine(lines[d.line]!));
  const candidates: DateCandidate[] = [
    ...numeric.flatMap((d) => readNumeric(d, monthFirst)),
    ...normalised.flatMap(namedDates),
    ...normalised.flatMap((l) => lostSeparatorDates(l, monthFirst)),
  ];
  if (candidates.length === 0) return null;
  for (const c of candidates) c.score += contextScore(lines[c.line]!, lines[c.line - 1]);
  return pickDate(candidates);
}

/**
 * Date text as OCR should have read it (upper case expected): letters for digits fixed only
 * between digits and date separators (2O18, l2/05), and a time glued to the year split off
 * ("23/03/20189:34" -> "23/03/2018 9:34").
 */
export function dateDigitsForm(text: string): string {
  return text.replace(/(?<=[\d/.-])[OQD](?=[\d/.-])/g, '0').replace(/(?<=[\d/.-])[IL|](?=[\d/.-])/g, '1')
    .replace(/(?<=\d{1,2}[-/.]\d{1,2}[-/.](?:19|20)\d\d)(?=\d{1,2}[:.]\d\d)/g, ' ');
}

function numericDates(line: ReceiptLine): NumericDate[] {
  const out: NumericDate[] = [];
  for (const m of line.text.matchAll(NUMERIC)) {
    const year = fixYear(m[3]!);
    if (year) out.push({ a: Number(m[1]), b: Number(m[2]), ...year, line: line.index, shortYear: m[3]!.length === 2 });
  }
  return out;
}

/** 12/28/2017 reads only month first: the receipt (or its printer) writes dates the US way. */
function provesMonthFirst(d: NumericDate): boolean {
  return d.a >= 1 && d.a <= 12 && d.b > 12 && d.b <= 31;
}

/** A stray code such as "PT 3/16/20" must not flip every date: the proof needs a DATE label or a time. */
function looksLikeDateLine(line: ReceiptLine): boolean {
  return DATE_LABEL.test(line.label) || TIME.test(line.text);
}

function readNumeric(d: NumericDate, monthFirst: boolean): DateCandidate[] {
  const ambiguous = d.a <= 12 && d.b <= 12;
  const [day, month] = d.a <= 12 && (monthFirst || d.b > 12) ? [d.b, d.a] : [d.a, d.b];
  const iso = isoDate(d.year, month, day);
  if (!iso) return [];
  const score = 3 - (d.shortYear ? 0.5 : 0) - (d.yearFixed ? 1.5 : 0) - (ambiguous ? 0.3 : 0);
  return [{ iso, score, line: d.line, ambiguous }];
}

/**
 * A date whose separator OCR dropped, on a line labelled DATE: read like a numeric date but
 * scored below every intact one, so a clean reading of the same date elsewhere wins.
 */
function lostSeparatorDates(line: ReceiptLine, monthFirst: boolean): DateCandidate[] {
  if (!DATE_LABEL.test(labelForm(line.text))) return [];
  const out: DateCandidate[] = [];
  for (const m of line.text.matchAll(LOST_SEPARATOR)) {
    const [a, b, y] = m[1] ? [m[1], m[2]!, m[3]!] : [m[4]!, m[5]!, m[6]!];
    const year = fixYear(y);
    if (!year) continue;
    for (const c of readNumeric({ a: Number(a), b: Number(b), ...year, line: line.index, shortYear: false }, monthFirst)) {
      out.push({ ...c, score: c.score - 1 });
    }
  }
  return out;
}

function namedDates(line: ReceiptLine): DateCandidate[] {
  const out: DateCandidate[] = [];
  const add = (year: string, month: string, day: string, score: number): void => {
    const y = fixYear(year);
    const iso = y && isoDate(y.year, MONTHS.indexOf(month.slice(0, 3)) + 1, Number(day));
    if (y && iso) out.push({ iso, score: score - (y.yearFixed ? 1.5 : 0), line: line.index, ambiguous: false });
  };
  for (const m of line.text.matchAll(ISO)) {
    const iso = isoDate(Number(m[1]), Number(m[2]), Number(m[3]));
    if (iso) out.push({ iso, score: 3.2, line: line.index, ambiguous: false });
  }
  for (const m of line.text.matchAll(DAY_MONTH_NAME)) add(m[3]!, m[2]!, m[1]!, 3.4);
  for (const m of line.text.matchAll(MONTH_NAME_DAY)) add(m[3]!, m[1]!, m[2]!, 3.2);
  for (const m of line.text.matchAll(COMPACT)) {
    const iso = isoDate(Number(m[1]), Number(m[2]), Number(m[3]));
    if (iso) out.push({ iso, score: 1.5, line: line.index, ambiguous: false });
  }
  return out;
}

/**
 * Two-digit years are 20YY. A four-digit year outside 1990-2099 whose second digit was misread
 * (2618 for 2018) is repaired, at a cost in score.
 */
function fixYear(raw: string): { year: number; yearFixed: boolean } | null {
  if (raw.length === 2) return { year: 2000 + Number(raw), yearFixed: false };
  const year = Number(raw);
  if (year >= 1990 && year <= 2099) return { year, yearFixed: false };
  if (raw.startsWith('2')) return { year: Number(`20${raw.slice(2)}`), yearFixed: true };
  return null;
}

function isoDate(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCMonth() !== month - 1) return null;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** A DATE label on the line (or the line above) and a time beside it mark the purchase date. */
function contextScore(line: ReceiptLine, previous: ReceiptLine | undefined): number {
  let score = 0;
  if (DATE_LABEL.test(line.label)) score += 2;
  else if (previous && DATE_LABEL.test(previous.label) && !/\d/.test(previous.text)) score += 1.5;
  if (TIME.test(line.text.replace(/\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}/g, ''))) score += 1;
  // "EXP 09/27", "VALID UNTIL …", "DUE DATE …" are other dates, unless the line also names the date.
  if (OTHER_DATE_LABEL.test(line.label) && !DATE_LABEL.test(line.label.replace(/\bDUE DATE\b/, ''))) score -= 3;
  return score;
}

/** Highest score wins; a date printed several times gains from each repeat. */
function pickDate(candidates: DateCandidate[]): Extracted<string> {
  const byIso = new Map<string, { best: DateCandidate; count: number }>();
  for (const c of candidates) {
    const seen = byIso.get(c.iso);
    if (!seen) byIso.set(c.iso, { best: c, count: 1 });
    else byIso.set(c.iso, { best: c.score > seen.best.score ? c : seen.best, count: seen.count + 1 });
  }
  const ranked = [...byIso.values()]
    .map(({ best, count }) => ({ best, total: best.score + 0.5 * (count - 1) }))
    .sort((x, y) => y.total - x.total || x.best.line - y.best.line);
  const top = ranked[0]!;
  const margin = ranked[1] ? top.total - ranked[1].total : 3;
  const confidence = clamp01(0.45 + 0.08 * top.total + 0.06 * Math.min(margin, 3)) * (top.best.ambiguous ? 0.85 : 1);
  return { value: top.best.iso, confidence: Math.round(confidence * 100) / 100 };
}
