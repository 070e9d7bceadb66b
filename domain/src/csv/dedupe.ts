/**
 * Duplicates: same date, description and amount (the spec's rule). The description is
 * compared with case and runs of whitespace ignored. They are counted as a multiset: a
 * statement may rightly hold the same line twice.
 */
import type { Cents } from '../core/money';

export function normalizeDescription(description: string): string {
  return description.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

export function transactionDedupKey(date: string, description: string, amountCents: Cents): string {
  return `${date}|${amountCents}|${normalizeDescription(description)}`;
}

/**
 * Duplicates as a multiset: a row is a duplicate only as many times as the company already
 * holds its key. Identical rows inside one file are all kept (two coffees on one day are two
 * purchases); a file imported again finds each of its rows held, so it adds nothing; a file
 * with three identical rows where the company holds one adds two. Rows are taken in order:
 * the first `held(key)` rows with a key are the skipped ones.
 */
export function skipHeldDuplicates<T>(rows: readonly T[], keyOf: (row: T) => string, held: (key: string) => number): { kept: T[]; skipped: T[] } {
  const matched = new Map<string, number>();
  const kept: T[] = [];
  const skipped: T[] = [];
  for (const r of rows) {
    const key = keyOf(r);
    const used = matched.get(key) ?? 0;
    if (used < held(key)) {
      matched.set(key, used + 1);
      skipped.push(r);
    } else kept.push(r);
  }
  return { kept, skipped };
}
