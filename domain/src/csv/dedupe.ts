/**
 * Duplicates: same date, description and amount (the spec's rule). The description is
 * compared with case and runs of whitespace ignored. Two lines that both carry a bank
 * reference, and different ones, are different transactions even when the rest is equal.
 */
import type { Cents } from '../core/money';

export function normalizeDescription(description: string): string {
  return description.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

export function transactionDedupKey(date: string, description: string, amountCents: Cents): string {
  return `${date}|${amountCents}|${normalizeDescription(description)}`;
}

export interface DedupableRow {
  row: number;
  date: string;
  description: string;
  amountCents: Cents;
  externalId?: string;
}

export interface SkippedDuplicate {
  row: number;
  /** Row number of the line that was kept. */
  duplicateOf: number;
  key: string;
}

export interface DedupeResult<T> {
  kept: T[];
  duplicates: SkippedDuplicate[];
}

export function dedupeWithinFile<T extends DedupableRow>(rows: readonly T[]): DedupeResult<T> {
  const seen = new Map<string, T[]>();
  const kept: T[] = [];
  const duplicates: SkippedDuplicate[] = [];
  for (const r of rows) {
    const key = transactionDedupKey(r.date, r.description, r.amountCents);
    const earlier = seen.get(key);
    const same = earlier?.find((e) => !(e.externalId && r.externalId && e.externalId !== r.externalId));
    if (same) {
      duplicates.push({ row: r.row, duplicateOf: same.row, key });
      continue;
    }
    if (earlier) earlier.push(r);
    else seen.set(key, [r]);
    kept.push(r);
  }
  return { kept, duplicates };
}
