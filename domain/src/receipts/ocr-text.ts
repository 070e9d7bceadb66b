/**
 * OCR text as the field readers see it: numbered, trimmed lines, and helpers that tolerate the
 * usual recognition slips (`T0TAL`, `TOTAI`, `SUB TOTAL`, letters inside numbers).
 */
import type { OcrWord } from './types';

export interface ReceiptLine {
  /** Index among the non-empty lines, 0-based. */
  index: number;
  /** The line with runs of spaces collapsed to one. */
  text: string;
  /** Upper-cased `text` with digits that OCR confuses with letters read as letters, for label matching. */
  label: string;
}

/** Splits OCR text into non-empty lines. */
export function receiptLines(text: string): ReceiptLine[] {
  return text.split(/\r?\n/)
    .map((raw) => raw.replace(/[\t\u00a0\u2000-\u200b]+/g, ' ').replace(/ {2,}/g, ' ').trim())
    .filter((line) => line.length > 0)
    .map((line, index) => ({ index, text: line, label: labelForm(line) }));
}

/**
 * Upper case, with 0→O, 1→I, 5→S, 8→B inside words that are mostly letters, so `T0TAL` and
 * `TOTA1` read as TOTAL while `10.00` stays a number.
 */
export function labelForm(text: string): string {
  return text.toUpperCase().replace(/[A-Z0-9]+/g, (word) => {
    const letters = word.replace(/[^A-Z]/g, '').length;
    if (letters === 0 || letters < word.length / 2) return word;
    return word.replace(/0/g, 'O').replace(/1/g, 'I').replace(/5/g, 'S').replace(/8/g, 'B');
  });
}

/** Edit distance (insert, delete, substitute), small strings only. */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** Words of a label-form line (letters only, punctuation dropped). */
export function labelWords(label: string): string[] {
  return label.split(/[^A-Z]+/).filter((w) => w.length > 0);
}

/**
 * Whether `word` is `keyword` give or take one OCR slip: exact for short keywords, one edit
 * for five letters or more (TOTAI, T0TAL→TOTAL), two edits from ten letters.
 */
export function fuzzyWord(word: string, keyword: string): boolean {
  if (word === keyword) return true;
  // "rn" printed small reads as "m" and the other way round (ARNOUNT for AMOUNT).
  if (word.includes('RN') && fuzzyWord(word.replace(/RN/g, 'M'), keyword)) return true;
  if (keyword.length < 5 || Math.abs(word.length - keyword.length) > 1) return false;
  return levenshtein(word, keyword) <= (keyword.length >= 10 ? 2 : 1);
}

export type WordMatch = (word: string, keyword: string) => boolean;

export const exactWord: WordMatch = (word, keyword) => word === keyword;

/**
 * Whether the words contain `phrase` (space-separated keywords) as consecutive words, each
 * compared with `match` (fuzzy by default).
 */
export function hasPhrase(words: readonly string[], phrase: string, match: WordMatch = fuzzyWord): boolean {
  const parts = phrase.split(' ');
  for (let i = 0; i + parts.length <= words.length; i++) {
    if (parts.every((p, k) => match(words[i + k]!, p))) return true;
  }
  // OCR glues and splits labels ("SUBTOTAL" / "SUB TOTAL", "AMTDUE"): compare joined forms too.
  if (parts.length > 1) {
    const joined = parts.join('');
    return words.some((w, i) => match(w, joined) || (i + 1 < words.length && match(w + words[i + 1]!, joined)));
  }
  return false;
}

/** Average OCR confidence (0..1) of the words that make up `text`, or undefined without words. */
export function wordConfidence(text: string, words: readonly OcrWord[] | undefined): number | undefined {
  if (!words || words.length === 0) return undefined;
  const wanted = new Set(text.split(/\s+/).filter((t) => t.length > 0));
  const hits = words.filter((w) => wanted.has(w.text.trim()));
  if (hits.length === 0) return undefined;
  const mean = hits.reduce((sum, w) => sum + w.confidence, 0) / hits.length;
  return Math.max(0, Math.min(1, mean > 1 ? mean / 100 : mean));
}

export function clamp01(n: number): number {
  return Math.max(0, Math.min(1, n));
}
