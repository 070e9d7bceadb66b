/**
 * Candidates for each field of a receipt, each with the features a person would look at:
 *
 * - total: every positive amount; the label on its line and the line above (TOTAL, SUBTOTAL,
 *   CASH, CHANGE, ROUNDING, TAX, DISCOUNT, … with OCR-typo tolerance), what follows it,
 *   position and font height, whether subtotal + tax/charges/rounding − discounts or
 *   cash − change add up to it, whether it is the largest amount after the first total label,
 *   how often it is printed;
 * - date: every date (numeric, ISO, compact, month names); a DATE label or a time beside it,
 *   an expiry/due label, position, shape, how often it is printed; numeric dates are read day
 *   or month first per receipt from evidence (see `dateOrder`);
 * - merchant: each of the top lines, alone and joined with the next; legal suffixes, business
 *   words, address/contact/document words, case, digits, junk, size, centring, being above the
 *   address.
 *
 * Every candidate also carries `rule`: whether the rule-based extractor chose the same value,
 * so the model learns how far to trust the rules next to the other evidence.
 */
import { findAmounts, withoutAmounts } from '../amounts';
import { dateDigitsForm } from '../dates';
import { cleanName } from '../merchant';
import { merchantSimilarity } from '../merchant-similarity';
import { classifyLabel, totalsWithoutAmount } from '../money-lines';
import type { LabelKind } from '../money-lines';
import { labelForm, labelWords } from '../ocr-text';
import type { ReceiptFields } from '../types';
import type { Layout, LayoutLine } from './layout';

export type Features = Record<string, number>;

export interface Candidate<T> {
  value: T;
  /**
   * Index of the layout line it was read from (the first line for joined merchant lines);
   * -1 for the rules' answer when no candidate here has its value.
   */
  line: number;
  features: Features;
}

export interface Candidates {
  total: Array<Candidate<number>>;
  date: Array<Candidate<string>>;
  merchant: Array<Candidate<string>>;
  /** The rules' own confidence in their answer per field (0 without one), for calibration. */
  ruleConfidence: { total: number; date: number; merchant: number };
}

export type DateOrder = 'day-first' | 'month-first';

interface Page {
  lines: readonly LayoutLine[];
  top: number;
  bottom: number;
  left: number;
  right: number;
  medianHeight: number;
  geometry: boolean;
}

function page(layout: Layout): Page {
  const ls = layout.lines;
  const heights = ls.map((l) => l.y1 - l.y0).sort((a, b) => a - b);
  return {
    lines: ls,
    top: Math.min(...ls.map((l) => l.y0)),
    bottom: Math.max(...ls.map((l) => l.y1)),
    left: Math.min(...ls.map((l) => l.x0)),
    right: Math.max(...ls.map((l) => l.x1)),
    medianHeight: Math.max(1, heights[heights.length >> 1] ?? 1),
    geometry: layout.geometry,
  };
}

function relY(p: Page, l: LayoutLine): number {
  return p.bottom > p.top ? ((l.y0 + l.y1) / 2 - p.top) / (p.bottom - p.top) : 0;
}

function relHeight(p: Page, l: LayoutLine): number {
  return p.geometry ? Math.log2(Math.max(0.25, (l.y1 - l.y0) / p.medianHeight)) : 0;
}

export function buildCandidates(layout: Layout, rules: ReceiptFields | null, options: { monthFirst?: boolean; locale?: string } = {}): Candidates {
  const ruleConfidence = { total: rules?.total?.confidence ?? 0, date: rules?.date?.confidence ?? 0, merchant: rules?.merchant?.confidence ?? 0 };
  if (layout.lines.length === 0) return { total: [], date: [], merchant: [], ruleConfidence };
  const p = page(layout);
  const out: Candidates = {
    total: totalCandidates(p, rules?.total?.cents ?? null),
    date: dateCandidates(p, rules?.date?.value ?? null, options),
    merchant: merchantCandidates(p, rules?.merchant?.value ?? null),
    ruleConfidence,
  };
  // How sure the rules are, on their own pick: the ranker learns when to overrule them.
  for (const [field, list] of [['total', out.total], ['date', out.date], ['merchant', out.merchant]] as const) {
    for (const c of list as ReadonlyArray<Candidate<unknown>>) c.features.ruleSure = c.features.rule === 1 ? ruleConfidence[field] : 0;
  }
  // The rules read shapes the candidates here do not (an owner line at the bottom, a date
  // with a lost separator, an amount split across words): their answer always competes.
  const ruleOnly = (features: Features, sure: number): Features => ({ ...Object.fromEntries(Object.keys(features).map((k) => [k, 0])), rule: 1, ruleOnly: 1, ruleSure: sure });
  const template = (list: ReadonlyArray<Candidate<unknown>>): Features => list[0]?.features ?? { rule: 0 };
  if (rules?.total && rules.total.cents > 0 && !out.total.some((c) => c.features.rule === 1)) {
    out.total.push({ value: rules.total.cents, line: -1, features: ruleOnly(template(out.total), ruleConfidence.total) });
  }
  if (rules?.date && !out.date.some((c) => c.features.rule === 1)) {
    out.date.push({ value: rules.date.value, line: -1, features: ruleOnly(template(out.date), ruleConfidence.date) });
  }
  if (rules?.merchant && !out.merchant.some((c) => c.features.rule === 1)) {
    out.merchant.push({ value: rules.merchant.value, line: -1, features: ruleOnly(template(out.merchant), ruleConfidence.merchant) });
  }
  return out;
}

