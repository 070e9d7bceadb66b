/**
 * Which digit the OCR reads for which (ADR 0019): counted on receipts-train, the page reading of
 * every word with digits against the annotated text under it, where the two differ in exactly one
 * digit (`2013` read over an annotated `2018`: read 3 for 8). Written to digit-confusions.json by
 * scripts/digit-confusions.ts; the date's year is mended with it when the company's period says
 * the year read cannot be right (../date-period.ts).
 *
 * Pure and deterministic: the same readings give the same table.
 */
import type { OcrWord } from '../types';
import type { Segment } from './layout';

export interface DigitConfusions {
  /** Read digit -> true digit -> how often, out of `words` compared. */
  counts: Record<string, Record<string, number>>;
  /** OCR words compared with an annotated token of their length (read right or not). */
  words: number;
}

/** A digit read differs from the truth this often at least before it counts as a confusion. */
export const MIN_CONFUSIONS = 2;

const DIGIT = /^[0-9]$/;

/**
 * Counts one-digit slips: for each OCR word holding two or more digits, the annotated tokens
 * of its length on the segment under its centre; a token equal to it is a word read right, one
 * that differs in a single place, a digit on both sides, a slip (read digit -> true digit).
 */
export function countDigitConfusions(examples: ReadonlyArray<{ segments: readonly Segment[]; words: readonly OcrWord[] }>): DigitConfusions {
  const counts: Record<string, Record<string, number>> = {};
  let words = 0;
  for (const { segments, words: read } of examples) {
    for (const w of read) {
      if (!w.bbox || (w.text.match(/[0-9]/g)?.length ?? 0) < 2) continue;
      const cx = (w.bbox.x0 + w.bbox.x1) / 2;
      const cy = (w.bbox.y0 + w.bbox.y1) / 2;
      const tokens = segments
        .filter((s) => cx >= s.x0 && cx <= s.x1 && cy >= s.y0 && cy <= s.y1)
        .flatMap((s) => s.text.split(/\s+/))
        .filter((t) => t.length === w.text.length);
      if (tokens.length === 0) continue;
      words++;
      if (tokens.includes(w.text)) continue;
      // The first token that differs from the word in one place only, a digit both sides.
      for (const t of tokens) {
        const at = [...t].flatMap((c, k) => (c === w.text[k] ? [] : [k]));
        if (at.length !== 1) continue;
        const truth = t[at[0]!]!;
        const got = w.text[at[0]!]!;
        if (!DIGIT.test(truth) || !DIGIT.test(got)) continue;
        const row = (counts[got] ??= {});
        row[truth] = (row[truth] ?? 0) + 1;
        break;
      }
    }
  }
  return { counts: sortKeys(counts), words };
}

/** The digits a read digit was a slip for, most often first, each seen at least `min` times. */
export function slipsFor(table: DigitConfusions, read: string, min = MIN_CONFUSIONS): Array<{ digit: string; times: number }> {
  return Object.entries(table.counts[read] ?? {})
    .filter(([, n]) => n >= min)
    .map(([digit, times]) => ({ digit, times }))
    .sort((a, b) => b.times - a.times || a.digit.localeCompare(b.digit));
}

function sortKeys(counts: Record<string, Record<string, number>>): Record<string, Record<string, number>> {
  return Object.fromEntries(Object.keys(counts).sort().map((k) => [k, Object.fromEntries(Object.entries(counts[k]!).sort(([a], [b]) => a.localeCompare(b)))]));
}
