/**
 * A receipt's pages read by the primary page reader (PP-OCRv5, ppocr-host.ts), with tesseract.js
 * as the second opinion where the first is doubtful (ADR 0019):
 *
 * 1. every page read by the primary reader; its fields extracted;
 * 2. when total, date or merchant is missing or under SECOND_OPINION_BELOW, tesseract reads the
 *    whole page (its first reading) and the two readings vote field by field (combineReadings:
 *    agreement wins, confidence weighs, the primary breaks ties).
 *
 * Chosen on receipts-train's merchant-grouped cross-validation from cached first readings (ADR
 * 0019): a vote on every receipt read no field better than one below 0.9 (41 of 91 train
 * receipts asked); tesseract's line re-reading of the doubtful fields' lines, in the primary's
 * boxes, read fewer totals than the whole page. A page the primary reader finds no text on is
 * left to the tesseract pipeline (null here).
 */
import { combineReadings } from '@paperlink/domain';
import type { OcrWord, ReceiptFields } from '@paperlink/domain';
import type { PageReader } from './ppocr-host';
import { FIRST_READING, readPage } from './reading';
import type { OcrReader } from './reading';

export interface PrimaryReadOptions {
  /** Ask tesseract for a second opinion on doubtful fields (default true). */
  retry?: boolean;
  fields(text: string, words: readonly OcrWord[] | undefined): Promise<ReceiptFields>;
}

export interface PrimaryReading {
  text: string;
  fields: ReceiptFields;
  /** The primary reading's own fields (before the vote), for the boxes shown beside the fields. */
  first: ReceiptFields;
  confidence: number;
  size?: { width: number; height: number };
  /** Whole-page readings taken (the primary's, and tesseract's when it was asked). */
  passes: number;
  /** Which readings voted: `ppocr`, `tesseract`. */
  voters: string[];
  /** Why tesseract's second opinion failed (the receipt was read without it). */
  secondOpinionError?: string;
}

/** A field under this confidence asks tesseract for a second opinion (chosen on train, see above). */
export const SECOND_OPINION_BELOW = 0.9;

const FIELDS = ['total', 'date', 'merchant'] as const;

/** Whether any of total, date and merchant is missing or under SECOND_OPINION_BELOW. */
export function doubtful(fields: ReceiptFields): boolean {
  return FIELDS.some((f) => (fields[f]?.confidence ?? 0) < SECOND_OPINION_BELOW);
}

export async function readWithPrimary(images: readonly Uint8Array[], primary: PageReader, ocr: OcrReader, options: PrimaryReadOptions): Promise<PrimaryReading | null> {
  const pages = [];
  for (const image of images) pages.push(await primary.read(image));
  const words = pages.flatMap((p) => p.words);
  if (words.length === 0) return null;
  const text = pages.map((p) => p.text).join('\n');
  const confidence = pages.reduce((s, p) => s + p.confidence, 0) / pages.length;
  const size = pages.length === 1 ? pages[0]!.size : undefined;
  const first = await options.fields(text, words);
  const out: PrimaryReading = { text, fields: first, first, confidence, ...(size ? { size } : {}), passes: 1, voters: ['ppocr'] };
  if (!(options.retry ?? true) || !doubtful(first)) return out;
  try {
    const tesseract = [];
    for (const image of images) tesseract.push(await readPage(image, ocr, FIRST_READING));
    const second = await options.fields(tesseract.map((r) => r.ocr.text).join('\n'), tesseract.flatMap((r) => r.ocr.words));
    out.fields = combineReadings([first, second]);
    out.voters.push('tesseract');
    out.passes += 1;
  } catch (error) {
    // The second opinion's failure (e.g. a JPEG tesseract's decoder refuses) is not the receipt's.
    out.secondOpinionError = error instanceof Error ? error.message : String(error);
  }
  return out;
}