// ---------------------------------------------------------------- total

const KINDS: readonly LabelKind[] = ['final', 'total', 'subtotal', 'excluding', 'payment', 'change', 'rounding', 'tax', 'charge', 'discount', 'count'];

interface Money {
  line: number;
  cents: number;
  last: boolean;
  currency: boolean;
  repaired: boolean;
  onLine: number;
}

function totalCandidates(p: Page, ruleCents: number | null): Array<Candidate<number>> {
  const kinds: LabelKind[] = [];
  const money: Money[] = [];
  p.lines.forEach((l, i) => {
    const amounts = findAmounts(l.text);
    const label = labelForm(withoutAmounts(l.text, amounts));
    kinds.push(classifyLabel(labelWords(label)));
    amounts.forEach((a, k) => money.push({ line: i, cents: a.cents, last: k === amounts.length - 1, currency: a.currency, repaired: a.repaired, onLine: amounts.length }));
  });
  // A label printed on the line above its amount ("TOTAL" / "26.60").
  const labelOf = (i: number): LabelKind => {
    const own = kinds[i]!;
    if (own !== 'none' || i === 0) return own;
    return money.some((m) => m.line === i - 1) ? 'none' : kinds[i - 1]!;
  };
  const kindAt = p.lines.map((_, i) => labelOf(i));
  const positive = money.filter((m) => m.cents > 0);
  const maxCents = Math.max(0, ...positive.map((m) => m.cents));
  const firstTotalLine = kindAt.findIndex((k) => k === 'final' || k === 'total' || k === 'subtotal');
  const maxAfter = firstTotalLine < 0 ? maxCents
    : Math.max(0, ...positive.filter((m) => m.line >= firstTotalLine).map((m) => m.cents));
  const of = (ks: readonly LabelKind[]): number[] => positive.filter((m) => ks.includes(kindAt[m.line]!)).map((m) => m.cents);
  const bases = of(['subtotal', 'excluding', 'total']);
  const adds = [...of(['tax', 'charge', 'rounding']), ...money.filter((m) => m.cents < 0 && kindAt[m.line] === 'rounding').map((m) => m.cents)];
  const discounts = money.filter((m) => kindAt[m.line] === 'discount').map((m) => -Math.abs(m.cents));
  const adjustments = [...adds, ...discounts];
  const payments = of(['payment']);
  const changes = of(['change']);
  const distinct = [...new Set(positive.map((m) => m.cents))].sort((a, b) => b - a);
  const near = (a: number, b: number): boolean => Math.abs(a - b) <= 1;
  const adjTotal = adjustments.reduce((s, x) => s + x, 0);
  // A total label whose amount OCR lost ("NET TOTAL" with nothing readable beside or under it).
  const lostTotal = totalsWithoutAmount(kinds, p.lines.map((_, i) => money.filter((m) => m.line === i).length)).length > 0;
  const subtotals = of(['subtotal']);
  const noDiscount = discounts.length === 0;

  const printed: Array<Candidate<number>> = positive.map((m) => {
    const l = p.lines[m.line]!;
    const kind = kindAt[m.line]!;
    const next = m.line + 1 < p.lines.length ? kindAt[m.line + 1]! : 'none';
    const count = positive.filter((o) => o.cents === m.cents).length;
    const sums = adjustments.length > 0 && bases.some((b) => b !== m.cents && (near(b + adjTotal, m.cents) || adjustments.some((x) => near(b + x, m.cents))));
    const cashChange = payments.some((c) => changes.some((ch) => near(c - ch, m.cents)));
    const largerFinalBelow = positive.some((o) => o.line > m.line && o.cents > m.cents && (kindAt[o.line] === 'final' || kindAt[o.line] === 'total'));
    const f: Features = {
      relY: relY(p, l),
      height: relHeight(p, l),
      last: m.last ? 1 : 0,
      multiOnLine: m.onLine > 1 ? 1 : 0,
      currency: m.currency ? 1 : 0,
      repaired: m.repaired ? 1 : 0,
      fiveSen: m.cents % 5 === 0 ? 1 : 0,
      logValue: Math.log10(m.cents / 100 + 1),
      isMax: m.cents === maxCents ? 1 : 0,
      isMaxAfterTotalLabel: m.cents === maxAfter ? 1 : 0,
      rank: distinct.indexOf(m.cents) / Math.max(1, distinct.length),
      repeats: Math.log2(count),
      sumsUp: sums ? 1 : 0,
      cashMinusChange: cashChange ? 1 : 0,
      // A card or wallet is charged the final amount (tip included); cash is usually more.
      paidExactly: payments.includes(m.cents) && changes.every((c) => c === 0) ? 1 : 0,
      largerTotalBelow: largerFinalBelow ? 1 : 0,
      // A total smaller than an item above it does not add up: a digit was probably lost.
      largerItemAbove: positive.some((o) => o.line < m.line && o.cents > m.cents && kindAt[o.line] === 'none') ? 1 : 0,
      percentOnLine: l.text.includes('%') ? 1 : 0,
      // OCR's doubt about the line (0 for annotated or plain text): misread digits come with it.
      ocrDoubt: 1 - (l.ocrMin ?? 1),
      paidExactlyTotalLost: lostTotal && payments.includes(m.cents) && changes.every((c) => c === 0) ? 1 : 0,
      // A total below its subtotal with no discount does not add up: a digit was probably lost.
      belowSubtotal: noDiscount && (kind === 'final' || kind === 'total') && subtotals.some((x) => x > m.cents) ? 1 : 0,
      aboveSmallerTotal: noDiscount && kind === 'subtotal' && positive.some((o) => o.line > m.line && o.cents < m.cents && (kindAt[o.line] === 'final' || kindAt[o.line] === 'total')) ? 1 : 0,
      rule: ruleCents !== null && m.cents === ruleCents ? 1 : 0,
    };
    for (const k of KINDS) {
      f[`on_${k}`] = kind === k ? 1 : 0;
      f[`next_${k}`] = next === k ? 1 : 0;
    }
    return { value: m.cents, line: m.line, features: f };
  });
  return [...printed, ...derivedTotals(printed, { kindAt, positive, money, bases, adjTotal, payments, changes, maxCents, ruleCents, lostTotal })];
}

