import { describe, expect, it } from 'vitest';
import {
  addInto, addTally, addTransactionInto, dashboardFigures, emptyTally, isBlank, isExpense, isIncomplete, isMatchedReceipt, isMatchedTransaction, isProcessedReceipt, isThisWeek,
  isZeroTally, matchStatsOf, matchTally, percent, receiptTally, systemHealth, tallyDelta, tallyOf, transactionFacts, transactionTally, weekDays,
  isLiveSplit,
  type ReceiptRecord, type TransactionRecord,
} from './figures';

const tx = (amountCents: number, extra: Partial<TransactionRecord> = {}): TransactionRecord => ({
  amountCents, description: 'Coffee', category: 'Meals', jobNumber: 'J-1', costCode: '01-100', receiptCount: 0, ...extra,
});
const rc = (extra: Partial<ReceiptRecord> = {}): ReceiptRecord => ({ processingStatus: 'completed', matchCount: 0, totalCents: 1000, ...extra });

describe('figure definitions', () => {
  it('an expense is a negative amount; a credit adds nothing to expenses', () => {
    expect(isExpense({ amountCents: -1 })).toBe(true);
    expect(isExpense({ amountCents: 0 })).toBe(false);
    expect(isExpense({ amountCents: 500 })).toBe(false);
    const t = tallyOf({ transactions: [tx(-1250), tx(4000)] });
    expect(t.expenseCents).toBe(1250);
    expect(t.transactions).toBe(2);
  });

  it('matched means at least one confirmed receipt (transactions) or confirmed match (receipts)', () => {
    expect(isMatchedTransaction({ receiptCount: 0 })).toBe(false);
    expect(isMatchedTransaction({ receiptCount: 1 })).toBe(true);
    expect(isMatchedReceipt({ matchCount: 0 })).toBe(false);
    expect(isMatchedReceipt({ matchCount: 2 })).toBe(true);
  });

  it('processed means completed; failed, pending and processing are not', () => {
    expect(isProcessedReceipt({ processingStatus: 'completed' })).toBe(true);
    for (const s of ['pending', 'processing', 'failed'] as const) expect(isProcessedReceipt({ processingStatus: s })).toBe(false);
  });

  it('a field of spaces is missing; incomplete means any of the four missing', () => {
    expect(isBlank('  ')).toBe(true);
    expect(isBlank(null)).toBe(true);
    expect(isBlank(undefined)).toBe(true);
    expect(isBlank(' x ')).toBe(false);
    expect(isIncomplete(transactionFacts(tx(-1)))).toBe(false);
    expect(isIncomplete(transactionFacts(tx(-1, { costCode: ' ' })))).toBe(true);
    expect(transactionFacts(tx(-1, { category: '  Travel ' })).category).toBe('Travel');
    expect(transactionFacts(tx(-1, { category: '' })).category).toBeNull();
  });

  it('receiptsThisWeek: today and the six days before, UTC', () => {
    expect(weekDays('2026-03-02')).toEqual(['2026-02-24', '2026-02-25', '2026-02-26', '2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
    expect(isThisWeek('2026-02-24T23:59:59.000Z', '2026-03-02')).toBe(true);
    expect(isThisWeek('2026-02-23T23:59:59.000Z', '2026-03-02')).toBe(false);
    expect(isThisWeek('2026-03-03T00:00:00.000Z', '2026-03-02')).toBe(false);
    expect(() => weekDays('soon')).toThrow(RangeError);
  });

  it('percent has one decimal and is 0 of nothing', () => {
    expect(percent(1, 3)).toBe(33.3);
    expect(percent(2, 3)).toBe(66.7);
    expect(percent(0, 0)).toBe(0);
    expect(percent(5, 5)).toBe(100);
  });
});

describe('dashboard figures of a tally', () => {
  const transactions = [
    tx(-10000, { receiptCount: 1, category: 'Travel' }),
    tx(-2550, { category: 'Meals', jobNumber: '' }),
    tx(-1000, { category: null, description: ' ', costCode: null }),
    tx(3000, { category: 'Travel' }), // a credit: a transaction, no expense
  ];
  const receipts = [rc({ matchCount: 1, totalCents: 10000 }), rc({ totalCents: 2551 }), rc({ processingStatus: 'failed', totalCents: null }), rc({ processingStatus: 'pending', totalCents: null })];
  const tally = tallyOf({ transactions, receipts, matchStatuses: ['confirmed', 'pending', 'pending', 'rejected', 'withdrawn', 'deleted'] });
  const f = dashboardFigures(tally, 3);

  it('financial: expenses, matched, unmatched and the share of spending matched', () => {
    expect(f.financial).toEqual({ totalExpenses: 135.5, matchedExpenses: 100, unmatchedExpenses: 35.5, matchRate: 73.8 });
  });

  it('processing: rates over all receipts, average of known totals', () => {
    expect(f.processing).toEqual({
      processingRate: 50, matchRate: 25, avgAmount: 62.76, totalReceipts: 4, processedReceipts: 2, matchedReceipts: 1, confirmedMatches: 1, receiptsThisWeek: 3,
    });
  });

  it('missing fields: counts and percentages of all transactions', () => {
    expect(f.missingFields).toEqual({
      incompleteTransactions: 2, completionRate: 50, missingDescription: 1, missingCategory: 1, missingJobNumber: 1, missingCostCode: 1,
      missingDescriptionPercentage: 25, missingCategoryPercentage: 25, missingJobNumberPercentage: 25, missingCostCodePercentage: 25,
    });
  });

  it('categories: expenses per name, largest first, uncategorized named, credits-only names left out', () => {
    expect(f.categories).toEqual([{ category: 'Travel', total_amount: 100 }, { category: 'Meals', total_amount: 25.5 }, { category: 'Uncategorized', total_amount: 10 }]);
  });

  it('match stats from the same tally', () => {
    expect(matchStatsOf(tally)).toEqual({ total_matches: 3, confirmed_matches: 1, pending_matches: 2, unmatched_receipts: 3, unmatched_transactions: 3 });
  });

  it('nothing at all: zeros, completion 100', () => {
    const z = dashboardFigures(emptyTally(), 0);
    expect(z.financial.matchRate).toBe(0);
    expect(z.processing.avgAmount).toBe(0);
    expect(z.missingFields.completionRate).toBe(100);
    expect(z.categories).toEqual([]);
  });

  it('system health as spec section 4', () => {
    expect(systemHealth({ processingRate: 80, matchRate: 70 })).toEqual({ status: 'healthy', score: 100 });
    expect(systemHealth({ processingRate: 79.9, matchRate: 70 })).toEqual({ status: 'warning', score: 80 });
    expect(systemHealth({ processingRate: 10, matchRate: 10 })).toEqual({ status: 'warning', score: 65 });
  });
});

describe('splits', () => {
  const part = (amountCents: number, category: string, extra: Record<string, string> = {}) => ({ amountCents, category, jobNumber: 'J-1', costCode: '01-100', ...extra });
  it('a live split totals each part under its own category and fills category, job number and cost code', () => {
    const t = tx(-1000, { category: '', jobNumber: '', split: { totalCents: -1000, parts: [part(-700, ' Travel '), part(-300, 'Meals')] } });
    const f = dashboardFigures(tallyOf({ transactions: [t] }), 0);
    expect(f.categories).toEqual([{ category: 'Travel', total_amount: 7 }, { category: 'Meals', total_amount: 3 }]);
    expect(f.missingFields.incompleteTransactions).toBe(0);
    expect(f.financial.totalExpenses).toBe(10);
    // a part without a cost code leaves the transaction missing one
    const partial = transactionFacts(tx(-1000, { split: { totalCents: -1000, parts: [part(-700, 'Travel'), part(-300, 'Meals', { costCode: ' ' })] } }));
    expect(partial.missing).toEqual({ description: false, category: false, jobNumber: false, costCode: true });
  });
  it('a stale split (the amount changed since) counts nowhere; a credit split adds no expense', () => {
    const stale = { totalCents: -1000, parts: [part(-700, 'Travel'), part(-300, 'Meals')] };
    expect(isLiveSplit(-1200, stale)).toBe(false);
    expect(tallyOf({ transactions: [tx(-1200, { category: '', split: stale })] })).toEqual(tallyOf({ transactions: [tx(-1200, { category: '' })] }));
    const credit = tallyOf({ transactions: [tx(1000, { split: { totalCents: 1000, parts: [part(700, 'Travel'), part(300, 'Meals')] } })] });
    expect(dashboardFigures(credit, 0).categories).toEqual([]);
    expect(credit.expenseCents).toBe(0);
  });
  it('adding and taking away a split transaction returns to the start', () => {
    const base = tallyOf({ transactions: [tx(-500, { category: 'Meals' })] });
    const facts = transactionFacts(tx(-1000, { split: { totalCents: -1000, parts: [part(-600, 'Meals'), part(-400, 'Fuel')] } }));
    expect(addTransactionInto(addTransactionInto(addTally(base, emptyTally()), facts), facts, -1)).toEqual(base);
  });
});

describe('tallies add, subtract and take deltas', () => {
  it('an edit is the difference of after and before; undoing it returns to the start', () => {
    const before = transactionTally(transactionFacts(tx(-1000, { category: 'Meals' })));
    const after = transactionTally(transactionFacts(tx(-2500, { category: 'Travel', jobNumber: '' })));
    const base = tallyOf({ transactions: [tx(-500, { category: 'Meals' })] });
    const withBefore = addTally(base, before);
    const edited = addTally(withBefore, tallyDelta(before, after));
    expect(edited).toEqual(tallyOf({ transactions: [tx(-500, { category: 'Meals' }), tx(-2500, { category: 'Travel', jobNumber: '' })] }));
    const deleted = addTally(edited, tallyDelta(after, null));
    expect(deleted).toEqual(base);
    expect(isZeroTally(tallyDelta(before, before))).toBe(true);
  });

  it('adding a transaction in place equals adding its tally, both ways', () => {
    const base = tallyOf({ transactions: [tx(-500, { category: 'Meals' }), tx(-700, { category: 'Fuel', receiptCount: 1 })] });
    for (const t of [tx(-900, { category: 'Meals', receiptCount: 2 }), tx(300, { category: null, jobNumber: '' }), tx(-700, { category: 'Fuel', receiptCount: 1 })]) {
      const facts = transactionFacts(t);
      for (const sign of [1, -1] as const) {
        expect(addTransactionInto(addTally(base, emptyTally()), facts, sign)).toEqual(addInto(addTally(base, emptyTally()), transactionTally(facts), sign));
      }
    }
    expect(addTransactionInto(addTally(base, emptyTally()), transactionFacts(tx(-700, { category: 'Fuel', receiptCount: 1 })), -1).categories.map((c) => c.name)).toEqual(['Meals']);
  });

  it('a category name that is a prototype name is a name like any other', () => {
    const t = tallyOf({ transactions: [tx(-100, { category: '__proto__' }), tx(-200, { category: 'constructor' })] });
    expect(dashboardFigures(t, 0).categories).toEqual([{ category: 'constructor', total_amount: 2 }, { category: '__proto__', total_amount: 1 }]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('matches: only pending and confirmed count', () => {
    expect(matchTally('rejected')).toEqual(emptyTally());
    expect(matchTally('pending').pendingMatches).toBe(1);
    expect(matchTally('confirmed').confirmedMatches).toBe(1);
    expect(receiptTally(rc({ totalCents: -420 })).receiptAmountCents).toBe(420);
  });
});

describe('addInto', () => {
  it('adds every counter of a tally (each spelled out in it) and the categories', () => {
    const keys = Object.keys(emptyTally()).filter((k) => k !== 'categories');
    expect(keys.length).toBeGreaterThan(10);
    const a = emptyTally() as unknown as Record<string, number>;
    const b = emptyTally() as unknown as Record<string, number>;
    keys.forEach((k, i) => {
      a[k] = 1000;
      b[k] = i + 1;
    });
    const sum = addInto(a as never, { ...b, categories: [{ name: 'Meals', cents: 5, count: 1 }] } as never, -1) as unknown as Record<string, unknown>;
    expect(Object.fromEntries(keys.map((k) => [k, sum[k]]))).toEqual(Object.fromEntries(keys.map((k, i) => [k, 1000 - (i + 1)])));
    expect(sum.categories).toEqual([{ name: 'Meals', cents: -5, count: -1 }]);
  });
});
