import { toCents, type Filter } from '@paperlink/domain';

/** The longest search the lists take (longer text is no one's merchant). */
export const SEARCH_MAX = 100;

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The text a transaction search looks in: the description (the merchant as the bank wrote it) and the statement's file name. */
export const TRANSACTION_SEARCH_FIELDS = ['description', 'fileName'] as const;
/** The text a receipt search looks in: the merchant and description read (or corrected) and the file name. */
export const RECEIPT_SEARCH_FIELDS = ['extracted_merchant', 'extracted_description', 'original_filename'] as const;

/** The size in cents a search names when it reads as an amount ("45", "45.00", "$1,045.50", "-45"), else null. */
export function searchedCents(q: string): number | null {
  const plain = q.trim().replace(/^-/, '').replace(/^\$/, '').replace(/,/g, '');
  if (!/^\d+(\.\d{1,2})?$/.test(plain)) return null;
  return toCents(Math.abs(Number(plain)));
}

/**
 * One search box over several fields: the text found anywhere in one of `textFields` (any case),
 * or, when it reads as an amount, that size in `amountField`. Null for a blank search.
 */
export function searchClause(q: string | undefined, textFields: readonly string[], amountField: string): Filter | null {
  const text = q?.trim().replace(/\s+/g, ' ');
  if (!text) return null;
  const pattern = { $regex: escapeRegex(text), $options: 'i' };
  const or: Filter[] = textFields.map((f) => ({ [f]: pattern }));
  const cents = searchedCents(text);
  if (cents !== null) or.push({ [amountField]: cents });
  return { $or: or };
}