/**
 * Totals the receipt's own arithmetic gives when OCR garbled the printed one: cash tendered
 * minus change, subtotal plus tax, charges and rounding less discounts, and a total rounded to
 * 5 cents under a rounding line whose result was lost. Only values printed nowhere else; each
 * is marked `derived` with the receipt's evidence that the printed total is missing or odd.
 */
function derivedTotals(printed: ReadonlyArray<Candidate<number>>, r: {
  kindAt: readonly LabelKind[]; positive: readonly Money[]; money: readonly Money[]; bases: readonly number[]; adjTotal: number;
  payments: readonly number[]; changes: readonly number[]; maxCents: number; ruleCents: number | null; lostTotal: boolean;
}): Array<Candidate<number>> {
  const seen = new Set(printed.map((c) => c.value));
  const finals = r.positive.filter((m) => r.kindAt[m.line] === 'final' || r.kindAt[m.line] === 'total');
  const rounding = r.kindAt.includes('rounding');
  const ways = new Map<number, { cash: boolean; sum: boolean; rounded: boolean }>();
  const add = (cents: number, way: 'cash' | 'sum' | 'rounded'): void => {
    if (cents <= 0 || seen.has(cents)) return;
    const w = ways.get(cents) ?? { cash: false, sum: false, rounded: false };
    w[way] = true;
    ways.set(cents, w);
  };
  for (const pay of r.payments) for (const ch of r.changes) if (ch > 0) add(pay - ch, 'cash');
  if (r.adjTotal !== 0) for (const b of r.bases) add(b + r.adjTotal, 'sum');
  if (rounding) for (const m of finals) if (m.cents % 5 !== 0) add(Math.round(m.cents / 5) * 5, 'rounded');
  const template = printed[0]?.features ?? {};
  return [...ways].map(([cents, w]) => {
    const f: Features = Object.fromEntries(Object.keys(template).map((k) => [k, 0]));
    Object.assign(f, {
      derived: 1,
      derivedCash: w.cash ? 1 : 0,
      derivedSum: w.sum ? 1 : 0,
      derivedRounded: w.rounded ? 1 : 0,
      derivedTwice: (w.cash ? 1 : 0) + (w.sum ? 1 : 0) + (w.rounded ? 1 : 0) > 1 ? 1 : 0,
      // Evidence that the printed total was lost: no amount under a total label at all.
      noPrintedTotal: finals.length === 0 ? 1 : 0,
      totalLost: r.lostTotal ? 1 : 0,
      fiveSen: cents % 5 === 0 ? 1 : 0,
      logValue: Math.log10(cents / 100 + 1),
      isMax: cents > r.maxCents ? 1 : 0,
      sumsUp: w.sum ? 1 : 0,
      cashMinusChange: w.cash ? 1 : 0,
      rule: r.ruleCents === cents ? 1 : 0,
    });
    return { value: cents, line: -1, features: f };
  });
}

