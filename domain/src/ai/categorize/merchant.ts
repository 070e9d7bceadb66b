/**
 * Card descriptors brought to a merchant key: the same shop reads the same whatever the
 * store number, the processor prefix, the pending mark or the city it was charged in.
 * "TST* PANERA BREAD #1068" -> "PANERA BREAD", "HAMPTON INN AUSTIN TX PENDING" -> "HAMPTON INN",
 * "AMZN MKTP US*1076" -> "AMZN MKTP US".
 */
import { foldText, stripProcessorPrefix } from '../../matching/normalize';
import { isConceptWord } from './lexicon';

/** Marks a bank adds to an authorisation that has not settled yet. */
const PENDING_WORDS = new Set(['PENDING', 'PEND', 'PENDNG', 'AUTH', 'PREAUTH', 'AUTHORIZATION', 'HOLD', 'TEMP']);

/** Two-letter codes of US states and Canadian provinces, as card descriptors end with them. */
const REGIONS = new Set(
  ('AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC ' +
    'AB BC MB NB NL NS ON PE QC SK').split(' '),
);

/** First words of US place names made of two words ("SAN ANTONIO", "FORT WORTH"). */
const CITY_FIRST = new Set(['SAN', 'SANTA', 'LOS', 'LAS', 'NEW', 'FORT', 'FT', 'ST', 'SAINT', 'SALT', 'EL', 'PALM', 'GRAND', 'COLORADO', 'CORPUS', 'BATON', 'BOWLING', 'CEDAR', 'OVERLAND', 'WEST', 'EAST', 'NORTH', 'SOUTH']);

export interface Descriptor {
  /** Normalised merchant key: the memory's key and the model's text. */
  key: string;
  /** Words of the key. */
  words: string[];
  /** Processor code cut from the front ("SQ", "TST"), or null. */
  processor: string | null;
  /** True when the descriptor carried a pending mark. */
  pending: boolean;
  /** True when a city and state were cut from the end. */
  place: boolean;
}

/** Letters, digits, '&' inside words (AT&T, PG&E); apostrophes vanish (MCDONALD'S -> MCDONALDS). */
function tokens(text: string): string[] {
  return text
    .replace(/'/g, '')
    .split(/[^A-Z0-9&]+/)
    .map((w) => w.replace(/^&+|&+$/g, ''))
    .filter((w) => w.length > 0);
}

export function describe(raw: string): Descriptor {
  const folded = foldText(raw);
  const { processor, rest } = stripProcessorPrefix(folded);
  // "*1076" and "*ABC123" suffixes are reference codes; "ADOBE *CREATIVE CLD" keeps its words.
  const cleaned = rest.replace(/\*\s*[A-Z0-9]*\d[A-Z0-9]*\b/g, ' ').replace(/#\s*[A-Z0-9-]+/g, ' ');
  let words = tokens(cleaned);
  const pending = words.some((w) => PENDING_WORDS.has(w));
  words = words.filter((w) => !PENDING_WORDS.has(w) && !/\d/.test(w));
  let place = false;
  const last = words[words.length - 1];
  if (words.length >= 3 && last !== undefined && REGIONS.has(last)) {
    words.pop();
    // The city before the state: one word, two when the first is a usual first word of a place.
    // A word that names a kind of shop is no city: "NORTHERN SAFETY CO" is a company.
    if (!isConceptWord(words[words.length - 1] ?? '')) {
      words.pop();
      if (words.length >= 2 && CITY_FIRST.has(words[words.length - 1] ?? '')) words.pop();
      place = true;
    }
  }
  if (words.length === 0) words = tokens(folded).filter((w) => !PENDING_WORDS.has(w));
  return { key: words.join(' '), words, processor, pending, place };
}

/** The merchant key alone. */
export function merchantKey(raw: string): string {
  return describe(raw).key;
}
