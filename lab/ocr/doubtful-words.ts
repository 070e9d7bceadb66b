import type { OcrWord, ReceiptFields } from '../../domain/src/receipts/types';

/**
 * A measured alternative trigger for the retry readings, not used by the product (ADR 0019):
 * a digit-bearing word under this tesseract confidence (0..100) on the total's or date's line.
 * A misread digit (2018 read as 2013) leaves the extractor sure of a wrong value while
 * tesseract was unsure of the characters; but on receipts-train it read 27 of 91 receipts
 * again instead of 7 for one more right total, and a receipt read three times costs the
 * median time. bench/ocr-prep.ts --pipeline base+ink,x15@30 measures it.
 */
export const DOUBTFUL_WORD_CONFIDENCE = 30;

/**
 * Whether the words the total or date were read from are doubtful: the field has no box (not
 * read from words), or a word with a digit overlapping its line's box has a confidence below
 * `threshold`.
 */
export function doubtfulFieldWords(fields: Pick<ReceiptFields, 'boxes' | 'total' | 'date'>, words: readonly OcrWord[], threshold = DOUBTFUL_WORD_CONFIDENCE): boolean {
  return doubtfulWordFields(fields, words, threshold).length > 0;
}

/** The fields (total, date) whose words are doubtful in the sense of `doubtfulFieldWords`. */
export function doubtfulWordFields(fields: Pick<ReceiptFields, 'boxes' | 'total' | 'date'>, words: readonly OcrWord[], threshold = DOUBTFUL_WORD_CONFIDENCE): Array<'total' | 'date'> {
  const out: Array<'total' | 'date'> = [];
  for (const field of ['total', 'date'] as const) {
    if (!fields[field]) continue;
    const b = fields.boxes?.[field];
    if (!b) {
      out.push(field);
      continue;
    }
    const on = words.filter((w) => w.bbox && /\d/.test(w.text) && w.bbox.y0 < b.y1 && w.bbox.y1 > b.y0 && w.bbox.x0 < b.x1 && w.bbox.x1 > b.x0);
    if (on.length === 0 || on.some((w) => w.confidence < threshold)) out.push(field);
  }
  return out;
}