// ---------------------------------------------------------------- date

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const MONTH = String.raw`(JAN(?:UARY)?|FEB(?:RUARY)?|MAR(?:CH)?|APR(?:IL)?|MAY|JUNE?|JULY?|AUG(?:UST)?|SEP(?:T(?:EMBER)?)?|OCT(?:OBER)?|NOV(?:EMBER)?|DEC(?:EMBER)?)(?![A-Z])\.?`;
const SEP = String.raw`\s?[-/.]\s?`;
const ISO = /(?<!\d)((?:19|20)\d\d)[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)/g;
const NUMERIC = new RegExp(String.raw`(?<![\d.,])(\d{1,2})${SEP}(\d{1,2})${SEP}(\d{4}|\d{2})(?![\d/-]|[.,]\d)`, 'g');
const DAY_NAME = new RegExp(String.raw`(?<!\d)(\d{1,2})(?:ST|ND|RD|TH)?[\s\-/.,]*${MONTH}[\s\-/.,']*(\d{4}|\d{2})(?!\d)`, 'g');
const NAME_DAY = new RegExp(String.raw`(?<![A-Z])${MONTH}\s?(\d{1,2})(?:ST|ND|RD|TH)?,?\s?(\d{4})(?!\d)`, 'g');
const COMPACT = /(?<![\d/-])(20\d\d)(\d\d)(\d\d)(?![\d-])/g;
/** "2512/2018", "25/122018": one separator of DD/MM/YYYY lost to OCR. */
const LOST_SEPARATOR = /(?<![\d/.-])(?:(\d{2})(\d{2})[-/.]((?:19|20)\d\d)|(\d{2})[-/.](\d{2})((?:19|20)\d\d))(?![\d/.-])/g;
const DATE_LABEL = /\b(DATE|DATED|TARIKH|DT|BIZDATE|DATUM|FECHA|TRX|TXN)\b/;
const TIME = /\b\d{1,2}:\d{2}(?::\d{2})?\b|\b\d{1,2}\.\d{2}\s?[AP]M\b/;
const OTHER_DATE = /\b(EXP|EXPIRY|EXPIRES|VALID|BEFORE|DUE|BIRTH|DOB|UNTIL|PRINTED|PRINT)\b/;

interface RawDate {
  line: number;
  shape: 'numeric' | 'iso' | 'named' | 'compact' | 'lost';
  /** numeric: first and second number as printed; others: month and day already known. */
  a: number;
  b: number;
  year: number;
  shortYear: boolean;
  /** A digit was changed to make it a possible date (see `repairNumeric`). */
  repaired?: boolean;
}

/** OCR letters for digits between date separators (2O18, l2/05) and a time glued to the year (dates.ts). */
function digitsForm(text: string): string {
  return dateDigitsForm(text.toUpperCase());
}

/**
 * A numeric date tesseract misread by one digit that makes it impossible: a year 2X18 (X not
 * 0) or a month 8X read for 0X ("17/83/2817" for 17/03/2017). Repaired readings are marked.
 */
