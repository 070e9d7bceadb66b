/**
 * How alike two merchant names are, 0..1, forgiving what differs between a receipt, its OCR
 * and a label or card statement: case, punctuation (MR. D.I.Y. / MR DIY), legal suffixes
 * (SDN BHD, SDN. BHD., S/B, LTD), word order and a few misread letters.
 */
import { levenshtein } from './ocr-text';

const LEGAL_SUFFIXES = /\b(SDN\s?BHD|S\s?B|BHD|BERHAD|PTE|LTD|LIMITED|LLC|LLP|INC|CORP|CORPORATION|GMBH|PLC|PTY|CO|M)\b/g;

/** Upper case, punctuation gone, legal suffixes dropped, single spaces. */
export function normaliseMerchant(name: string): string {
  return name.toUpperCase()
    .replace(/&/g, ' AND ')
    .replace(/[.']/g, '')
    .replace(/[^A-Z0-9]+/g, ' ')
    .replace(/\bS[DO0]N\s?B[HN]D\b/g, 'SDN BHD')
    .replace(LEGAL_SUFFIXES, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The larger of two views: the Levenshtein ratio of the normalised strings (misread letters)
 * and the token-set similarity (shared words over the shorter name's words, for reordered or
 * partly missing words), both 0..1.
 */
export function merchantSimilarity(a: string, b: string): number {
  const x = normaliseMerchant(a);
  const y = normaliseMerchant(b);
  if (x.length === 0 || y.length === 0) return 0;
  const ratio = 1 - levenshtein(x, y) / Math.max(x.length, y.length);
  return Math.max(ratio, tokenSetSimilarity(x.split(' '), y.split(' ')));
}

/** Shared tokens over the smaller set; tokens match when one OCR slip apart (5+ letters). */
function tokenSetSimilarity(xs: string[], ys: string[]): number {
  const [small, large] = xs.length <= ys.length ? [xs, ys] : [ys, xs];
  if (small.length === 1 && large.length > 2) return 0; // one shared word is not the same shop
  const matched = small.filter((t) => large.some((u) => t === u || (t.length >= 5 && levenshtein(t, u) <= 1))).length;
  return matched / small.length;
}
