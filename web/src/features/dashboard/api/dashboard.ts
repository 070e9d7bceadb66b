import { z } from 'zod';
import { api } from '../../../lib/api-client';

/** Dashboard list sizes (spec section 9). */
export const DASHBOARD_ROWS = 10;
/** The dashboard's auto-match threshold (spec section 9). */
export const DASHBOARD_THRESHOLD = 70;
/** Admin dashboard auto-refresh (spec section 9). */
export const ADMIN_REFRESH_MS = 600_000;

const num = z.coerce.number();
const numOr0 = num.catch(0);

/** Spec section 3, analytics dashboard response; `series` is an optional extra (monthly figures) for the charts. */
export const AnalyticsSchema = z.object({
  financial: z.object({ totalExpenses: num, matchedExpenses: num, unmatchedExpenses: num, matchRate: num }),
  processing: z.object({
    processingRate: num, matchRate: num, avgAmount: num, totalReceipts: num, processedReceipts: num,
    matchedReceipts: num, confirmedMatches: num, receiptsThisWeek: num,
  }),
  missingFields: z.object({
    incompleteTransactions: num, completionRate: num,
    missingDescription: num, missingCategory: num, missingJobNumber: num, missingCostCode: num,
    missingDescriptionPercentage: numOr0, missingCategoryPercentage: numOr0, missingJobNumberPercentage: numOr0, missingCostCodePercentage: numOr0,
  }),
  activity: z.array(z.object({ type: z.string(), user_name: z.string().nullable().catch(null), description: z.string().nullable().catch(null), timestamp: z.string() })).catch([]),
  categories: z.array(z.object({ category: z.string().nullable().transform((c) => c ?? 'Uncategorized'), total_amount: num })).catch([]),
  series: z.array(z.object({ period: z.string(), expenses: num, matchedExpenses: numOr0, matchRate: numOr0 })).optional().catch(undefined),
});
export type Analytics = z.infer<typeof AnalyticsSchema>;
/** One month of figures: expenses and matched expenses in dollars, the match rate in percent. */
export type SeriesPoint = NonNullable<Analytics['series']>[number];

/** Months the charts show at most. */
export const SERIES_MONTHS = 12;

/** The figures of one GET /analytics/export CSV: `section.figure` → value (`period.*` as text). */
export function parseFigureCsv(csv: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of csv.split(/\r?\n/)) {
    const m = /^(financial|processing|missingFields|period),([A-Za-z]+),(.*)$/.exec(line);
    if (m) out.set(`${m[1]}.${m[2]}`, m[3]!.replace(/^"|"$/g, ''));
  }
  return out;
}

/** The months (YYYY-MM) from `start` to `end` (dates), the last `max` of them. */
export function monthsBetween(start: string, end: string, max = SERIES_MONTHS): string[] {
  const months: string[] = [];
  if (!/^\d{4}-\d{2}/.test(start) || !/^\d{4}-\d{2}/.test(end)) return months;
  let [y, m] = [Number(start.slice(0, 4)), Number(start.slice(5, 7))];
  const [ey, em] = [Number(end.slice(0, 4)), Number(end.slice(5, 7))];
  while (y < ey || (y === ey && m <= em)) {
    months.push(`${y}-${String(m).padStart(2, '0')}`);
    m += 1;
    if (m > 12) [y, m] = [y + 1, 1];
  }
  return months.slice(-max);
}

const lastDay = (month: string) => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return `${month}-${String(new Date(Date.UTC(y, m, 0)).getUTCDate()).padStart(2, '0')}`;
};

/** Spec section 3, Stats. */
export const StatsSchema = z.object({ total_matches: num, confirmed_matches: num, pending_matches: num, unmatched_receipts: num, unmatched_transactions: num });
export type Stats = z.infer<typeof StatsSchema>;

/** Spec section 3: the fields the dashboard reads of a pending match. */
export const PendingMatchSchema = z.object({
  id: z.string(), original_filename: z.string().nullable(), description: z.string().nullable(), match_confidence: num,
  transaction_amount: z.number().nullable(), extracted_amount: z.number().nullable(), transaction_date: z.string().nullable(),
});
export type PendingMatch = z.infer<typeof PendingMatchSchema>;

export const RecentTransactionSchema = z.object({ id: z.string(), transaction_date: z.string(), description: z.string(), amount: z.number(), receipt_count: z.number() });
export type RecentTransaction = z.infer<typeof RecentTransactionSchema>;