function repairNumeric(a: number, b: number, year: string): { a: number; b: number; year: number; repaired: boolean } {
  let repaired = false;
  let y = Number(year);
  if (year.length === 4 && (y < 1990 || y > 2099) && year.startsWith('2')) {
    y = Number(`20${year.slice(2)}`);
    repaired = true;
  }
  const fix = (n: number): number => (n >= 80 && n <= 89 ? n - 80 : n);
  let [x, z] = [a, b];
  if (x > 31 && fix(x) >= 1) { x = fix(x); repaired = true; }
  if (z > 31 && fix(z) >= 1) { z = fix(z); repaired = true; }
  return { a: x, b: z, year: year.length === 2 ? 2000 + y : y, repaired };
}

function rawDates(lines: readonly LayoutLine[]): RawDate[] {
  const out: RawDate[] = [];
  lines.forEach((l, line) => {
    const t = digitsForm(l.text);
    const used: Array<[number, number]> = [];
    const take = (m: RegExpMatchArray): boolean => {
      const s = m.index ?? 0;
      const e = s + m[0].length;
      if (used.some(([a, b]) => s < b && e > a)) return false;
      used.push([s, e]);
      return true;
    };
    for (const m of t.matchAll(ISO)) if (take(m)) out.push({ line, shape: 'iso', a: Number(m[2]), b: Number(m[3]), year: Number(m[1]), shortYear: false });
    for (const m of t.matchAll(DAY_NAME)) if (take(m)) out.push({ line, shape: 'named', a: monthOf(m[2]!), b: Number(m[1]), year: fullYear(m[3]!), shortYear: m[3]!.length === 2 });
    for (const m of t.matchAll(NAME_DAY)) if (take(m)) out.push({ line, shape: 'named', a: monthOf(m[1]!), b: Number(m[2]), year: Number(m[3]), shortYear: false });
    for (const m of overlapping(NUMERIC, t)) {
      const { a, b, year, repaired } = repairNumeric(Number(m[1]), Number(m[2]), m[3]!);
      // "REG #19- 18/01/2018" also reads as 19-18-01: only a possible day and month count.
      if (a < 1 || b < 1 || a > 31 || b > 31 || (a > 12 && b > 12)) continue;
      if (take(m)) out.push({ line, shape: 'numeric', a, b, year, shortYear: m[3]!.length === 2, ...(repaired ? { repaired } : {}) });
    }
    // A lost separator is believed only beside a DATE label ("REF 1203/2018" is a reference).
    if (DATE_LABEL.test(labelForm(l.text))) for (const m of t.matchAll(LOST_SEPARATOR)) {
      if (take(m)) out.push({ line, shape: 'lost', a: Number(m[1] ?? m[4]), b: Number(m[2] ?? m[5]), year: Number(m[3] ?? m[6]), shortYear: false });
    }
    for (const m of t.matchAll(COMPACT)) if (take(m)) out.push({ line, shape: 'compact', a: Number(m[2]), b: Number(m[3]), year: Number(m[1]), shortYear: false });
  });
  return out;
}

/** Every match, overlapping ones too (a regex scan skips past a false start). */
function overlapping(re: RegExp, text: string): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  const r = new RegExp(re.source, 'g');
  for (let m = r.exec(text); m; m = r.exec(text)) {
    out.push(m);
    r.lastIndex = m.index + 1;
  }
  return out;
}

function monthOf(name: string): number {
  return MONTHS.indexOf(name.slice(0, 3)) + 1;
}

function fullYear(y: string): number {
  return y.length === 2 ? 2000 + Number(y) : Number(y);
}

function isoOf(year: number, month: number, day: number): string | null {
  if (year < 1990 || year > 2099 || month < 1 || month > 12 || day < 1) return null;
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCMonth() !== month - 1) return null;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * Day or month first for this receipt's numeric dates, from evidence on the receipt: a numeric
 * date whose first number is above 12 proves day first, one whose second number is above 12
 * proves month first. Without (or with contradicting) evidence the caller's hint decides
 * (the company's locale or the merchant's earlier receipts), else day first.
 */
export function dateOrder(lines: readonly LayoutLine[], hint?: DateOrder): DateOrder {
  return ownDateOrder(lines) ?? hint ?? 'day-first';
}

