/**
 * Amount cells as banks write them: currency symbols or codes ($ £ € RM USD …), thousands
 * separators (1,234.56 / 1.234,56 / 1 234,56 / 1'234.56), negatives as -12, 12-, (12),
 * "12 DR", and credits as "12 CR". The decimal mark is decided once per file.
 */
import { toCents } from '../core/money';
import type { Cents } from '../core/money';

export interface ParsedAmount {
  cents: Cents;
  currency?: string;
}

const SYMBOLS: Record<string, string> = {
  $: 'USD', US$: 'USD', USD$: 'USD', '£': 'GBP', '€': 'EUR', '¥': 'JPY', '₹': 'INR', '₩': 'KRW',
  '₽': 'RUB', '₺': 'TRY', '₪': 'ILS', '₱': 'PHP', '฿': 'THB', RM: 'MYR', A$: 'AUD', AU$: 'AUD',
  C$: 'CAD', CA$: 'CAD', NZ$: 'NZD', S$: 'SGD', HK$: 'HKD', R$: 'BRL', 'ZŁ': 'PLN', KR: '', FR: 'CHF',
  'FR.': 'CHF', RP: 'IDR',
};

const ISO_CODES = new Set(('USD EUR GBP MYR SGD AUD CAD NZD CHF JPY CNY HKD INR IDR THB PHP VND KRW SEK NOK DKK '
  + 'PLN CZK HUF RON BGN TRY ZAR BRL MXN ARS CLP COP AED SAR ILS EGP NGN KES RUB UAH ISK').split(' '));
/** 1,234,567 and 1.234.567; Indian 12,34,567. */
const GROUPED = /^\d{1,3}(?:[.,]\d{3})+$/;
const LAKH = /^\d{1,2}(?:,\d{2})*,\d{3}$/;

