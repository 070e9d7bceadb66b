/**
 * Word against word: OCR look-alikes, cut words, abbreviations and typos. The name-level
 * views in similarity.ts are built on {@link foldedWordSimilarity}.
 */
import { wordWeight } from './lexicon';

/**
 * Look-alike characters mapped to one representative, for OCR: 0/O/Q, 1/I/L/|, 5/S, 8/B,
 * 2/Z, 6/G, and "RN"/"M", "VV"/"W". Only used to compare, never shown.
 */
export function ocrFold(word: string): string {
  return word
    .replace(/RN/g, 'M')
    .replace(/VV/g, 'W')
    .replace(/[0Q]/g, 'O')
    .replace(/[1L|!]/g, 'I')
    .replace(/5/g, 'S')
    .replace(/8/g, 'B')
    .replace(/2/g, 'Z')
    .replace(/6/g, 'G');
}

/** Scratch rows for {@link levenshtein}: words are short, so two small buffers serve every call. */
let rowA = new Int32Array(64);
let rowB = new Int32Array(64);

/** Levenshtein distance, giving up (returning limit + 1) once it exceeds `limit`. */
export function levenshtein(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  if (rowA.length <= b.length) {
    rowA = new Int32Array(b.length + 1);
    rowB = new Int32Array(b.length + 1);
  }
  let prev = rowA;
  let cur = rowB;
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1;
      const v = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > limit) return limit + 1;
    [prev, cur] = [cur, prev];
  }
  return prev[b.length] ?? 0;
}

/**
 * Similarity of two words, 0..1, from their OCR-folded forms. Exact 1; look-alikes 0.95.
 * A descriptor word `b` that is a prefix of the receipt word and stands where the card cut
 * the name (`bMayBeCut`) scores 0.82-0.97 from two letters on, 0.5-0.7 for one ("O" for
 * "ORING"). Elsewhere a prefix needs 75 % of the longer word (0.8-0.9: "DIY" / "DIYM").
 * A vowel-dropped abbreviation of the receipt word ("MKT" / "MARKET") scores 0.8. Then
 * Levenshtein within the edit budget (one edit up to 7 letters, and no substitution below 6;
 * two from 8): 1 - distance / length. Otherwise 0. Numbers only match themselves.
 */
export function foldedWordSimilarity(a: string, b: string, foldedA: string, foldedB: string, bMayBeCut: boolean): number {
  if (a === b) return 1;
  if (/^\d+$/.test(a) || /^\d+$/.test(b)) return 0;
  if (foldedA === foldedB) return 0.95;
  const [short, long] = foldedA.length <= foldedB.length ? [foldedA, foldedB] : [foldedB, foldedA];
  if (long.startsWith(short)) {
    const share = short.length / long.length;
    if (bMayBeCut && short === foldedB) return short.length >= 2 ? 0.82 + 0.15 * share : 0.5 + 0.2 * share;
    return short.length >= 3 && share >= 0.75 ? 0.5 + 0.4 * share : 0;
  }
  if (isAbbreviation(foldedB, foldedA)) return 0.8;
  // A mark at the receipt's edge read as a letter glued to the word ("TLIM" for "LIM"): a
  // distinctive descriptor word whole at the end of a receipt word one letter longer, scored as
  // the prefix case above. Only this way round (descriptors are printed, not read), and not for
  // filler or category words ("XBAR" would then weigh as a name where "BAR" weighs little).
  if (foldedA.length === foldedB.length + 1 && foldedB.length >= 3 && foldedA.endsWith(foldedB) && wordWeight(b) === 1) return 0.5 + 0.4 * (foldedB.length / foldedA.length);
  if (short.length < 4) return 0;
  // In short words one substitution makes another name (YAPHO / HAPHO); OCR's own
  // substitutions are the look-alikes folded above, so only a dropped letter is forgiven.
  if (long.length < 6 && short.length === long.length) return 0;
  const budget = long.length >= 8 ? 2 : 1;
  const distance = levenshtein(foldedA, foldedB, budget);
  return distance <= budget ? 1 - distance / long.length : 0;
}

/**
 * Descriptors shorten words by dropping vowels: "MKT" for MARKET, "FDS" for FOODS, "AMZN"
 * for AMAZON, "INTL". An abbreviation here has three letters or more, the same first letter,
 * no vowel after it, and its letters in order in the word.
 */
function isAbbreviation(abbr: string, word: string): boolean {
  if (abbr.length < 3 || abbr.length >= word.length || abbr[0] !== word[0] || /[AEIOUY\d]/.test(abbr.slice(1))) return false;
  let k = 1;
  for (let i = 1; i < word.length && k < abbr.length; i++) if (word[i] === abbr[k]) k++;
  return k === abbr.length;
}

/** Similarity of a receipt word `a` and a descriptor word `b` (see foldedWordSimilarity). */
export function wordSimilarity(a: string, b: string, options: { bMayBeCut?: boolean } = {}): number {
  return foldedWordSimilarity(a, b, ocrFold(a), ocrFold(b), options.bMayBeCut ?? false);
}
