/**
 * Merchant and card-descriptor normalisation.
 *
 * A receipt prints the registered name ("MR. D.I.Y. (M) SDN BHD"); the card statement prints
 * what the acquirer sent ("SQ *MR D I Y M KUALA LUMPUR #0042"). Both are brought to the same
 * alphabet here: upper case, no accents, no punctuation, no processor prefix, no store or
 * reference numbers, no legal form. What is left (trading words, a city, a truncated tail)
 * is the similarity's job (see similarity.ts), not a list's: lists of cities never end.
 */

/**
 * Payment processors and POS vendors that put their own code before the merchant, always
 * followed by `*` on the card network ("SQ *", "TST* ", "PAYPAL *"). Only these codes are
 * cut: a merchant can use `*` itself ("GRAB* RIDE", "UBER *EATS", "GOOGLE *CLOUD"), where the
 * part before the star is the merchant and must stay.
 */
const STAR_PROCESSORS = [
  'SQ', 'TST', 'PAYPAL', 'PP', 'SP', 'CKO', 'IZ', 'ZETTLE', 'IZETTLE', 'SUMUP', 'SUM', 'TOAST', 'CLV', 'CLOVER',
  'PY', 'EB', 'FS', 'DNH', 'WPY', 'PAR', 'BT', 'LS', 'SPO', 'STRIPE', 'STR', 'PADDLE', 'MOLLIE', 'ADYEN', 'KLARNA',
  'AFTERPAY', 'AFT', 'RAZ', 'IPAY88', 'MOLPAY', 'SHOPIFY', 'SQU', 'GPAY', 'APPLEPAY',
] as const;

const STAR_PREFIX = new RegExp(`^(${STAR_PROCESSORS.join('|')})[\\s_]*\\*\\s*`);

/**
 * Words banks put before the merchant on debit-card and checking exports. Optional trailing
 * dates ("PURCHASE AUTHORIZED ON 03/14") and card digits ("CHECKCARD 0314") go with them.
 * "POS " alone is kept apart (see {@link stripProcessorPrefix}) because of merchants such as
 * "POS MALAYSIA".
 */
const BANK_PREFIX = new RegExp(
  '^(' + [
    'PURCHASE AUTHORI[SZ]ED ON \\d{1,2}[/.-]\\d{1,2}(?:[/.-]\\d{2,4})?',
    'RECURRING PAYMENT AUTHORI[SZ]ED ON \\d{1,2}[/.-]\\d{1,2}',
    'CHECKCARD \\d{4}', 'CHECK CARD \\d{4}', 'DEBIT CARD PURCHASE', 'DEBIT PURCHASE', 'CARD PURCHASE',
    'VISA PURCHASE', 'VISA DEBIT', 'POS PURCHASE', 'POS DEBIT', 'POS SALE', 'DBT CRD \\d{4}', 'RECURRING PAYMENT',
    'PREAUTHORI[SZ]ED DEBIT', 'CONTACTLESS', 'CARD \\d{4}',
  ].join('|') + ')\\s+',
);

/** "POS " (point of sale) as a bare prefix, cut only when a name follows it. */
const POS_PREFIX = /^POS\s+(?=\S)/;

/** Legal forms that never belong to a trading name: dropped wherever they stand. */
const LEGAL_ANYWHERE = new Set(['SDN', 'BHD', 'BERHAD', 'LLC', 'LLP', 'LTD', 'GMBH', 'PLC', 'PTE', 'PTY', 'INC', 'SB']);

/**
 * Legal forms that are also ordinary words ("CO" in "CO OP", "LIMITED EDITION"): dropped only
 * at the end of the name. "ENTERPRISE" and "TRADING" are not legal forms (in Malaysia they are
 * part of a registered business name): similarity weighs them low instead of deleting them.
 */
const LEGAL_TRAILING = new Set(['CO', 'CORP', 'CORPORATION', 'COMPANY', 'LIMITED', 'INCORPORATED', 'BV', 'NV', 'SARL', 'SRL', 'AG', 'SA', 'AB', 'OY']);