/** The order the receipt's own numeric dates prove (see `dateOrder`), or undefined when they prove none or contradict. */
export function ownDateOrder(lines: readonly LayoutLine[]): DateOrder | undefined {
  // Only dates that read as dates count as evidence: a four-digit year, a DATE label or a time
  // beside them ("PART NO 3/16/20" proves nothing).
  // A date that needed a digit repaired proves nothing either.
  const numeric = rawDates(lines).filter((d) => d.shape === 'numeric' && d.year >= 1990 && !d.repaired
    && (!d.shortYear || DATE_LABEL.test(labelForm(lines[d.line]!.text)) || TIME.test(digitsForm(lines[d.line]!.text))));
  const dayFirst = numeric.some((d) => d.a > 12 && d.a <= 31 && d.b >= 1 && d.b <= 12);
  const monthFirst = numeric.some((d) => d.b > 12 && d.b <= 31 && d.a >= 1 && d.a <= 12);
  if (dayFirst !== monthFirst) return dayFirst ? 'day-first' : 'month-first';
  return undefined;
}

/** Regions that print numeric dates month first. */
const MONTH_FIRST_REGIONS = new Set(['US', 'PH', 'CA', 'FM', 'MH', 'PW', 'GU', 'AS', 'PR', 'UM', 'VI', 'MP', 'BZ']);

/** The hint a company gives: `monthFirst` if set, else its locale's region, else none. */
export function dateOrderHint(options: { monthFirst?: boolean; locale?: string }): DateOrder | undefined {
  if (options.monthFirst !== undefined) return options.monthFirst ? 'month-first' : 'day-first';
  const region = options.locale?.split(/[-_]/).slice(1).find((p) => /^[A-Za-z]{2}$/.test(p))?.toUpperCase();
  if (!region) return undefined;
  // French Canada prints day first (and ISO); English Canada mostly month first.
  if (region === 'CA' && options.locale!.toLowerCase().startsWith('fr')) return 'day-first';
  return MONTH_FIRST_REGIONS.has(region) ? 'month-first' : 'day-first';
}

function dateCandidates(p: Page, ruleIso: string | null, options: { monthFirst?: boolean; locale?: string }): Array<Candidate<string>> {
  const raws = rawDates(p.lines);
  const order = dateOrder(p.lines, dateOrderHint(options));
  const read: Array<{ raw: RawDate; iso: string }> = [];
  for (const r of raws) {
    const [month, day] = r.shape === 'numeric' || r.shape === 'lost' ? (order === 'day-first' ? [r.b, r.a] : [r.a, r.b]) : [r.a, r.b];
    const iso = isoOf(r.year, month, day);
    if (iso) read.push({ raw: r, iso });
  }
  return read.map(({ raw, iso }) => {
    const l = p.lines[raw.line]!;
    const label = labelForm(l.text);
    const prev = raw.line > 0 ? labelForm(p.lines[raw.line - 1]!.text) : '';
    const f: Features = {
      relY: relY(p, l),
      height: relHeight(p, l),
      label: DATE_LABEL.test(label) ? 1 : 0,
      labelAbove: DATE_LABEL.test(prev) ? 1 : 0,
      time: TIME.test(digitsForm(l.text)) ? 1 : 0,
      otherLabel: OTHER_DATE.test(label) ? 1 : 0,
      numeric: raw.shape === 'numeric' ? 1 : 0,
      iso: raw.shape === 'iso' ? 1 : 0,
      named: raw.shape === 'named' ? 1 : 0,
      compact: raw.shape === 'compact' ? 1 : 0,
      lostSeparator: raw.shape === 'lost' ? 1 : 0,
      ambiguous: raw.shape === 'numeric' && raw.a <= 12 && raw.b <= 12 && raw.a !== raw.b ? 1 : 0,
      shortYear: raw.shortYear ? 1 : 0,
      repaired: raw.repaired ? 1 : 0,
      ocrDoubt: 1 - (l.ocrMin ?? 1),
      repeats: Math.log2(read.filter((o) => o.iso === iso).length),
      first: read[0]?.iso === iso ? 1 : 0,
      rule: ruleIso === iso ? 1 : 0,
    };
    return { value: iso, line: raw.line, features: f };
  });
}

// ---------------------------------------------------------------- merchant

