import { describe, expect, it } from 'vitest';
import { dedupeWithinFile, transactionDedupKey } from './dedupe';

describe('transactionDedupKey', () => {
  it('ignores case and runs of whitespace in the description, not the date or amount', () => {
    expect(transactionDedupKey('2024-01-05', '  Uber   *TRIP ', -2310)).toBe(transactionDedupKey('2024-01-05', 'UBER *trip', -2310));
    expect(transactionDedupKey('2024-01-05', 'UBER', -2310)).not.toBe(transactionDedupKey('2024-01-06', 'UBER', -2310));
    expect(transactionDedupKey('2024-01-05', 'UBER', -2310)).not.toBe(transactionDedupKey('2024-01-05', 'UBER', 2310));
  });
});

describe('dedupeWithinFile', () => {
  it('keeps the first of each duplicate and reports the others with row numbers', () => {
    const rows = [
      { row: 2, date: '2024-01-05', description: 'STARBUCKS', amountCents: -575 },
      { row: 3, date: '2024-01-05', description: 'starbucks ', amountCents: -575 },
      { row: 4, date: '2024-01-05', description: 'STARBUCKS', amountCents: -675 },
      { row: 5, date: '2024-01-05', description: 'STARBUCKS', amountCents: -575 },
    ];
    const { kept, duplicates } = dedupeWithinFile(rows);
    expect(kept.map((r) => r.row)).toEqual([2, 4]);
    expect(duplicates.map((d) => [d.row, d.duplicateOf])).toEqual([[3, 2], [5, 2]]);
  });

  it('two lines with different bank references are two transactions', () => {
    const rows = [
      { row: 2, date: '2024-01-05', description: 'COFFEE', amountCents: -300, externalId: 'A1' },
      { row: 3, date: '2024-01-05', description: 'COFFEE', amountCents: -300, externalId: 'A2' },
      { row: 4, date: '2024-01-05', description: 'COFFEE', amountCents: -300, externalId: 'A1' },
    ];
    const { kept, duplicates } = dedupeWithinFile(rows);
    expect(kept.map((r) => r.row)).toEqual([2, 3]);
    expect(duplicates).toEqual([{ row: 4, duplicateOf: 2, key: transactionDedupKey('2024-01-05', 'COFFEE', -300) }]);
  });
});
