import { describe, expect, it } from 'vitest';
import { skipHeldDuplicates, transactionDedupKey } from './dedupe';

describe('transactionDedupKey', () => {
  it('ignores case and runs of whitespace in the description, not the date or amount', () => {
    expect(transactionDedupKey('2024-01-05', '  Uber   *TRIP ', -2310)).toBe(transactionDedupKey('2024-01-05', 'UBER *trip', -2310));
    expect(transactionDedupKey('2024-01-05', 'UBER', -2310)).not.toBe(transactionDedupKey('2024-01-06', 'UBER', -2310));
    expect(transactionDedupKey('2024-01-05', 'UBER', -2310)).not.toBe(transactionDedupKey('2024-01-05', 'UBER', 2310));
  });
});

describe('skipHeldDuplicates', () => {
  const coffee = (row: number) => ({ row, key: transactionDedupKey('2024-01-05', 'COFFEE', -300) });
  const tea = (row: number) => ({ row, key: transactionDedupKey('2024-01-05', 'TEA', -250) });
  const run = (rows: Array<{ row: number; key: string }>, held: Record<string, number>) => {
    const { kept, skipped } = skipHeldDuplicates(rows, (r) => r.key, (k) => held[k] ?? 0);
    return { kept: kept.map((r) => r.row), skipped: skipped.map((r) => r.row) };
  };

  it('keeps identical rows of one file when the company holds none: two coffees on one day are two', () => {
    expect(run([coffee(2), coffee(3), tea(4)], {})).toEqual({ kept: [2, 3, 4], skipped: [] });
  });

  it('skips a row only as many times as the company already holds it', () => {
    const held = { [coffee(0).key]: 1 };
    expect(run([coffee(2), coffee(3), coffee(4), tea(5)], held)).toEqual({ kept: [3, 4, 5], skipped: [2] });
  });

  it('a file imported again adds nothing: every row is held as often as the file has it', () => {
    const held = { [coffee(0).key]: 2, [tea(0).key]: 1 };
    expect(run([coffee(2), coffee(3), tea(4)], held)).toEqual({ kept: [], skipped: [2, 3, 4] });
  });

  it('a company holding more than a file has skips the whole file', () => {
    expect(run([coffee(2)], { [coffee(0).key]: 5 })).toEqual({ kept: [], skipped: [2] });
  });
});