const HEAD = 12;
const LEGAL = /\b(S[DEO0]N\.?\s?[B83][HN]D\.?|SD\.?\s?BHD|BHD|BERHAD|S\/B|PTE\.?\s?LTD|LTD|LIMITED|LLC|LLP|INC|CORP(ORATION)?|GMBH|PLC|PTY|CO\.,?\s?LTD)\b/;
const LEGAL_ONLY = /^\(?[A-Z]?\)?\s*(S[DEO0]N\.?\s?[B83][HN]D\.?|BHD|BERHAD|S\/B|PTE\.?\s?LTD|LTD|LIMITED|LLC|INC|GMBH)\s*\.?$/;
const BUSINESS = /\b(RESTAURANT|RESTORAN|CAFE|KEDAI|SYARIKAT|HARDWARE|MARKET|SUPERMARKET|MART|STATIONERY|SUPPLIES|SUPPLY|STORES?|SHOP|BAKERY|PHARMACY|FARMASI|STATION|SERVICES?|KITCHEN|FOOD|HOLDINGS|INTERNATIONAL|INDUSTRIES|ELECTRICAL|HOTEL|BOOKS?|TRADING|ENTERPRISES?|CENTRE|CENTER|MOTORS?|AUTO|PRINTING|CLINIC|MEDICAL|BEAUTY|FURNITURE|TRAVEL|COFFEE|BAR|GRILL|PIZZA)\b/;
const ADDRESS = /\b(JALAN|JLN|LORONG|LRG|TAMAN|TMN|LOT|BLOK|BLOCK|FLOOR|LEVEL|ROAD|RD|STREET|AVENUE|AVE|LANE|SUITE|UNIT|KAWASAN|BANDAR|PERSIARAN|SEKSYEN|SECTION|KUALA LUMPUR|SELANGOR|JOHOR|PENANG|PAHANG|KEDAH|PERAK|MELAKA|MALAYSIA|SINGAPORE)\b|\b\d{5}\b|\bNO\.?\s?\d/;
const CONTACT = /\b(TEL|TELEPHONE|FAX|PHONE|HP|MOBILE|EMAIL|WWW|HTTPS?|COM|GST|SST|VAT|TIN|REG|ROC|BRN|UEN|ID|CO NO|COMPANY NO)\b|@|\(\s*\d{4,}[\d\s-]*[A-Z]?\s*\)/;
const DOCUMENT = /\b(TAX|INVOICE|RECEIPT|CASH|BILL|CHECK|ORDER|TABLE|CASHIER|DATE|TIME|WELCOME|THANK|COPY|DUPLICATE|TRANSACTION|MEMBER|POS|TERMINAL|QTY|TOTAL|ITEM|PRICE|SIMPLIFIED)\b/;
const JUNK = /[^A-Za-z0-9\s&'.,()\-/@:#]/g;
/** A company registration number alone on its line: "(123456-K)", "CO. REG 123456-K", "(JM0123456-U)". */
const REG_NO = /^[([{]?\s*(CO\.?\s*)?(REG\.?\s*)?(NO\.?\s*)?[:.]?\s*[A-Z]{0,3}\d{4,}[\dA-Z\s-]*[)\]}]?$/i;

/** A token that could be part of a printed name (a word with a vowel, a short abbreviation, a legal suffix), not OCR junk. */
function isWordlike(token: string): boolean {
  const letters = token.replace(/[^A-Za-z]/g, '');
  if (letters.length < 2) return /^[&\d]/.test(token);
  if (LEGAL.test(token.toUpperCase()) || /^[A-Z]{2,4}$/.test(letters)) return true;
  return /[AEIOUYaeiouy]/.test(letters) && !/[a-z][A-Z]/.test(letters.slice(1));
}

function merchantCandidates(p: Page, ruleName: string | null): Array<Candidate<string>> {
  const head = p.lines.slice(0, HEAD);
  const firstAddress = head.findIndex((l) => { const u = l.text.toUpperCase(); return ADDRESS.test(u) && !LEGAL.test(u); });
  const firstContact = head.findIndex((l) => CONTACT.test(l.text.toUpperCase()));
  const legalAt = head.findIndex((l) => LEGAL.test(cleanName(l.text).toUpperCase()));
  const firstLegal = legalAt < 0 ? -1 : legalAt;
  const out: Array<Candidate<string>> = [];
  const add = (i: number, parts: readonly LayoutLine[]): void => {
    const name = cleanName(parts.map((l) => l.text).join(' '));
    const letters = name.replace(/[^A-Za-z]/g, '').length;
    if (letters < 3) return;
    const u = name.toUpperCase();
    const digits = name.replace(/\D/g, '').length;
    const upper = name.replace(/[^A-Z]/g, '').length / letters;
    const tokens = name.split(/\s+/);
    const box = { x0: Math.min(...parts.map((l) => l.x0)), x1: Math.max(...parts.map((l) => l.x1)), y0: parts[0]!.y0, y1: parts[0]!.y1, text: name };
    const width = Math.max(1, p.right - p.left);
    const next = head[i + parts.length];
    const f: Features = {
      index: Math.min(i, 8) / 8,
      first: i === 0 ? 1 : 0,
      relY: relY(p, box),
      height: relHeight(p, box),
      centred: p.geometry ? 1 - Math.abs((box.x0 + box.x1) / 2 - (p.left + p.right) / 2) / (width / 2) : 0,
      legal: LEGAL.test(u) ? 1 : 0,
      business: BUSINESS.test(u) ? 1 : 0,
      address: ADDRESS.test(u) ? 1 : 0,
      contact: CONTACT.test(u) ? 1 : 0,
      document: DOCUMENT.test(u) ? 1 : 0,
      aboveAddress: firstAddress < 0 || i + parts.length - 1 < firstAddress ? 1 : 0,
      aboveContact: firstContact < 0 || i + parts.length - 1 < firstContact ? 1 : 0,
      upper,
      lowerOnly: upper === 0 ? 1 : 0,
      digits: digits / (letters + digits),
      junk: Math.min(3, (parts.map((l) => l.text).join(' ').match(JUNK)?.length ?? 0)) / 3,
      short: letters < 5 ? 1 : 0,
      long: tokens.length > 8 ? 1 : 0,
      joined: parts.length > 1 ? 1 : 0,
      joined3: parts.length > 2 ? 1 : 0,
      joinedLegalOnly: parts.length > 1 && LEGAL_ONLY.test(cleanName(parts[parts.length - 1]!.text).toUpperCase()) ? 1 : 0,
      nextLegalOnly: parts.length === 1 && next !== undefined && LEGAL_ONLY.test(cleanName(next.text).toUpperCase()) ? 1 : 0,
      legalOnly: LEGAL_ONLY.test(u) ? 1 : 0,
      firstLegal: LEGAL.test(u) && i <= firstLegal ? 1 : 0,
      wordlike: tokens.filter(isWordlike).length / tokens.length,
      // What follows a printed name: the address or contact block, or its registration number.
      nextAddress: next !== undefined && (ADDRESS.test(next.text.toUpperCase()) || CONTACT.test(next.text.toUpperCase())) ? 1 : 0,
      nextRegNo: next !== undefined && REG_NO.test(next.text.trim()) ? 1 : 0,
      letterRatio: letters / Math.max(1, name.replace(/\s/g, '').length),
      ocrDoubt: 1 - Math.min(...parts.map((l) => l.ocrMean ?? 1)),
      rule: ruleName !== null && merchantSimilarity(name, ruleName) >= 0.9 ? 1 : 0,
    };
    out.push({ value: name, line: i, features: f });
  };
  // Names wrap: "NANDO'S CHICKENLAND MALAYSIA" / "SDN BHD". Only such pairs are joined; two
  // unrelated lines read as one would be noise. A line printed in blocks far apart
  // ("SIMPLIFIED TAX INVOICE      SIN THYE & COMPANY") also offers each block.
  const plain = (t: string): boolean => { const u = t.toUpperCase(); return !ADDRESS.test(u) && !CONTACT.test(u) && !DOCUMENT.test(u) && !/\d/.test(u); };
  head.forEach((l, i) => {
    add(i, [l]);
    if (l.parts && l.parts.length > 1) for (const part of l.parts) add(i, [{ ...l, text: part }]);
    const next = head[i + 1];
    if (!next || !plain(l.text)) return;
    const nextName = cleanName(next.text).toUpperCase();
    if (LEGAL_ONLY.test(nextName)) add(i, [l, next]);
    // A long name wrapped over two or three lines, ending in its legal suffix
    // ("AIK HUAT HARDWARE" / "ENTERPRISE (SETIA" / "ALAM) SDN BHD").
    else if (LEGAL.test(nextName) && !LEGAL.test(l.text.toUpperCase()) && !ADDRESS.test(nextName) && !CONTACT.test(nextName)) add(i, [l, next]);
    else {
      const third = head[i + 2];
      const thirdName = third ? cleanName(third.text).toUpperCase() : '';
      if (third && plain(next.text) && LEGAL.test(thirdName) && !ADDRESS.test(thirdName) && !CONTACT.test(thirdName)) add(i, [l, next, third]);
    }
  });
  return out;
}
