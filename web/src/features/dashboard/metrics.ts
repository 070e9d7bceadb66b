import type { Analytics, RecentTransaction, SeriesPoint, Stats } from './api/dashboard';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Spec section 2, User Activity: 'Just now' (under an hour, or a clock a little ahead),
 * 'N hours ago' (under a day), 'Yesterday' (under two days), then 'N days ago'.
 */
export function relativeTime(timestamp: string | number | Date, now: number = Date.now()): string {
  const t = timestamp instanceof Date ? timestamp.getTime() : typeof timestamp === 'number' ? timestamp : Date.parse(timestamp);
  if (!Number.isFinite(t)) return '';
  const ago = now - t;
  if (ago < HOUR) return 'Just now';
  if (ago < DAY) {
    const h = Math.floor(ago / HOUR);
    return h === 1 ? '1 hour ago' : `${h} hours ago`;
  }
  if (ago < 2 * DAY) return 'Yesterday';
  return `${Math.floor(ago / DAY)} days ago`;
}

/** Health thresholds (spec section 9). */
export const HEALTH = { processingRate: 80, processingPenalty: 20, matchRate: 70, matchPenalty: 15 } as const;

export type HealthStatus = 'healthy' | 'warning' | 'critical';
export interface SystemHealth {
  status: HealthStatus;
  score: number;
  reasons: string[];
}

/**
 * Spec section 4, system health (computed on the client): healthy at 100; a processing rate
 * below 80 makes it warning and costs 20; a match rate below 70 makes it warning and costs 15.
 * Critical can be displayed but is never produced.
 */
export function systemHealth(processingRate: number, matchRate: number): SystemHealth {
  let score = 100;
  let status: HealthStatus = 'healthy';
  const reasons: string[] = [];
  if (processingRate < HEALTH.processingRate) {
    status = 'warning';
    score -= HEALTH.processingPenalty;
    reasons.push(`Processing rate ${formatPercent(processingRate)} is below ${HEALTH.processingRate}%`);
  }
  if (matchRate < HEALTH.matchRate) {
    status = 'warning';
    score -= HEALTH.matchPenalty;
    reasons.push(`Match rate ${formatPercent(matchRate)} is below ${HEALTH.matchRate}%`);
  }
  return { status, score, reasons };
}

export const healthTone = (s: HealthStatus) => (s === 'healthy' ? 'success' : s === 'warning' ? 'warning' : 'danger');

/** A percentage for display: one decimal, none when whole. */
export function formatPercent(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const r = Math.round(n * 10) / 10;
  return `${Number.isInteger(r) ? r.toFixed(0) : r.toFixed(1)}%`;
}

/** part of whole as a percentage; 0 of nothing is 0. */
export const share = (part: number, whole: number) => (whole > 0 ? (part / whole) * 100 : 0);

/** Pending Review's bar is full at 10 pending matches (spec section 9). */
export const PENDING_BAR_FULL = 10;
export const pendingBar = (pending: number) => Math.max(0, Math.min(1, pending / PENDING_BAR_FULL));

/** Spec section 9: top categories shown. */
export const TOP_CATEGORIES = 4;
export function topCategories(categories: Analytics['categories'], n = TOP_CATEGORIES) {
  return [...categories].sort((a, b) => Math.abs(b.total_amount) - Math.abs(a.total_amount)).slice(0, n);
}

/** Overview card figures from the match stats and the analytics (either may be missing). */
export function overviewFigures(stats: Stats | undefined, analytics: Analytics | undefined) {
  return {
    totalMatches: stats?.total_matches ?? null,
    confirmedPercent: stats ? share(stats.confirmed_matches, stats.total_matches) : null,
    processingEfficiency: analytics?.processing.processingRate ?? null,
    pending: stats?.pending_matches ?? null,
    unmatched: stats?.unmatched_receipts ?? null,
    health: analytics ? systemHealth(analytics.processing.processingRate, analytics.processing.matchRate) : null,
  };
}

export interface SpendingPoint {
  period: string;
  expenses: number;
  matched: number;
}
export interface MatchRatePoint {
  period: string;
  matchRate: number;
}

/**
 * Spending over time: the monthly series when there is one, else the recent transactions by
 * day (what the dashboard already holds). `source` says which.
 */
export function spendingOverTime(series: SeriesPoint[] | undefined, recent: RecentTransaction[] | undefined): { source: 'series' | 'recent' | 'none'; points: SpendingPoint[] } {
  if (series?.length) {
    return { source: 'series', points: series.map((s) => ({ period: s.period, expenses: round2(Math.abs(s.expenses)), matched: round2(Math.abs(s.matchedExpenses)) })) };
  }
  if (!recent?.length) return { source: 'none', points: [] };
  const byDay = new Map<string, SpendingPoint>();
  for (const t of recent) {
    if (t.amount >= 0) continue;
    const p = byDay.get(t.transaction_date) ?? { period: t.transaction_date, expenses: 0, matched: 0 };
    p.expenses = round2(p.expenses - t.amount);
    if (t.receipt_count > 0) p.matched = round2(p.matched - t.amount);
    byDay.set(t.transaction_date, p);
  }
  const points = [...byDay.values()].sort((a, b) => a.period.localeCompare(b.period));
  return { source: points.length ? 'recent' : 'none', points };
}

/** Match rate over time (share of expenses matched) per month of the series; without one, the current rate only. */
export function matchRateOverTime(series: SeriesPoint[] | undefined, analytics: Analytics | undefined): { source: 'series' | 'current' | 'none'; points: MatchRatePoint[] } {
  if (series?.length) return { source: 'series', points: series.map((s) => ({ period: s.period, matchRate: round1(s.matchRate) })) };
  if (!analytics) return { source: 'none', points: [] };
  return { source: 'current', points: [{ period: 'Now', matchRate: round1(analytics.financial.matchRate) }] };
}

/** Spending by category for the chart: amounts as positive dollars, largest first. */
export function spendingByCategory(categories: Analytics['categories'] | undefined) {
  return [...(categories ?? [])].map((c) => ({ category: c.category, amount: round2(Math.abs(c.total_amount)) })).sort((a, b) => b.amount - a.amount);
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const round1 = (n: number) => Math.round(n * 10) / 10;
