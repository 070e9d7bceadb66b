import { describe, expect, it } from 'vitest';
import { dashboardFigures, tallyOf } from '../analytics/figures';
import { amountBand, compareForGroup, compareSortKeys, groupOf, groupSort, monthLabel, sortKeyOf } from './grouping';
import { isFormulaLike, neutralise } from './neutralise';
import { summarise } from './summary';
import type { ReportRow } from './types';

const tx = (p: Partial<Extract<ReportRow, { type: 'transaction' }>>): ReportRow => ({
  type: 'transaction', id: 't', date: '2026-03-04', description: 'Coffee', amountCents: -450, salesTaxCents: null, category: 'Meals', jobNumber: 'J1', costCode: 'C1',
  owner: 'Ada', receipts: [], attachments: [], ...p,
});
const rc = (p: Partial<Extract<ReportRow, { type: 'receipt' }>>): ReportRow => ({
  type: 'receipt', id: 'r', filename: 'r.jpg', uploadDate: '2026-03-05T10:00:00.000Z', date: '2026-03-05', merchant: 'Cafe', description: null, amountCents: 450, taxCents: null,
  status: 'completed', matched: false, owner: 'Ada', ocrSource: 'ocr', ocrConfidence: 90, link: '/receipts/r', attachments: [], ...p,
});

describe('neutralise (OWASP formula injection)', () => {
  it.each(['=HYPERLINK("http://x","y")', '+1', '-2+3', '@SUM(A1)', '\tx', '\rx', '\nx'])('prefixes %j with a quote', (s) => {
    expect(isFormulaLike(s)).toBe(true);
    expect(neutralise(s)).toBe(`'${s}`);
  });
  it.each(['Coffee', '', ' =not first', '1-2', "'quoted"])('leaves %j alone', (s) => {
    expect(neutralise(s)).toBe(s);
  });
});

describe('grouping', () => {
  it('groups by month, merchant, amount band and status', () => {
    const row = tx({ date: '2026-11-30', description: ' Shell ', amountCents: -12_345, receipts: ['a.jpg'] });
    expect(groupOf(row, 'date')).toEqual({ key: '2026-11', label: 'November 2026' });
    expect(groupOf(row, 'merchant')).toEqual({ key: 'Shell', label: 'Shell' });
    expect(groupOf(row, 'amount').label).toBe('$100 to $499.99');
    expect(groupOf(row, 'status').label).toBe('Matched');
    expect(monthLabel('bad')).toBe('No date');
  });
  it('puts amounts on band edges in the upper band and ignores the sign', () => {
    expect(amountBand(-2_500).label).toBe('$25 to $99.99');
    expect(amountBand(2_499).label).toBe('Under $25');
    expect(amountBand(100_000).label).toBe('$1,000 and over');
    expect(amountBand(null).label).toBe('No amount');
  });
  it('sorts the read store so groups are runs, and sorts rows in memory the same way', () => {
    expect(groupSort('transactions', 'merchant')).toEqual({ description: 1, transaction_date: 1 });
    expect(groupSort('receipts', 'status')).toEqual({ match_count: 1, receipt_date: 1 });
    const rows = [tx({ id: 'b', date: '2026-02-01' }), tx({ id: 'a', date: '2026-01-09' }), tx({ id: 'c', date: '2026-01-02' })];
    expect(rows.sort(compareForGroup('date')).map((r) => r.id)).toEqual(['c', 'a', 'b']);
  });
});

describe('sort keys (a renderer ordering rows itself, as the store would)', () => {
  it('orders by the group, then the date, then the id, so each group is one run', () => {
    const rows = [
      tx({ id: 'c', description: 'Shell', date: '2026-02-01', amountCents: -5_000 }),
      tx({ id: 'a', description: 'Amazon', date: '2026-03-01', amountCents: -100, receipts: ['x.jpg'] }),
      tx({ id: 'b', description: 'Shell', date: '2026-01-01', amountCents: -99_999 }),
    ];
    const order = (by: 'date' | 'merchant' | 'amount' | 'status') => [...rows].sort((x, y) => compareSortKeys(sortKeyOf(x, by), sortKeyOf(y, by))).map((r) => r.id);
    expect(order('date')).toEqual(['b', 'c', 'a']);
    expect(order('merchant')).toEqual(['a', 'b', 'c']);
    expect(order('amount')).toEqual(['a', 'c', 'b']);
    expect(order('status')).toEqual(['b', 'c', 'a']);
  });
});

