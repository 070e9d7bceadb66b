/**
 * Merchant similarity, 0..1, between the merchant read from a receipt and a card descriptor.
 *
 * What a card network does to a name, and what answers it here:
 * - cuts it at 22 characters (processor code included): "LEONG HENG SHELL SERVI".
 *   Answer: an in-order alignment from the start of both names (`alignedScore`) in which a
 *   descriptor word may be a prefix of the receipt word, and receipt words past a cut count
 *   for little;
 * - appends a city, a state or a store number: "... SHAH ALAM", "#7717".
 *   Answer: descriptor words after the aligned name cost almost nothing;
 * - leaves out corporate filler ("TRADING", "SERVICES", "ENTERPRISE").
 *   Answer: word weights by class (lexicon.ts), and filler can be skipped in the alignment;
 * - the receipt side comes from OCR: 0/O, 1/I/L, 5/S, 8/B confusions, dropped letters.
 *   Answer: words are compared after folding look-alike characters, then by Levenshtein
 *   distance (at most one edit per word of 4-7 letters, two from 8);
 * - words may come in another order, or be glued together ("CHICKEN LAND").
 *   Answer: an unordered coverage of the receipt's words (`coverageScore`), a compact
 *   prefix comparison and a character-trigram Dice coefficient as fall-backs.
 * The result is the maximum of these views. Each is strict on its own (weights, minimum
 * lengths, edit budgets), so the maximum stays low for different merchants: two names
 * sharing only "HYPERMARKET" or "SHELL" score around 0.2-0.4.
 *
 * Levenshtein rather than Jaro-Winkler per word: Jaro-Winkler rewards a shared beginning,
 * which here is either a real truncation (handled explicitly, with its own score) or a
 * coincidence between different words ("KEDAI" / "KEDAH"); an edit budget is easier to
 * reason about for OCR errors.
 */
import { looksLikeRestaurant, wordWeight } from './lexicon';
import { foldText, stripBankWording, stripProcessorPrefix, wordSpansInFolded, wordsOfFolded } from './normalize';
import type { WordSpan } from './normalize';
import { foldedWordSimilarity, ocrFold } from './words';

/** A merchant name or descriptor, normalised once and reused for every comparison. */
export interface MerchantName {
  words: readonly string[];
  /** Words with look-alike characters folded (see {@link ocrFold}). */
  folded: readonly string[];
  /** Start of each word in the normalised name (words joined by one space). */
  offsets: readonly number[];
  /** Where each word sits in the raw text, processor code included (see wordSpansInFolded). */
  spans: readonly WordSpan[];
  weights: readonly number[];
  /** Folded words joined without spaces. */
  compact: string;
  /** Weight of each character of `compact`: its word's weight. */
  compactWeights: readonly number[];
  /** Folded words of full weight (no filler, category or single letters) joined: for Dice. */
  distinctive: string;
  /** Character trigrams of `distinctive` as sorted numeric codes (repeats kept). */
  grams: readonly number[];
  /** Processor code cut from the front ("SQ", "TST", "POS"), or null. */
  processor: string | null;
  restaurant: boolean;
}

/** Only this many leading characters of a name are compared by the compact prefix view. */
const CARD_NAME_LIMIT = 25;
/** Receipt words that start this far in are likely cut from a card descriptor. */
const RECEIPT_CUT_OFFSET = 18;
/** A word pair below this similarity is not a match. */
const WORD_MATCH_MIN = 0.5;

function buildName(folded: string, words: readonly string[], processor: string | null): MerchantName {
  const offsets: number[] = [];
  let at = 0;
  for (const w of words) {
    offsets.push(at);
    at += w.length + 1;
  }
  const foldedWords = words.map(ocrFold);
  const weights = words.map((w, i) => {
    const base = wordWeight(w);
    return i === 0 && base === 1 ? 1.5 : base;
  });
  const distinctive = foldedWords.filter((_, i) => wordWeight(words[i] ?? '') === 1).join('');
  const compactWeights = foldedWords.flatMap((w, i) => Array.from({ length: w.length }, () => weights[i] ?? 0));
  return {
    words, folded: foldedWords, offsets, spans: wordSpansInFolded(folded, words), weights, compact: foldedWords.join(''), compactWeights,
    distinctive, grams: trigrams(distinctive), processor, restaurant: looksLikeRestaurant(words, processor),
  };
}

/**
 * A receipt's merchant, ready to compare: read without its parenthesised asides (a branch,
 * "(M)" for Malaysia) and, when it has some, also with them, since some descriptors keep
 * them. Processor codes are a card-network thing: a receipt's "POS MALAYSIA" is the postal
 * service, so nothing is cut here.
 */
export function prepareMerchant(raw: string): MerchantName[] {
  const folded = foldText(raw);
  const plain = wordsOfFolded(folded, false);
  const withAsides = wordsOfFolded(folded, false, true);
  const readings = [buildName(folded, plain, null)];
  if (withAsides.join(' ') !== plain.join(' ')) readings.push(buildName(folded, withAsides, null));
  return readings;
}

