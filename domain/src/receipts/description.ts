/**
 * A short description of the purchase: the names of the first few item lines (a line with a
 * price and a name, above the first total). Good enough for a list column and for people to
 * recognise the receipt; it is never used for matching.
 */
import { withoutAmounts } from './amounts';
import type { MoneyLine } from './money-lines';
import type { Extracted } from './types';

const MAX_ITEMS = 3;
const TOTALISH = new Set(['final', 'total', 'subtotal', 'excluding', 'payment', 'change', 'rounding']);
/** Items follow the header, which ends with the date, invoice number or cashier line. */
const HEADER_END = /\b(DATE|INVOICE|INV|RECEIPT|BILL|CASHIER|TABLE|ORDER)\b|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}/i;

export function extractDescription(all: readonly MoneyLine[]): Extracted<string> | null {
  const end = all.findIndex((ml) => TOTALISH.has(ml.kind) && ml.amounts.length > 0);
  const head = all.slice(0, end < 0 ? all.length : end);
  const start = head.findIndex((ml) => HEADER_END.test(ml.line.text)) + 1;
  const items: string[] = [];
  for (const ml of head.slice(start)) {
    if (ml.kind !== 'none' || ml.amounts.length === 0) continue;
    const name = itemName(withoutAmounts(ml.line.text, ml.amounts));
    if (name) items.push(name);
    if (items.length === MAX_ITEMS) break;
  }
  if (items.length === 0) return null;
  return { value: items.join(', '), confidence: 0.4 };
}

/** Strips quantities ("2x", "2 x", "x 2"), item codes and tax codes around a product name. */
function itemName(text: string): string | null {
  const name = text
    .replace(/\s+\b(SR|ZR|S|T|A|E|Z|N)\b\s*$/, '')
    .replace(/(\s+(\d+\s?[xX@]|[xX@]\s?\d+|[xX@]|\d+))+\s*$/, '')
    .replace(/^\W*(\d+\s?[xX]?\s+)?(\d{4,}\s+)?/, '')
    .replace(/\s+/g, ' ')
    .trim();
  const letters = name.replace(/[^A-Za-z]/g, '').length;
  return letters >= 3 && letters >= name.replace(/\s/g, '').length * 0.4 ? name : null;
}
