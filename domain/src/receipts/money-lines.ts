/**
 * Reads every receipt line as "label + amounts" and names what the label means (grand total,
 * plain total, subtotal, payment, change, rounding, tax, discount, quantity). Total and tax
 * extraction both work from this one reading.
 */
import { findAmounts, withoutAmounts } from './amounts';
import type { AmountToken } from './amounts';
import { fuzzyWord, hasPhrase, labelForm, labelWords } from './ocr-text';
import type { ReceiptLine } from './ocr-text';

export type LabelKind =
  | 'final' | 'total' | 'subtotal' | 'excluding' | 'payment' | 'change' | 'rounding'
  | 'tax' | 'charge' | 'discount' | 'count' | 'none';

export interface MoneyLine {
  line: ReceiptLine;
  amounts: AmountToken[];
  kind: LabelKind;
  words: string[];
}

/**
 * Label phrases by meaning, checked in this order (the first match wins), each word fuzzy
 * (one OCR slip allowed from five letters). Order matters: "TOTAL ROUNDED" is final before
 * "ROUNDED" is rounding, "SUB TOTAL" is a subtotal before "TOTAL" is a total, and "TOTAL
 * SALES (EXCLUDING GST)" is excluding before "TOTAL SALES" is final.
 */
const RULES: ReadonlyArray<readonly [LabelKind, readonly string[]]> = [
  ['count', ['TOTAL QTY', 'TOTAL QUANTITY', 'TOTAL ITEMS', 'TOTAL ITEM', 'NO OF ITEMS', 'ITEM COUNT', 'QTY', 'QUANTITY',
    'ITEMS', 'ITEM S', 'PCS', 'UNITS', 'POINTS', 'POINT', 'MILEAGE', 'LITRE', 'LITRES', 'LITER']],
  ['subtotal', ['SUBTOTAL', 'SUB TOTAL', 'SUB TOT', 'SUBTTL', 'SUB', 'TOTAL BEFORE', 'NET AMOUNT']],
  ['excluding', ['EXCLUDING', 'EXCLUSIVE', 'EXCL', 'EXC', 'BEFORE TAX', 'BEFORE GST', 'TAXABLE', 'WITHOUT TAX']],
  ['discount', ['DISCOUNT', 'DISC', 'SAVINGS', 'YOU SAVED', 'SAVED', 'VOUCHER', 'PROMO', 'COUPON', 'TOTAL SAVINGS']],
  ['final', ['GRAND TOTAL', 'NETT TOTAL', 'NET TOTAL', 'TOTAL ROUNDED', 'ROUNDED TOTAL', 'TOTAL ROUND', 'AMOUNT DUE',
    'AMT DUE', 'BALANCE DUE', 'TOTAL DUE', 'TOTAL PAYABLE', 'AMOUNT PAYABLE', 'TOTAL INCL', 'TOTAL INCLUSIVE',
    'TOTAL AMOUNT', 'TOTAL AMT', 'TOTAL SALES', 'TOTAL RM', 'TOTAL MYR',
    'TOTAL TO PAY', 'TO PAY', 'PAYMENT DUE', 'JUMLAH', 'TOTAL TTC', 'GESAMT', 'SUMME', 'NETT', 'TOTAL SALE',
    'TOTAL BILL', 'BILL TOTAL', 'AMOUNT TOTAL']],
  ['rounding', ['ROUNDING', 'ROUNDED', 'ROUND', 'ROUNDING ADJ', 'ADJUSTMENT', 'ADJ', 'RND']],
  ['change', ['CHANGE', 'CHANGE DUE', 'BALANCE', 'KEMBALI', 'BAKI', 'CHG DUE']],
  ['tax', ['GST', 'SST', 'VAT', 'TAX', 'SERVICE TAX', 'MWST', 'TVA', 'IVA', 'PPN']],
  ['charge', ['SERVICE CHARGE', 'SVC CHG', 'SERV CHG', 'SERVICE', 'CHARGE', 'CHG', 'TIP', 'GRATUITY', 'DELIVERY']],
  ['payment', ['CASH', 'TENDERED', 'TENDER', 'PAID', 'PAYMENT', 'VISA', 'MASTER', 'MASTERCARD', 'CARD', 'CREDIT',
    'DEBIT', 'AMEX', 'EFTPOS', 'NETS', 'TNG', 'GRABPAY', 'BOOST', 'WALLET', 'TUNAI', 'RECEIVED']],
  ['total', ['TOTAL', 'TTL', 'AMOUNT', 'AMT']],
];

