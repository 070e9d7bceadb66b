/**
 * The rule-based reading of receipt fields (label keywords with OCR-typo tolerance, line
 * position, the receipt's own arithmetic). `extractReceiptFields` (extract.ts) uses it as is
 * for tax and description, and as one piece of evidence for the learned ranker's fields.
 */
import { extractDate } from './dates';
import { extractDescription } from './description';
import { extractMerchant } from './merchant';
import { moneyLines } from './money-lines';
import { receiptLines } from './ocr-text';
import { extractTax } from './tax';
import { extractTotal } from './total';
import type { ExtractOptions, OcrWord, ReceiptFields } from './types';

export function extractRuleFields(text: string, words?: readonly OcrWord[], options: ExtractOptions = {}): ReceiptFields {
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