/**
 * A card descriptor, ready to compare: the card's merchant field (bank wording cut, so that
 * word positions count from where the 22 characters start), read with its processor code
 * cut and, when a code was cut, uncut as a second reading ("POS MALAYSIA" is a merchant).
 */
export function prepareDescriptor(raw: string): MerchantName[] {
  const field = stripBankWording(foldText(raw));
  const { processor } = stripProcessorPrefix(field);
  const cut = buildName(field, wordsOfFolded(field, true), processor);
  if (processor === null) return [cut];
  return [cut, buildName(field, wordsOfFolded(field, false), null)];
}

/**
 * Card networks cut the name at 22 characters (Mastercard; Visa allows 25), sometimes one
 * less when the 22nd is a space. A descriptor word ending in that window may be cut short,
 * if it is the last word of the name: nothing follows, or what follows (a city, a store
 * number) starts after the cut. In "SYARIKAT PERNIAGAAN GI" the cut word is "GI", not
 * "PERNIAGAAN", which ends at 19 but is followed by more name.
 */
const CUT_FROM = 19;
const CUT_TO = 25;
const CUT_AT = 22;

/** True when descriptor word j is the last word of a name cut by the card network. */
function mayBeCutAt(d: MerchantName, j: number): boolean {
  const end = d.spans[j]?.end ?? 0;
  if (end < CUT_FROM || end > CUT_TO) return false;
  const next = d.spans[j + 1];
  return next === undefined || next.start >= CUT_AT;
}

/**
 * Word i of the receipt against word j of the descriptor. A cut word is only credited in
 * the in-order view (`inOrder`): out of order, the receipt's first word meeting the
 * descriptor's cut last word ("HARDAH" / "... YATI HARD") is a coincidence, not a cut.
 */
function pairSimilarity(r: MerchantName, i: number, d: MerchantName, j: number, inOrder: boolean): number {
  const mayBeCut = inOrder && mayBeCutAt(d, j);
  return foldedWordSimilarity(r.words[i] ?? '', d.words[j] ?? '', r.folded[i] ?? '', d.folded[j] ?? '', mayBeCut);
}

/**
 * Weight a receipt word loses when it is missing from the descriptor: less for words that
 * start where card descriptors are usually cut (they may simply be gone). A word that is
 * found counts with its full weight.
 */
function missingWeight(r: MerchantName, i: number): number {
  const w = r.weights[i] ?? 0;
  return (r.offsets[i] ?? 0) >= RECEIPT_CUT_OFFSET ? w * 0.35 : w;
}

/**
 * Both names read from the start, in order. Low-weight words on either side may be skipped
 * (descriptors drop filler). When the descriptor runs out of matching words, the rest of the
 * receipt counts fully unless the descriptor looks cut (its last matched word is a prefix of
 * the receipt word, or it ends where cards cut names), and the descriptor's own
 * leftover words (city, state) cost almost nothing.
 */
export function alignedScore(r: MerchantName, d: MerchantName): number {
  let i = 0;
  let j = 0;
  let num = 0;
  let den = 0;
  let lastCut = false;
  let lastMatched = -1;
  while (i < r.words.length && j < d.words.length) {
    const s = pairSimilarity(r, i, d, j, true);
    if (s >= WORD_MATCH_MIN) {
      const w = r.weights[i] ?? 0;
      num += w * s;
      den += w;
      const dw = d.folded[j] ?? '';
      const rw = r.folded[i] ?? '';
      lastCut = dw.length < rw.length && rw.startsWith(dw);
      lastMatched = j;
      i++;
      j++;
    } else if ((r.weights[i] ?? 1) <= 0.4) {
      den += missingWeight(r, i) * 0.5;
      i++;
    } else if ((d.weights[j] ?? 1) <= 0.4) {
      j++;
    } else break;
  }
  if (lastMatched < 0) return 0;
  const cut = lastCut || mayBeCutAt(d, lastMatched);
  for (; i < r.words.length; i++) den += missingWeight(r, i) * (cut ? 0.15 : 1);
  den += 0.03 * (d.words.length - j);
  return den > 0 ? num / den : 0;
}

/**
 * Share of the receipt's word weight found anywhere in the descriptor, each descriptor word
 * used once (best pairs first). Copes with word order; ignores extra descriptor words; cut
 * words are not credited here (see pairSimilarity).
 */
