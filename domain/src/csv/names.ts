/** Person names as people and card issuers write them, reduced to comparable parts. */

export interface NameParts {
  /** Given-name tokens (first one first), normalised. */
  first: string[];
  /** Family-name tokens, normalised. */
  last: string[];
}

export function normalizeName(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/ø/gi, 'o')
    .replace(/æ/gi, 'ae')
    .replace(/ł/gi, 'l')
    .toLowerCase()
    .replace(/[^a-z0-9,\s]/g, ' ')
    .trim();
}

const TITLES = new Set(['mr', 'mrs', 'ms', 'miss', 'dr', 'prof', 'sir', 'jr', 'sr', 'ii', 'iii', 'iv']);

function tokens(s: string): string[] {
  return normalizeName(s).replace(/,/g, ' ').split(/\s+/).filter((t) => t !== '' && !TITLES.has(t));
}

/** From first/last columns, or one name cell ('Last, First M.' or 'First M Last'). */
export function nameParts(firstName?: string, lastName?: string, fullName?: string): NameParts[] {
  const first = tokens(firstName ?? '');
  const last = tokens(lastName ?? '');
  if (first.length > 0 || last.length > 0) return [{ first, last }];
  const full = fullName ?? '';
  if (full.includes(',')) {
    const [lastPart = '', firstPart = ''] = full.split(',', 2);
    return [{ first: tokens(firstPart), last: tokens(lastPart) }];
  }
  const t = tokens(full);
  if (t.length < 2) return t.length === 1 ? [{ first: t, last: [] }] : [];
  // 'First Middle Last' is the usual reading; 'LAST FIRST' (some card exports) the other.
  return [
    { first: t.slice(0, -1), last: t.slice(-1) },
    { first: t.slice(0, 1), last: t.slice(1) },
    { first: t.slice(1), last: t.slice(0, 1) },
  ];
}

export type NameMatch = 'exact' | 'initial' | null;

/**
 * Does a provided name fit a member? Family names match when equal ignoring spaces and
 * hyphens, or when one's words are all in the other (compound surnames). Given names match
 * on the first given name, or on an initial ('J. Smith'), which is a weaker match.
 */
export function matchName(provided: NameParts, member: NameParts): NameMatch {
  if (provided.first.length === 0 || provided.last.length === 0) return null;
  if (member.first.length === 0 || member.last.length === 0) return null;
  const pl = provided.last.join('');
  const ml = member.last.join('');
  const lastOk = pl === ml
    || provided.last.every((t) => member.last.includes(t))
    || member.last.every((t) => provided.last.includes(t));
  if (!lastOk) return null;
  const pf = provided.first[0] ?? '';
  const mf = member.first[0] ?? '';
  if (pf === mf || provided.first.join('') === member.first.join('')) return 'exact';
  if (pf.length === 1 && mf.startsWith(pf)) return 'initial';
  return null;
}
