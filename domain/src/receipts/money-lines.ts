/**
 * Reads every receipt line as "label + amounts" and names what the label means (grand total,
 * plain total, subtotal, payment, change, rounding, tax, discount, quantity). Total and tax
 * extraction both work from this one reading.
 */
import { findAmounts, withoutAmounts } from './amounts';
import type { AmountToken } from './amounts';
import { hasPhrase, labelForm, labelWords } from './ocr-text';
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
 * "ROUNDED" is rounding, "SUB TOTAL" is a subtotal before "TOTAL" is a total.
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
    'TOTAL TO PAY', 'TO PAY', 'PAYMENT DUE', 'JUMLAH', 'TOTAL TTC', 'GESAMT', 'SUMME', 'TOTALE', 'NETT', 'TOTAL SALE',
    'TOTAL BILL', 'BILL TOTAL', 'AMOUNT TOTAL']],
  ['rounding', ['ROUNDING', 'ROUNDED', 'ROUND', 'ROUNDING ADJ', 'ADJUSTMENT', 'ADJ', 'RND']],
  ['change', ['CHANGE', 'CHANGE DUE', 'BALANCE', 'KEMBALI', 'BAKI', 'CHG DUE']],
  ['tax', ['GST', 'SST', 'VAT', 'TAX', 'SERVICE TAX', 'MWST', 'TVA', 'IVA', 'PPN']],
  ['charge', ['SERVICE CHARGE', 'SVC CHG', 'SERV CHG', 'SERVICE', 'CHARGE', 'CHG', 'TIP', 'GRATUITY', 'DELIVERY']],
  ['payment', ['CASH', 'TENDERED', 'TENDER', 'PAID', 'PAYMENT', 'VISA', 'MASTER', 'MASTERCARD', 'CARD', 'CREDIT',
    'DEBIT', 'AMEX', 'EFTPOS', 'NETS', 'TNG', 'GRABPAY', 'BOOST', 'WALLET', 'TUNAI', 'RECEIVED']],
  ['total', ['TOTAL', 'TTL', 'AMOUNT', 'AMT']],
];

/**
 * Names what a label (amounts already removed) stands for. Exact words are tried before
 * fuzzy ones so that CHARGE is not read as CHANGE, nor CASH as CARD.
 */
export function classifyLabel(words: readonly string[]): LabelKind {
  for (const fuzzy of [false, true]) {
    for (const [kind, phrases] of RULES) {
      if (phrases.some((p) => hasPhrase(words, p, fuzzy))) return kind;
    }
  }
  return 'none';
}

export function moneyLines(lines: readonly ReceiptLine[]): MoneyLine[] {
  return lines.map((line) => {
    const amounts = findAmounts(line.text);
    const words = labelWords(labelForm(withoutAmounts(line.text, amounts)));
    return { line, amounts, kind: classifyLabel(words), words };
  });
}

/**
 * The amount a label points at: the rightmost amount on its line, or, for a label alone on
 * its line, the first amount on the next two lines when those carry no label of their own.
 */
export function labelledAmount(all: readonly MoneyLine[], at: number): { amount: AmountToken; line: number } | null {
  const own = all[at]!;
  const last = own.amounts[own.amounts.length - 1];
  if (last) return { amount: last, line: at };
  for (let k = at + 1; k <= at + 2 && k < all.length; k++) {
    const next = all[k]!;
    if (next.kind !== 'none') return null;
    const first = next.amounts[0];
    if (first) return { amount: first, line: k };
  }
  return null;
}