export function coverageScore(r: MerchantName, d: MerchantName): number {
  const pairs: Array<[number, number, number]> = [];
  for (let i = 0; i < r.words.length; i++) {
    for (let j = 0; j < d.words.length; j++) {
      const s = pairSimilarity(r, i, d, j, false);
      if (s >= WORD_MATCH_MIN) pairs.push([s, i, j]);
    }
  }
  pairs.sort((a, b) => b[0] - a[0] || a[1] - b[1] || a[2] - b[2]);
  const usedR = new Set<number>();
  const usedD = new Set<number>();
  let num = 0;
  let den = 0;
  for (const [s, i, j] of pairs) {
    if (usedR.has(i) || usedD.has(j)) continue;
    usedR.add(i);
    usedD.add(j);
    num += (r.weights[i] ?? 0) * s;
    den += r.weights[i] ?? 0;
  }
  for (let i = 0; i < r.words.length; i++) if (!usedR.has(i)) den += missingWeight(r, i);
  return den > 0 ? num / den : 0;
}

/**
 * Common prefix of the two names with spaces removed, allowing one substitution per eight
 * characters (OCR): catches glued or split words ("CHICKENLAND" / "CHICKEN LAND"). Characters
 * weigh what their receipt word weighs, so a shared run of filler ("SYARIKAT PERNIAGAAN")
 * proves little. Full credit only when the prefix runs through the shorter name (one name
 * is the other, cut or glued differently); a prefix that stops early is scored against the
 * whole receipt name. Needs six shared characters.
 */
export function compactPrefixScore(r: MerchantName, d: MerchantName): number {
  const a = r.compact;
  const b = d.compact;
  const n = Math.min(a.length, b.length, CARD_NAME_LIMIT);
  let edits = 0;
  let common = 0;
  let through = true;
  let matched = 0;
  let matchedUpToCommon = 0;
  for (let k = 0; k < n; k++) {
    if (a[k] !== b[k]) {
      edits++;
      if (edits > Math.floor((k + 1) / 8)) {
        through = false;
        break;
      }
      continue;
    }
    matched += r.compactWeights[k] ?? 0;
    common = k + 1;
    matchedUpToCommon = matched;
  }
  if (common < 6) return 0;
  let den = 0;
  const span = through ? n : a.length;
  for (let k = 0; k < span; k++) den += r.compactWeights[k] ?? 0;
  return den > 0 ? Math.min(1, matchedUpToCommon / den) : 0;
}

/** Character trigrams (padded) as sorted numbers: intersecting two is a merge, no hashing. */
function trigrams(s: string): number[] {
  const padded = `  ${s} `;
  const grams: number[] = [];
  for (let k = 0; k + 3 <= padded.length; k++) {
    grams.push((padded.charCodeAt(k) * 65_536 + padded.charCodeAt(k + 1)) * 65_536 + padded.charCodeAt(k + 2));
  }
  return grams.sort((a, b) => a - b);
}

/**
 * Dice coefficient of character trigrams of the distinctive words (filler and shop categories
 * left out, so "CHECKERS HYPERMARKET" and "GIANT HYPERMARKET" share nothing), rescaled so
 * that the ~0.35 two unrelated short names reach by chance maps to 0. Robust to scattered OCR
 * noise and to split or glued words.
 */
export function trigramDice(r: MerchantName, d: MerchantName): number {
  if (r.distinctive.length < 4 || d.distinctive.length < 4) return 0;
  const a = r.grams;
  const b = d.grams;
  let common = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    const x = a[i] ?? 0;
    const y = b[j] ?? 0;
    if (x === y) {
      common++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  const dice = (2 * common) / (a.length + b.length);
  return Math.max(0, (dice - 0.35) / 0.65);
}

/**
 * A view this sure settles it: the fall-backs only ever rescue names the word views missed,
 * and near 1 the merchant factor is flat (factors.ts: 0.992 at 0.97), so looking further
 * would cost time and change no confidence by a whole point.
 */
const EARLY_EXIT = 0.97;

/** Similarity of prepared names: the best of the views described at the top of this file. */
export function nameSimilarity(r: MerchantName, d: MerchantName): number {
  if (r.words.length === 0 || d.words.length === 0) return 0;
  let score = alignedScore(r, d);
  if (score >= EARLY_EXIT) return Math.min(1, score);
  score = Math.max(score, 0.9 * coverageScore(r, d), compactPrefixScore(r, d));
  if (score >= EARLY_EXIT) return Math.min(1, score);
  return Math.min(1, Math.max(score, trigramDice(r, d)));
}

/** Best similarity over the readings of both sides (asides kept or not, processor code cut or not). */
export function similarityToDescriptor(receipt: readonly MerchantName[], descriptor: readonly MerchantName[]): number {
  let best = 0;
  for (const r of receipt) for (const d of descriptor) best = Math.max(best, nameSimilarity(r, d));
  return best;
}

/**
 * Merchant similarity, 0..1, of a receipt's merchant and a card descriptor: 1 for the same
 * name, around 0.85-1 for the same shop as printed by a card network, below 0.35 for
 * different shops.
 */
export function merchantSimilarity(receiptMerchant: string, descriptor: string): number {
  return similarityToDescriptor(prepareMerchant(receiptMerchant), prepareDescriptor(descriptor));
}
