import { lazy } from 'react';
import { formatUsd } from '../../../../lib/format';
import type { Analytics, RecentTransaction, SeriesPoint } from '../../api/dashboard';
import { matchRateOverTime, spendingByCategory, spendingOverTime } from '../../metrics';
import { ChartFrame } from './ChartFrame';

const charts = () => import('./Charts');
const SpendingOverTimeChart = lazy(() => charts().then((m) => ({ default: m.SpendingOverTimeChart })));
const SpendingByCategoryChart = lazy(() => charts().then((m) => ({ default: m.SpendingByCategoryChart })));
const MatchRateChart = lazy(() => charts().then((m) => ({ default: m.MatchRateChart })));

const SPENDING_NOTE = { series: 'By month of transaction date (the last 12 months with data)', recent: 'From the 10 most recent transactions (monthly figures unavailable)', none: undefined } as const;

export function SpendingOverTime({ series, recent }: { series: SeriesPoint[] | undefined; recent: RecentTransaction[] | undefined }) {
  const { source, points } = spendingOverTime(series, recent);
  const title = 'Spending over time';
  return (
    <ChartFrame title={title} note={SPENDING_NOTE[source]} rows={points} testId="chart-spending-time"
      columns={[{ label: 'Period', value: (p) => p.period }, { label: 'Expenses', value: (p) => formatUsd(p.expenses) }, { label: 'Matched', value: (p) => formatUsd(p.matched) }]}>
      <SpendingOverTimeChart points={points} label={title} />
    </ChartFrame>
  );
}

export function SpendingByCategory({ analytics }: { analytics: Analytics | undefined }) {
  const rows = spendingByCategory(analytics?.categories);
  const title = 'Spending by category';
  return (
    <ChartFrame title={title} rows={rows} testId="chart-spending-category"
      columns={[{ label: 'Category', value: (r) => r.category }, { label: 'Spent', value: (r) => formatUsd(r.amount) }]}>
      <SpendingByCategoryChart rows={rows} label={title} />
    </ChartFrame>
  );
}

export function MatchRateOverTime({ series, analytics }: { series: SeriesPoint[] | undefined; analytics: Analytics | undefined }) {
  const { source, points } = matchRateOverTime(series, analytics);
  const title = 'Match rate over time';
  return (
    <ChartFrame title={title} rows={points} testId="chart-match-rate"
      note={source === 'series' ? 'Share of expenses matched to a confirmed receipt, by month' : source === 'current' ? 'Current match rate only (monthly figures unavailable)' : undefined}
      columns={[{ label: 'Period', value: (p) => p.period }, { label: 'Match rate', value: (p) => `${p.matchRate}%` }]}>
      <MatchRateChart points={points} label={title} />
    </ChartFrame>
  );
}
