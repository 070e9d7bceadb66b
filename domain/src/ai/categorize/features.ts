/**
 * What the linear model sees of a card line: the merchant key's words and character
 * n-grams, the concepts general knowledge gives its words, the processor, and the amount's
 * size. Features are sparse name -> value maps; the model keeps a vocabulary of names.
 */
import { conceptsOf, type Concept } from './lexicon';
import { describe } from './merchant';

export interface LineInput {
  description: string;
  /** Signed cents; negative is an expense. */
  amountCents: number;
}

export interface LineFeatures {
  merchantKey: string;
  concepts: Concept[];
  features: Map<string, number>;
}

function add(map: Map<string, number>, name: string, value: number): void {
  map.set(name, (map.get(name) ?? 0) + value);
}

export function lineFeatures(line: LineInput): LineFeatures {
  const d = describe(line.description);
  const concepts = conceptsOf(d.words, d.processor);
  const f = new Map<string, number>();
  for (const w of d.words) add(f, `w:${w}`, 1);
  for (let i = 0; i + 1 < d.words.length; i++) add(f, `b:${d.words[i]} ${d.words[i + 1]}`, 1);
  // Character 3- and 4-grams of each word with its boundaries: "STAPLES" shares "PLE" with nothing
  // useful, but "TOOLS" and "TOOL" share most of theirs.
  const grams: string[] = [];
  for (const w of d.words) {
    const padded = `^${w}$`;
    for (const n of [3, 4]) for (let i = 0; i + n <= padded.length; i++) grams.push(padded.slice(i, i + n));
  }
  const gramWeight = grams.length > 0 ? 1 / Math.sqrt(grams.length) : 0;
  for (const g of grams) add(f, `c:${g}`, gramWeight);
  for (const c of concepts) add(f, `k:${c}`, 1.5);
  if (d.processor !== null) add(f, `p:${d.processor}`, 1);
  if (d.place) add(f, 'place', 1);
  const abs = Math.abs(line.amountCents) / 100;
  // Size of the amount on a log scale, in overlapping buckets (each line lights two).
  const level = Math.log2(abs + 1);
  const bucket = Math.floor(level);
  const frac = level - bucket;
  add(f, `a:${bucket}`, 1 - frac);
  add(f, `a:${bucket + 1}`, frac);
  if (line.amountCents % 100 === 0) add(f, 'a:round', 1);
  if (line.amountCents > 0) add(f, 'a:credit', 1);
  return { merchantKey: d.key, concepts, features: f };
}