describe('summary', () => {
  const rows: ReportRow[] = [
    tx({ amountCents: -10_000, category: 'Fuel', costCode: '01-100', receipts: ['a.jpg'], salesTaxCents: 700 }),
    tx({ amountCents: -2_500, category: 'Meals', jobNumber: null }),
    tx({ amountCents: 5_000, category: 'Meals', date: '2026-04-01' }),
    rc({ matched: true }),
    rc({ status: 'failed', amountCents: null }),
    { type: 'match', id: 'm', status: 'confirmed', confidence: 90, receiptFilename: 'a.jpg', merchant: 'X', receiptDate: null, receiptAmountCents: null, description: 'd', transactionDate: '2026-03-01', transactionAmountCents: -1, owner: 'Ada' },
  ];
  const s = summarise(rows, '2026-03-06');
  it('totals, matched and unmatched, tax, dates', () => {
    expect(s.transactions).toMatchObject({ count: 3, netCents: -7_500, expenseCents: 12_500, creditCents: 5_000, salesTaxCents: 700, firstDate: '2026-03-04', lastDate: '2026-04-01' });
    expect(s.transactions.matched).toEqual({ count: 1, expenseCents: 10_000, netCents: -10_000 });
    expect(s.transactions.unmatched).toEqual({ count: 2, expenseCents: 2_500, netCents: 2_500 });
    expect(s.transactions.incomplete).toBe(1);
    expect(s.transactions.missing.jobNumber).toBe(1);
  });
  it('breaks down by category, cost code, job number and month', () => {
    expect(s.transactions.byCategory).toEqual([{ key: 'Fuel', count: 1, totalCents: -10_000 }, { key: 'Meals', count: 2, totalCents: 2_500 }]);
    expect(s.transactions.byCostCode.map((b) => b.key)).toEqual(['01-100', 'C1']);
    expect(s.transactions.byJobNumber.find((b) => b.key === '(none)')?.count).toBe(1);
    expect(s.transactions.byMonth.map((b) => b.key)).toEqual(['2026-03', '2026-04']);
  });
  it('gives the dashboard figures of the same records (one definition, domain/src/analytics)', () => {
    const same = tallyOf({
      transactions: [
        { amountCents: -10_000, description: 'Coffee', category: 'Fuel', jobNumber: 'J1', costCode: '01-100', receiptCount: 1 },
        { amountCents: -2_500, description: 'Coffee', category: 'Meals', jobNumber: null, costCode: 'C1', receiptCount: 0 },
        { amountCents: 5_000, description: 'Coffee', category: 'Meals', jobNumber: 'J1', costCode: 'C1', receiptCount: 0 },
      ],
      receipts: [{ processingStatus: 'completed', matchCount: 1, totalCents: 450 }, { processingStatus: 'failed', matchCount: 0, totalCents: null }],
      matchStatuses: ['confirmed'],
    });
    expect(s.dashboard).toEqual(dashboardFigures(same, 2));
    expect(s.dashboard.financial.matchRate).toBe(80);
    expect(s.receipts).toMatchObject({ count: 2, processed: 1, matched: 1, processingRate: 50 });
    expect(s.matches).toEqual({ count: 1, confirmed: 1, pending: 0, averageConfidence: 90 });
  });
});

describe('summary of split transactions (ADR 0014)', () => {
  const split = { totalCents: -1000, parts: [{ amountCents: -700, category: 'Fuel', jobNumber: 'J2', costCode: 'C2' }, { amountCents: -300, category: 'Meals', jobNumber: 'J1', costCode: 'C1' }] };
  it('a live split totals each part under its category, cost code and job number, and the dashboard figures agree', () => {
    const s = summarise([tx({ id: 'a', amountCents: -1000, category: null, split }), tx({ id: 'b', amountCents: -450 })], '2026-03-10');
    expect(s.transactions.byCategory).toEqual([{ key: 'Meals', count: 2, totalCents: -750 }, { key: 'Fuel', count: 1, totalCents: -700 }]);
    expect(s.transactions.byCostCode).toEqual([{ key: 'C1', count: 2, totalCents: -750 }, { key: 'C2', count: 1, totalCents: -700 }]);
    expect(s.transactions.byJobNumber.find((b) => b.key === 'J2')).toEqual({ key: 'J2', count: 1, totalCents: -700 });
    expect(s.transactions.missing.category).toBe(0);
    expect(s.dashboard.categories).toEqual([{ category: 'Meals', total_amount: 7.5 }, { category: 'Fuel', total_amount: 7 }]);
    expect(s.transactions.netCents).toBe(-1450);
  });
  it('a stale split (the amount changed since) counts nowhere', () => {
    const s = summarise([tx({ id: 'a', amountCents: -1200, category: null, split })], '2026-03-10');
    expect(s.transactions.byCategory).toEqual([{ key: 'Uncategorized', count: 1, totalCents: -1200 }]);
    expect(s.transactions.byCostCode).toEqual([{ key: 'C1', count: 1, totalCents: -1200 }]);
    expect(s.transactions.missing.category).toBe(1);
    expect(s.dashboard).toEqual(dashboardFigures(tallyOf({ transactions: [{ amountCents: -1200, description: 'Coffee', category: null, jobNumber: 'J1', costCode: 'C1', receiptCount: 0 }] }), 0));
  });
});
