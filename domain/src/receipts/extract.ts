/**
 * Receipt fields from OCR text: date, total, merchant, tax and a short description, each with
 * a confidence in 0..1 (null when nothing plausible was found). Pure: the same text always
 * gives the same fields.
 *
 * Two readers: the rules (rules.ts: label keywords with OCR-typo tolerance, line position, the
 * receipt's own arithmetic) and a ranker trained on receipts-train (learned/: every amount,
 * date and top line as a candidate with features, weights in learned/weights.json). Total,
 * date and merchant are combined per field as measured best (FIELD_POLICY), and their
 * confidence is the ranker's calibrated one: at or above CONFIDENT_AT a field was right at
 * least 97 % of the time in cross-validation. Tax and description come from the rules.
 */
import { checkYear } from './date-period';
import { decideDateOrder, merchantOrderOf, type DateOrderDecision } from './date-order';
import { dateOrderHint, ownDateOrder } from './learned/candidates';
import { layoutFromOcr, type Layout } from './learned/layout';
import { combineFields, extractLearned } from './learned/model';
import type { LearnedFields, ReceiptModel } from './learned/model';
import weights from './learned/weights.json' with { type: 'json' };
import { extractRuleFields } from './rules';
import type { ExtractOptions, OcrWord, ReceiptFields } from './types';

const MODEL = weights as ReceiptModel;

/** `model`: the ranker's weights (default the committed ones; a benchmark passes a cross-validation fold's). */
export function extractReceiptFields(text: string, words?: readonly OcrWord[], options: ExtractOptions = {}, model: ReceiptModel = MODEL): ReceiptFields {
  const fields = readFields(text, words, options, model);
  // The date's year checked against the company's period and the day it is read (date-period.ts).
  return fields.date && (options.period || options.notAfter) ? { ...fields, date: checkYear(fields.date, options) } : fields;
}

function readFields(text: string, words: readonly OcrWord[] | undefined, options: ExtractOptions, model: ReceiptModel): ReceiptFields {
  const layout = layoutFromOcr(text, words);
  // Day or month first per receipt (date-order.ts): its own evidence (a day above 12) first,
  // then the merchant's earlier receipts, then the company's hint (monthFirst or locale), then
  // day first. Both readers use it. The merchant is known only after a first reading: when the
  // receipt proves nothing and the merchant's history says the other order, read again with it.
  const own = ownDateOrder(layout.lines);
  const first = decideDateOrder({ receipt: own, company: dateOrderHint(options) });
  const fields = extractWithOrder(text, words, options, layout, first, model);
  if (own || !fields.date) return fields;
  const merchant = merchantOrderOf(options.merchantDateOrders, fields.merchant?.value);
  if (!merchant) return fields;
  const byMerchant: DateOrderDecision = { order: merchant, evidence: 'merchant' };
  return merchant === first.order ? { ...fields, dateOrder: byMerchant } : extractWithOrder(text, words, options, layout, byMerchant, model);
}

function extractWithOrder(text: string, words: readonly OcrWord[] | undefined, options: ExtractOptions, layout: Layout, order: DateOrderDecision, model: ReceiptModel): ReceiptFields {
  const decided = { ...options, monthFirst: order.order === 'month-first' };
  const rules = extractRuleFields(text, words, decided);
  const learned = extractLearned(model, layout, rules, decided);
  const picked = combineFields(learned, asLearned(rules));
  const boxes: NonNullable<ReceiptFields['boxes']> = {};
  if (layout.geometry) {
    for (const field of ['total', 'date', 'merchant'] as const) {
      const line = layout.lines[picked[field]?.line ?? -1];
      if (line) boxes[field] = { x0: line.x0, y0: line.y0, x1: line.x1, y1: line.y1 };
    }
  }
  return {
    ...rules,
    total: picked.total ? { cents: picked.total.value, confidence: picked.total.confidence } : null,
    date: picked.date ? { value: picked.date.value, confidence: picked.date.confidence } : null,
    merchant: picked.merchant ? { value: picked.merchant.value, confidence: picked.merchant.confidence } : null,
    ...(Object.keys(boxes).length > 0 ? { boxes } : {}),
    ...(picked.date ? { dateOrder: order } : {}),
  };
}

function asLearned(f: ReceiptFields): LearnedFields {
  return {
    total: f.total ? { value: f.total.cents, confidence: f.total.confidence, line: -1 } : null,
    date: f.date ? { value: f.date.value, confidence: f.date.confidence, line: -1 } : null,
    merchant: f.merchant ? { value: f.merchant.value, confidence: f.merchant.confidence, line: -1 } : null,
  };
}