const SPACES = /[\s\u00a0\u202f'’]/g;

/** Cells with only spaces, or a lone dash, mean "no amount". */
export function isBlankAmount(raw: string): boolean {
  const s = raw.trim();
  return s === '' || s === '-' || s === '–';
}

/** The shapes most files use (-1234.56, 1,234.56, or 1.234,56 in a decimal-comma file). */
const PLAIN_DOT = /^(-?)(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?$/;
const PLAIN_COMMA = /^(-?)(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d{1,2}))?$/;

/** `anyDecimals`: skip the money rule's two decimal places (to tell the user why a cell failed). */
export function parseAmount(raw: string, decimalMark: '.' | ',', anyDecimals = false): ParsedAmount | null {
  const plain = (decimalMark === '.' ? PLAIN_DOT : PLAIN_COMMA).exec(raw);
  if (plain) {
    const digits = plain[2] ?? '';
    const units = Number(digits.length > 3 ? digits.replaceAll(decimalMark === '.' ? ',' : '.', '') : digits);
    const frac = plain[3];
    const cents = units * 100 + (frac === undefined ? 0 : frac.length === 1 ? Number(frac) * 10 : Number(frac));
    return { cents: plain[1] && cents !== 0 ? -cents : cents };
  }
  return parseDecoratedAmount(raw, decimalMark, anyDecimals);
}

function parseDecoratedAmount(raw: string, decimalMark: '.' | ',', anyDecimals: boolean): ParsedAmount | null {
  let s = raw.trim();
  if (s.startsWith('="') && s.endsWith('"')) s = s.slice(2, -1).trim();
  if (s === '') return null;
  let negative = false;
  let forcedSign = 0;
  const drcr = /\s*\b(CR|DR)\.?$/i.exec(s);
  if (drcr?.[1]) {
    forcedSign = drcr[1].toUpperCase() === 'CR' ? 1 : -1;
    s = s.slice(0, drcr.index).trim();
  }
  const first = s.search(/\d/);
  if (first < 0) return null;
  let last = s.length - 1;
  while (last >= 0 && !isDigit(s.charCodeAt(last))) last--;
  let prefix = s.slice(0, first);
  let suffix = s.slice(last + 1);
  const core = s.slice(first, last + 1);
  if (prefix.includes('(') && suffix.includes(')')) {
    negative = true;
    prefix = prefix.replace('(', '');
    suffix = suffix.replace(')', '');
  }
  const signs = (prefix.match(/[-−–]/g)?.length ?? 0) + (suffix.match(/[-−–]/g)?.length ?? 0);
  if (signs > 1) return null;
  if (signs === 1) negative = !negative;
  prefix = prefix.replace(/[-−–+]/g, '');
  suffix = suffix.replace(/[-−–]/g, '');
  const currency = currencyOf(prefix.trim() + suffix.trim());
  if (currency === null) return null;
  const value = parseNumber(core, decimalMark, anyDecimals);
  if (value === null) return null;
  let cents = toCents(value);
  if (forcedSign !== 0) cents = forcedSign * Math.abs(cents);
  else if (negative) cents = -cents;
  return currency ? { cents: cents === 0 ? 0 : cents, currency } : { cents: cents === 0 ? 0 : cents };
}

/** '' when there is no currency marker, undefined for a marker that names no single currency, null for junk. */
function currencyOf(marker: string): string | undefined | null {
  const m = marker.replace(SPACES, '').toUpperCase();
  if (m === '') return '';
  const known = Object.hasOwn(SYMBOLS, m) ? SYMBOLS[m] : undefined;
  if (known !== undefined) return known === '' ? undefined : known;
  if (ISO_CODES.has(m)) return m;
  return null;
}

function parseNumber(core: string, decimalMark: '.' | ',', anyDecimals: boolean): number | null {
  const s = core.replace(SPACES, '');
  if (!/^\d[\d.,]*$/.test(s) || !/\d$/.test(s)) return null;
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  let decimal: '.' | ',' | null;
  if (lastDot >= 0 && lastComma >= 0) decimal = lastDot > lastComma ? '.' : ',';
  else if (lastDot < 0 && lastComma < 0) decimal = null;
  else {
    const sep = lastDot >= 0 ? '.' : ',';
    const count = s.split(sep).length - 1;
    const tail = s.length - s.lastIndexOf(sep) - 1;
    if (count > 1) decimal = null;
    else if (tail !== 3) decimal = sep;
    else decimal = sep === decimalMark ? sep : null;
  }
  const thousands = decimal === '.' ? ',' : decimal === ',' ? '.' : lastDot >= 0 ? '.' : ',';
  const [intPart = '', frac, extra] = decimal ? s.split(decimal) : [s];
  if (extra !== undefined) return null;
  // The money rule (core/money.ts): at most two decimal places, as an edit accepts.
  if (!anyDecimals && frac !== undefined && frac.replace(/0+$/, '').length > 2) return null;
  if (intPart.includes(thousands) && !GROUPED.test(intPart) && !LAKH.test(intPart)) return null;
  const digits = intPart.split(thousands).join('');
  return Number(frac === undefined ? digits : `${digits}.${frac}`);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * The file's decimal mark from its amount cells: a separator followed by one or two final
 * digits, or both separators in one cell, decide; otherwise the fallback (',' for
 * semicolon files, '.' elsewhere).
 */
export function detectDecimalMark(values: Iterable<string>, fallback: '.' | ','): '.' | ',' {
  let dot = 0;
  let comma = 0;
  for (const v of values) {
    if (dot + comma >= 2000) break;
    const s = v.replace(/[^\d.,]/g, '');
    const lastDot = s.lastIndexOf('.');
    const lastComma = s.lastIndexOf(',');
    if (lastDot >= 0 && lastComma >= 0) {
      if (lastDot > lastComma) dot++;
      else comma++;
    } else if (/\.\d{1,2}$/.test(s)) dot++;
    else if (/,\d{1,2}$/.test(s)) comma++;
  }
  if (dot === comma) return fallback;
  return dot > comma ? '.' : ',';
}
