import { describe, expect, it } from 'vitest';
import { monthsBetween, parseFigureCsv, type Analytics } from './api/dashboard';
import { formatPercent, matchRateOverTime, overviewFigures, pendingBar, relativeTime, share, spendingByCategory, spendingOverTime, systemHealth, topCategories } from './metrics';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const H = 3_600_000;

describe('relative time (spec section 2, User Activity)', () => {
  it.each([
    [0, 'Just now'],
    [59 * 60_000, 'Just now'],
    [-5 * 60_000, 'Just now'],
    [H, '1 hour ago'],
    [2 * H + 1, '2 hours ago'],
    [23 * H + 59 * 60_000, '23 hours ago'],
    [24 * H, 'Yesterday'],
    [47 * H, 'Yesterday'],
    [48 * H, '2 days ago'],
    [30 * 24 * H, '30 days ago'],
  ])('%i ms ago reads %s', (ms, text) => {
    expect(relativeTime(ago(ms), NOW)).toBe(text);
  });
  it('takes dates and epoch numbers, and says nothing for an unreadable time', () => {
    expect(relativeTime(new Date(NOW - 3 * H), NOW)).toBe('3 hours ago');
    expect(relativeTime(NOW - 3 * 24 * H, NOW)).toBe('3 days ago');
    expect(relativeTime('not a date', NOW)).toBe('');
  });
});

describe('system health (spec section 4)', () => {
  it('is healthy at 100 when processing ≥ 80 and match rate ≥ 70', () => {
    expect(systemHealth(80, 70)).toEqual({ status: 'healthy', score: 100, reasons: [] });
    expect(systemHealth(100, 100).score).toBe(100);
  });
  it('loses 20 below an 80 processing rate, 15 below a 70 match rate, both: 65; never critical', () => {
    expect(systemHealth(79.9, 90)).toMatchObject({ status: 'warning', score: 80 });
    expect(systemHealth(95, 69.9)).toMatchObject({ status: 'warning', score: 85 });
    const both = systemHealth(0, 0);
    expect(both).toMatchObject({ status: 'warning', score: 65 });
    expect(both.reasons).toEqual(['Processing rate 0% is below 80%', 'Match rate 0% is below 70%']);
  });
});

const analytics = (over: Partial<Analytics> = {}): Analytics => ({
  financial: { totalExpenses: 300, matchedExpenses: 100, unmatchedExpenses: 200, matchRate: 40 },
  processing: { processingRate: 90, matchRate: 60, avgAmount: 25, totalReceipts: 10, processedReceipts: 9, matchedReceipts: 6, confirmedMatches: 4, receiptsThisWeek: 3 },
  missingFields: { incompleteTransactions: 0, completionRate: 100, missingDescription: 0, missingCategory: 0, missingJobNumber: 0, missingCostCode: 0, missingDescriptionPercentage: 0, missingCategoryPercentage: 0, missingJobNumberPercentage: 0, missingCostCodePercentage: 0 },
  activity: [],
  categories: [],
  ...over,
});

