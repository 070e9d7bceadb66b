import { ok, type QueryModule } from '../core/module';
import type { ReadStore } from '@paperlink/domain';
import { AnalyticsExportQuery, analyticsQueryRouter, type AnalyticsDeps } from './routes';

/** The dashboard's figures and their export. */
export const analyticsQueries: QueryModule<AnalyticsDeps & { store: ReadStore }> = {
  feature: 'analytics',
  operations: [
    { method: 'get', path: '/analytics/dashboard', summary: 'Dashboard figures, activity and categories (an admin: the company; others: their own data)', tags: ['analytics'], auth: 'company', success: ok('Figures') },
    { method: 'get', path: '/analytics/export', summary: "The dashboard's figures for a date range, as CSV or XLSX (same scoping)", tags: ['analytics'], auth: 'company', query: AnalyticsExportQuery, success: ok('The figures', 'file') },
  ],
  routers: (deps) => [analyticsQueryRouter(deps.store, deps)],
};
