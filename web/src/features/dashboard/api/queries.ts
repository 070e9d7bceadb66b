import { useEffect } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { toast } from 'react-toastify';
import { toastAutoMatch } from '../../../lib/outcome-toasts';
import { useSession } from '../../../lib/session';
import { roles } from '../../../lib/roles';
import { ADMIN_REFRESH_MS, dashboardApi, dashboardKeys, DASHBOARD_THRESHOLD, type Analytics, type SeriesPoint } from './dashboard';

/** Who the dashboard is for: its queries are keyed by company and user, admins auto-refresh. */
export function useDashboardScope() {
  const companyId = useSession((s) => s.currentCompanyId);
  const userId = useSession((s) => s.user?.id ?? null);
  // An auditor reads the company as an admin does: the admin view, read-only.
  const isAdmin = useSession((s) => roles.seesWholeCompany(s.role()));
  return { companyId, userId, isAdmin };
}

/**
 * The dashboard's server state. The lists and stats toast 'Error loading dashboard data' when
 * they fail; the analytics fail silently (spec section 7): the analytics sections go empty.
 * Admins refetch everything every 10 minutes (spec section 9).
 */
export function useDashboardData() {
  const { companyId, userId, isAdmin } = useDashboardScope();
  const refetchInterval = isAdmin ? ADMIN_REFRESH_MS : false;
  // Fresh on every visit: a match confirmed on /matches shows here when you come back.
  const common = { refetchInterval, enabled: companyId !== null, staleTime: 0 } as const;
  const lists = useQuery({ queryKey: dashboardKeys.lists(companyId, userId), queryFn: dashboardApi.lists, ...common });
  const stats = useQuery({ queryKey: dashboardKeys.stats(companyId, userId), queryFn: dashboardApi.stats, ...common });
  const analytics = useQuery({ queryKey: dashboardKeys.analytics(companyId, userId), queryFn: dashboardApi.analytics, ...common });
  const failed = lists.isError || stats.isError;
  const failedAt = Math.max(lists.errorUpdatedAt, stats.errorUpdatedAt);
  useEffect(() => {
    if (failed) toast.error('Error loading dashboard data', { toastId: `dashboard-error-${failedAt}` });
  }, [failed, failedAt]);
  return {
    isAdmin,
    // Lists that cannot load read as empty (with the toast), not as loading forever.
    lists: lists.data ?? (lists.isError ? { pending: [], transactions: [], receipts: [] } : undefined),
    stats: stats.data,
    // A failed refresh empties the analytics sections rather than showing stale figures.
    analytics: analytics.isError ? undefined : analytics.data?.data,
    analyticsMs: analytics.isError ? undefined : analytics.data?.ms,
    updatedAt: Math.max(lists.dataUpdatedAt, stats.dataUpdatedAt, analytics.dataUpdatedAt),
    fetching: lists.isFetching || stats.isFetching || analytics.isFetching,
  };
}

/** Server status for System Health (admins: with the projection lag). */
export function useHealth(enabled: boolean) {
  const { companyId, userId, isAdmin } = useDashboardScope();
  return useQuery({ queryKey: dashboardKeys.health(companyId, userId), queryFn: () => dashboardApi.health(isAdmin), enabled, refetchInterval: isAdmin ? ADMIN_REFRESH_MS : false });
}

/**
 * Monthly figures for the charts: the dashboard response's `series` when the server keeps one,
 * else derived from the range export (only while a chart is on screen). A failure leaves the
 * charts to what the dashboard already holds, silently like the other analytics.
 */
export function useSeries(analytics: Analytics | undefined, latestTransactionDate: string | null, enabled: boolean): SeriesPoint[] | undefined {
  const { companyId, userId, isAdmin } = useDashboardScope();
  const fromServer = analytics?.series;
  const derived = useQuery({
    queryKey: dashboardKeys.series(companyId, userId, latestTransactionDate),
    queryFn: () => dashboardApi.monthlySeries(latestTransactionDate!),
    enabled: enabled && analytics !== undefined && fromServer === undefined && latestTransactionDate !== null && companyId !== null,
    refetchInterval: isAdmin ? ADMIN_REFRESH_MS : false,
  });
  return fromServer ?? (derived.isError ? undefined : derived.data);
}

/** Refresh: everything the dashboard shows, fetched again. */
export function useRefreshDashboard() {
  const client = useQueryClient();
  const { companyId, userId } = useDashboardScope();
  return () => client.invalidateQueries({ queryKey: dashboardKeys.all(companyId, userId) });
}

/** Auto-Match Receipts at the dashboard's threshold (70); the toast says how many were matched, without a green success for none. */
export function useAutoMatch() {
  const client = useQueryClient();
  const { companyId, userId } = useDashboardScope();
  return useMutation({
    mutationFn: () => dashboardApi.autoMatch(DASHBOARD_THRESHOLD),
    onSuccess: async (r) => {
      toastAutoMatch(r.matched);
      await client.invalidateQueries({ queryKey: dashboardKeys.all(companyId, userId) });
    },
    onError: () => {
      toast.error('Error running auto-match');
    },
  });
}