describe('dashboard figures', () => {
  it('overview cards: percent confirmed of all matches, unmatched receipts, health from the processing figures', () => {
    const f = overviewFigures({ total_matches: 8, confirmed_matches: 6, pending_matches: 2, unmatched_receipts: 5, unmatched_transactions: 9 }, analytics());
    expect(f).toMatchObject({ totalMatches: 8, confirmedPercent: 75, processingEfficiency: 90, pending: 2, unmatched: 5 });
    expect(f.health).toMatchObject({ status: 'warning', score: 85 });
    expect(overviewFigures(undefined, undefined)).toMatchObject({ totalMatches: null, confirmedPercent: null, processingEfficiency: null, health: null });
  });
  it('the Pending Review bar is full at 10 and never past it', () => {
    expect([0, 5, 10, 25].map(pendingBar)).toEqual([0, 0.5, 1, 1]);
  });
  it('percentages: one decimal, whole numbers bare, nothing of nothing is 0', () => {
    expect([formatPercent(66.666), formatPercent(75), formatPercent(NaN)]).toEqual(['66.7%', '75%', '—']);
    expect(share(0, 0)).toBe(0);
  });
  it('top 4 categories by amount spent (expenses may be negative)', () => {
    const cats = ['A', 'B', 'C', 'D', 'E'].map((category, i) => ({ category, total_amount: -(i + 1) * 10 }));
    expect(topCategories(cats).map((c) => c.category)).toEqual(['E', 'D', 'C', 'B']);
    expect(spendingByCategory(cats)[0]).toEqual({ category: 'E', amount: 50 });
  });
  it('spending over time: the monthly series when there is one, else the recent expenses by day', () => {
    const series = [{ period: '2026-10', expenses: 120.5, matchedExpenses: 20, matchRate: 16.6 }];
    expect(spendingOverTime(series, [])).toEqual({ source: 'series', points: [{ period: '2026-10', expenses: 120.5, matched: 20 }] });
    const recent = [
      { id: '1', transaction_date: '2026-11-02', description: 'x', amount: -10.1, receipt_count: 1 },
      { id: '2', transaction_date: '2026-11-01', description: 'y', amount: -5, receipt_count: 0 },
      { id: '3', transaction_date: '2026-11-02', description: 'z', amount: -0.2, receipt_count: 0 },
      { id: '4', transaction_date: '2026-11-03', description: 'refund', amount: 50, receipt_count: 0 },
    ];
    expect(spendingOverTime([], recent)).toEqual({ source: 'recent', points: [{ period: '2026-11-01', expenses: 5, matched: 0 }, { period: '2026-11-02', expenses: 10.3, matched: 10.1 }] });
    expect(spendingOverTime(undefined, undefined)).toEqual({ source: 'none', points: [] });
  });
  it('match rate over time: per month of the series, else the current rate alone', () => {
    const series = [{ period: '2026-10', expenses: 3, matchedExpenses: 1, matchRate: 33.33 }, { period: '2026-11', expenses: 0, matchedExpenses: 0, matchRate: 0 }];
    expect(matchRateOverTime(series, analytics()).points).toEqual([{ period: '2026-10', matchRate: 33.3 }, { period: '2026-11', matchRate: 0 }]);
    expect(matchRateOverTime(undefined, analytics())).toEqual({ source: 'current', points: [{ period: 'Now', matchRate: 40 }] });
    expect(matchRateOverTime(undefined, undefined).source).toBe('none');
  });
});

describe('monthly figures from the range export', () => {
  it('reads the figures and the period of the export CSV, quoted or not, and ignores categories', () => {
    const csv = 'Section,Figure,Value\r\nperiod,startDate,2017-06-25\r\nperiod,endDate,2018-12-05\r\nperiod,scope,company\r\nfinancial,totalExpenses,1234.5\r\nfinancial,matchRate,12.5\r\ncategories,"Food, drinks",3\r\n';
    const f = parseFigureCsv(csv);
    expect([f.get('period.startDate'), f.get('period.endDate'), f.get('financial.totalExpenses'), f.get('financial.matchRate')]).toEqual(['2017-06-25', '2018-12-05', '1234.5', '12.5']);
    expect([...f.keys()].some((k) => k.startsWith('categories'))).toBe(false);
  });
  it('lists the months of a range across a year end, the last 12 at most', () => {
    expect(monthsBetween('2017-11-30', '2018-02-01')).toEqual(['2017-11', '2017-12', '2018-01', '2018-02']);
    expect(monthsBetween('2017-06-25', '2018-12-05')).toHaveLength(12);
    expect(monthsBetween('2017-06-25', '2018-12-05')[0]).toBe('2018-01');
    expect(monthsBetween('2018-05-02', '2018-05-30')).toEqual(['2018-05']);
    expect(monthsBetween('', '')).toEqual([]);
  });
});