/** Every keyword of the rules: a word that is one of them is never read as another (CHARGE is not CHANGE). */
const VOCABULARY = new Set(RULES.flatMap(([, phrases]) => phrases.flatMap((p) => [...p.split(' '), p.replace(/ /g, '')])));
const TAX_WORDS = new Set(['GST', 'SST', 'VAT', 'TAX']);

const labelMatch = (word: string, keyword: string): boolean =>
  word === keyword || (!VOCABULARY.has(word) && fuzzyWord(word, keyword));

/** Names what a label (amounts already removed) stands for. */
export function classifyLabel(words: readonly string[]): LabelKind {
  for (const [kind, phrases] of RULES) {
    // "Total Excl. of GST" read as "Exel." still excludes the tax.
    if (kind === 'final' && isTotalWithTax(words)) return words.some((w) => w.startsWith('EX')) ? 'excluding' : 'final';
    if (phrases.some((p) => hasPhrase(words, p, labelMatch))) return kind;
  }
  return 'none';
}

/**
 * "Total with GST @ 6%", "Total Incl. of GST": a total that names the tax it includes. The
 * tax amount itself reads "TOTAL GST" or "GST TOTAL", with the tax word next to TOTAL.
 */
function isTotalWithTax(words: readonly string[]): boolean {
  const total = words.findIndex((w) => labelMatch(w, 'TOTAL'));
  const tax = words.findIndex((w) => TAX_WORDS.has(w));
  return total >= 0 && tax > total + 1;
}

/**
 * The lines whose total (or final) label lost its amount to OCR: no amount on the line, nor one
 * standing alone (no label of its own) on the next line, which would be the label's. `kinds` and
 * `amounts` (how many amounts were read) are per line.
 */
export function totalsWithoutAmount(kinds: readonly LabelKind[], amounts: readonly number[]): number[] {
  return kinds.flatMap((kind, i) => ((kind === 'final' || kind === 'total') && amounts[i] === 0 && !(amounts[i + 1]! > 0 && kinds[i + 1] === 'none') ? [i] : []));
}

export function moneyLines(lines: readonly ReceiptLine[]): MoneyLine[] {
  const out = lines.map((line): MoneyLine => {
    const amounts = findAmounts(line.text);
    const words = labelWords(labelForm(withoutAmounts(line.text, amounts)));
    return { line, amounts, kind: classifyLabel(words), words };
  });
  // Under a rounding adjustment comes the rounded total, the amount actually paid: a bare
  // "RM 60.30" or a plain "TOTAL: 65.55" there is the final total, above any inclusive total.
  out.forEach((ml, i) => {
    if (i === 0 || out[i - 1]!.kind !== 'rounding') return;
    if ((isBareAmount(ml) && ml.amounts[0]!.cents > 0) || ml.kind === 'total') ml.kind = 'final';
  });
  return out;
}

/** "RM 60.30" alone on its line: an amount printed without a label (at most a stray mark). */
function isBareAmount(ml: MoneyLine): boolean {
  return ml.kind === 'none' && ml.amounts.length === 1 && ml.words.every((w) => w.length <= 2);
}

/**
 * "Fawnent 130.00" right under a grand-total label alone on its line: one amount after a single
 * word that means nothing is a label OCR mangled (Payment); column headers never say GRAND/NETT
 * TOTAL or TOTAL ROUNDED, so what follows such a label is not an item line.
 */
function isMisreadLabel(ml: MoneyLine): boolean {
  return ml.kind === 'none' && ml.amounts.length === 1 && ml.words.length === 1;
}

/**
 * The amount a label points at: the rightmost amount on its line, or, for a label alone on
 * its line, a bare amount on one of the next two lines ("Total:" / "12.50"), or after a grand
 * total an amount under a mangled label on the very next line ("Total Amt Rounded :" /
 * "Fawnent 130.00"). A label line with digits but no readable amount lost its amount to OCR,
 * so nothing below is borrowed.
 */
export function labelledAmount(all: readonly MoneyLine[], at: number): { amount: AmountToken; line: number } | null {
  const own = all[at]!;
  const last = own.amounts[own.amounts.length - 1];
  if (last) return { amount: last, line: at };
  if (/\d/.test(own.line.text)) return null;
  for (let k = at + 1; k <= at + 2 && k < all.length; k++) {
    const next = all[k]!;
    if (isBareAmount(next) || (k === at + 1 && own.kind === 'final' && isMisreadLabel(next))) return { amount: next.amounts[0]!, line: k };
    if (next.kind !== 'none' || next.amounts.length > 0) return null;
  }
  return null;
}