/** Web noise: "NETFLIX.COM" and "WWW.AGODA.COM" should compare as NETFLIX and AGODA. */
const WEB_NOISE = new Set(['WWW', 'COM', 'HTTP', 'HTTPS']);

export interface ProcessorSplit {
  /** The processor or bank code that was cut ("SQ", "TST", "POS"), or null. */
  processor: string | null;
  rest: string;
}

/** Upper case, accents folded (É -> E), typographic quotes made plain, whitespace collapsed. */
export function foldText(raw: string): string {
  return raw
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[\u2018\u2019\u02bc`´]/g, "'")
    .toUpperCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/** Cuts bank wording ("PURCHASE AUTHORIZED ON 03/14 ") from folded text: what is left is the card's merchant field. */
export function stripBankWording(folded: string): string {
  let rest = folded;
  for (let guard = 0; guard < 3; guard++) {
    const bank = BANK_PREFIX.exec(rest);
    if (!bank) break;
    rest = rest.slice(bank[0].length);
  }
  return rest;
}

/**
 * Cuts bank wording and one processor code from the start of a descriptor (text already
 * folded). Returns which code was cut so that callers can keep an uncut variant ("POS
 * MALAYSIA") and use the code as a hint (TST* is Toast, a restaurant POS).
 */
export function stripProcessorPrefix(folded: string): ProcessorSplit {
  const rest = stripBankWording(folded);
  const star = STAR_PREFIX.exec(rest);
  if (star && star[0].length < rest.length) return { processor: star[1] ?? null, rest: rest.slice(star[0].length) };
  const pos = POS_PREFIX.exec(rest);
  if (pos) return { processor: 'POS', rest: rest.slice(pos[0].length) };
  return { processor: null, rest };
}

/** Store numbers, phone numbers, card masks and reference codes: none of them name a merchant. */
function dropNumbers(text: string): string {
  return text
    .replace(/\b\d{3}[-. ]\d{3}[-. ]\d{4}\b/g, ' ')
    .replace(/\b(?:STORE|STR|SHOP|BRANCH|OUTLET|UNIT)\.?\s*#?\s*\d+\b/g, ' ')
    .replace(/#\s*[A-Z]?\d+[A-Z]?\b/g, ' ')
    .replace(/\bX{2,}\d+\b/g, ' ')
    .replace(/\b\d{4,}\b/g, ' ')
    .replace(/\b(?=[A-Z0-9]*\d[A-Z0-9]*\d[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{6,}\b/g, ' ');
}

/** Parenthesised asides on receipts are branches or country marks: "(JALAN KLANG LAMA)", "(M)". */
function dropAsides(text: string): string {
  return text.replace(/\([^)]*(?:\)|$)/g, ' ').replace(/\[[^\]]*(?:\]|$)/g, ' ');
}

/** "S/B" and "S.B." are the Malaysian short form of Sdn Bhd. */
function dropSlashForms(text: string): string {
  return text.replace(/\bS\s*[/.]\s*B\b\.?/g, ' ');
}

/** Letters and digits only; apostrophes vanish (NANDO'S -> NANDOS), other marks split words. */
function toWords(text: string): string[] {
  return text
    .replace(/'/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter((w) => w.length > 0);
}

/** Runs of single letters are one spelled-out word: "D I Y" (from "D.I.Y.") -> "DIY". */
export function joinSpelledLetters(words: readonly string[]): string[] {
  const out: string[] = [];
  let run = '';
  const flush = () => {
    if (run.length > 0) out.push(run);
    run = '';
  };
  for (const w of words) {
    if (w.length === 1 && /\p{L}/u.test(w)) {
      run += w;
      continue;
    }
    flush();
    out.push(w);
  }
  flush();
  return out;
}

/** "SDN BHD" as OCR reads it off faded thermal paper: "SON BHD", "S0N BND". */
const OCR_SDN = /^S[DO0]N$/;
const OCR_BHD = /^B[HN]D$/;

/** Legal forms out: anywhere for unambiguous ones, repeatedly from the end for the others. */
export function dropLegalForms(words: readonly string[]): string[] {
  const kept = words.filter((w, i) => {
    if (LEGAL_ANYWHERE.has(w) || WEB_NOISE.has(w)) return false;
    if (OCR_SDN.test(w) && OCR_BHD.test(words[i + 1] ?? '')) return false;
    return !(OCR_BHD.test(w) && OCR_SDN.test(words[i - 1] ?? ''));
  });
  while (kept.length > 1 && LEGAL_TRAILING.has(kept[kept.length - 1] ?? '')) kept.pop();
  return kept;
}

/**
 * Words of a merchant name or a card descriptor, normalised. An empty result falls back to
 * the plain words so that a name made only of noise ("SDN BHD") still compares to something.
 */
export function merchantWords(raw: string, options: { stripProcessor?: boolean } = {}): string[] {
  return wordsOfFolded(foldText(raw), options.stripProcessor ?? true);
}

/**
 * {@link merchantWords} for text already passed through {@link foldText}. With `keepAsides`
 * a parenthesised aside stays as words: card descriptors sometimes keep it
 * ("MR D.I.Y. (M)" -> "MR D I Y M").
 */
export function wordsOfFolded(folded: string, stripProcessor: boolean, keepAsides = false): string[] {
  const body = stripProcessor ? stripProcessorPrefix(folded).rest : folded;
  const cleaned = dropNumbers(dropSlashForms(keepAsides ? body : dropAsides(body)));
  const words = dropLegalForms(joinSpelledLetters(toWords(cleaned)));
  return words.length > 0 ? words : joinSpelledLetters(toWords(folded));
}

/**
 * The normalised name as one string: "SQ *Nando's Chickenland #12" -> "NANDOS CHICKENLAND",
 * "MR. D.I.Y. (M) SDN. BHD." -> "MR DIY".
 */
export function normalizeMerchant(raw: string): string {
  return merchantWords(raw).join(' ');
}

/** Where a normalised word sits in the raw text: [start, end) in characters. */
export interface WordSpan {
  start: number;
  end: number;
}

/**
 * Where each normalised word ends in the raw text (folded, processor code included), in
 * characters: tells whether a descriptor word stands where a card network cuts names (22
 * characters), which the normalised text alone hides ("B & BEST" lost two characters).
 */
export function wordEndsInRaw(raw: string, words: readonly string[]): number[] {
  return wordSpansInFolded(foldText(raw), words).map((s) => s.end);
}

/**
 * Spans of the normalised words in text already passed through {@link foldText}. A word
 * that cannot be traced (it should not happen) is placed just after the previous one.
 */
export function wordSpansInFolded(folded: string, words: readonly string[]): WordSpan[] {
  const atoms = [...folded.matchAll(/[\p{L}\p{N}']+/gu)].map((m) => ({
    text: m[0].replace(/'/g, ''),
    start: m.index ?? 0,
    end: (m.index ?? 0) + m[0].length,
  }));
  const spans: WordSpan[] = [];
  let k = 0;
  let last = 0;
  for (const word of words) {
    let probe = k;
    while (probe < atoms.length && !(atoms[probe]?.text && word.startsWith(atoms[probe]?.text ?? ''))) probe++;
    const start = atoms[probe]?.start ?? last + 1;
    let acc = '';
    let end = -1;
    while (probe < atoms.length && acc.length < word.length) {
      const atom = atoms[probe]?.text ?? '';
      if (!word.startsWith(acc + atom)) break;
      acc += atom;
      end = atoms[probe]?.end ?? end;
      probe++;
    }
    if (end < 0 || acc !== word) {
      spans.push({ start: last + 1, end: last + 1 + word.length });
    } else {
      spans.push({ start, end });
      k = probe;
    }
    last = spans[spans.length - 1]?.end ?? last;
  }
  return spans;
}