export const RecentReceiptSchema = z.object({ id: z.string(), original_filename: z.string(), extracted_amount: z.number().nullable(), processing_status: z.string(), match_count: z.number() });
export type RecentReceipt = z.infer<typeof RecentReceiptSchema>;

export const HealthSchema = z.object({ status: z.string(), version: z.string().optional() });
export const HealthDetailsSchema = HealthSchema.extend({
  profile: z.string().optional(), eventStore: z.string().optional(), readStore: z.string().optional(),
  projections: z.object({ position: num, head: num, lag: num }).partial().optional(),
});
export type HealthDetails = z.infer<typeof HealthDetailsSchema>;

/** A figure with how long the browser waited for it (the measured response time on System Health). */
export interface Timed<T> {
  data: T;
  ms: number;
}

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

export const dashboardApi = {
  async analytics(): Promise<Timed<Analytics>> {
    const t = now();
    const res = await api.get('/analytics/dashboard');
    const ms = now() - t;
    return { data: AnalyticsSchema.parse(res.data), ms };
  },
  /**
   * Monthly figures for the charts, from GET /analytics/export (the same read model, summed
   * over its day buckets): the whole range first, to learn the first day, then one range per
   * month up to the latest transaction's (receipts uploaded today would stretch the range past
   * the statements), at most the last 12. Used when the dashboard response has no `series`.
   */
  async monthlySeries(latestTransactionDate: string): Promise<SeriesPoint[]> {
    const csv = async (params: Record<string, string>) => parseFigureCsv(String((await api.get('/analytics/export', { params: { format: 'csv', ...params }, responseType: 'text' })).data));
    const whole = await csv({});
    const start = whole.get('period.startDate');
    const end = latestTransactionDate;
    if (!start || !end || start > end) return [];
    const months = monthsBetween(start, end);
    const figures = await Promise.all(months.map((month) => csv({ startDate: `${month}-01`, endDate: lastDay(month) })));
    return months.map((period, i) => ({
      period,
      expenses: Number(figures[i]!.get('financial.totalExpenses') ?? 0),
      matchedExpenses: Number(figures[i]!.get('financial.matchedExpenses') ?? 0),
      matchRate: Number(figures[i]!.get('financial.matchRate') ?? 0),
    }));
  },
  async stats(): Promise<Stats> {
    return StatsSchema.parse((await api.get('/matches/stats')).data);
  },
  async lists() {
    const [pending, tx, rc] = await Promise.all([
      api.get('/matches/pending', { params: { limit: DASHBOARD_ROWS } }),
      api.get('/transactions', { params: { page: 1, limit: DASHBOARD_ROWS, sortBy: 'transaction_date', sortOrder: 'desc' } }),
      api.get('/receipts', { params: { page: 1, limit: DASHBOARD_ROWS, sortBy: 'upload_date', sortOrder: 'desc' } }),
    ]);
    return {
      pending: z.array(PendingMatchSchema).parse(pending.data).slice(0, DASHBOARD_ROWS),
      transactions: z.object({ transactions: z.array(RecentTransactionSchema) }).parse(tx.data).transactions.slice(0, DASHBOARD_ROWS),
      receipts: z.object({ receipts: z.array(RecentReceiptSchema) }).parse(rc.data).receipts.slice(0, DASHBOARD_ROWS),
    };
  },
  async health(admin: boolean): Promise<HealthDetails> {
    if (admin) return HealthDetailsSchema.parse((await api.get('/health/details')).data);
    return HealthSchema.parse((await api.get('/health')).data);
  },
  async autoMatch(threshold = DASHBOARD_THRESHOLD) {
    return z.object({ matched: num }).passthrough().parse((await api.post('/matches/auto-match', { threshold })).data);
  },
};

/** Query keys: everything under ['dashboard', company, user] is refreshed together. */
export const dashboardKeys = {
  all: (companyId: string | null, userId: string | null) => ['dashboard', companyId, userId] as const,
  analytics: (c: string | null, u: string | null) => [...dashboardKeys.all(c, u), 'analytics'] as const,
  stats: (c: string | null, u: string | null) => [...dashboardKeys.all(c, u), 'stats'] as const,
  lists: (c: string | null, u: string | null) => [...dashboardKeys.all(c, u), 'lists'] as const,
  health: (c: string | null, u: string | null) => [...dashboardKeys.all(c, u), 'health'] as const,
  series: (c: string | null, u: string | null, latest: string | null) => [...dashboardKeys.all(c, u), 'series', latest] as const,
};
