/**
 * Receipt fields from OCR text: date, total, merchant, tax and a short description, each with
 * a confidence in 0..1 (null when nothing plausible was found). Pure: the same text always
 * gives the same fields. The rules are general (label keywords with OCR-typo tolerance, line
 * position, the receipt's own arithmetic), not tuned to particular merchants.
 */
import { extractDate } from './dates';
import { extractDescription } from './description';
import { extractMerchant } from './merchant';
import { moneyLines } from './money-lines';
import { receiptLines } from './ocr-text';
import { extractTax } from './tax';
import { extractTotal } from './total';
import type { ExtractOptions, OcrWord, ReceiptFields } from './types';

export function extractReceiptFields(text: string, words?: readonly OcrWord[], options: ExtractOptions = {}): ReceiptFields {
  const lines = receiptLines(text);
  const money = moneyLines(lines);
  const total = extractTotal(money);
  return {
    date: extractDate(lines, options),
    total,
    merchant: extractMerchant(lines, words),
    tax: extractTax(money, total?.cents),
    description: extractDescription(money),
  };
}
