import { Link, useSearchParams } from 'react-router-dom';
import { Tabs, tabId, tabPanelId } from '../../../components/Tabs';
import { useAutoMatch, useDashboardData, useHealth, useRefreshDashboard, useSeries } from '../api/queries';
import { AdminCards } from '../components/AdminCards';
import { DataQualityAlert } from '../components/DataQualityAlert';
import { ActivityTab, AnalyticsTab, FinancialTab, TopCategories } from '../components/InsightTabs';
import { PendingMatchesTable, QuickActions, RecentReceiptsTable, RecentTransactionsTable } from '../components/Lists';
import { OverviewCards } from '../components/OverviewCards';
import { SystemHealthTab } from '../components/SystemHealthTab';
import { SpendingByCategory, SpendingOverTime } from '../components/charts/DashboardCharts';
import '../dashboard.css';
import { useCanWrite } from '../../../lib/roles';

type Tab = 'overview' | 'analytics' | 'activity' | 'financial' | 'health';
/** Spec section 2: the admin tabs. */
export const ADMIN_TABS: Array<[Tab, string]> = [['overview', 'Overview'], ['analytics', 'Analytics'], ['activity', 'User Activity'], ['financial', 'Financial'], ['health', 'System Health']];
const PREFIX = 'dashboard';

/** Spec section 2, /dashboard: admins get the five tabs and company-wide figures; everyone else their own overview and spending. */
export function DashboardPage() {
  const d = useDashboardData();
  const refresh = useRefreshDashboard();
  const autoMatch = useAutoMatch();
  // An auditor sees the admin view and runs no auto-match (it records matches).
  const canWrite = useCanWrite();
  const [params, setParams] = useSearchParams();
  const asked = params.get('tab') as Tab | null;
  const tab: Tab = d.isAdmin && asked && ADMIN_TABS.some(([t]) => t === asked) ? asked : 'overview';
  const health = useHealth(d.isAdmin && tab === 'health');
  // The recent list is sorted by transaction date, newest first: its first row is the latest.
  const series = useSeries(d.analytics, d.lists?.transactions[0]?.transaction_date ?? null, !d.isAdmin || tab === 'analytics' || tab === 'financial');

  const overview = (
    <>
      <OverviewCards stats={d.stats} analytics={d.analytics} showHealth={d.isAdmin} />
      <DataQualityAlert missing={d.analytics?.missingFields} />
      {d.isAdmin && <AdminCards analytics={d.analytics} />}
      <PendingMatchesTable rows={d.lists?.pending} />
      <div className="two-columns">
        <RecentTransactionsTable rows={d.lists?.transactions} />
        <RecentReceiptsTable rows={d.lists?.receipts} />
      </div>
      {!d.isAdmin && (
        <>
          <TopCategories analytics={d.analytics} />
          <div className="two-columns">
            <SpendingOverTime series={series} recent={d.lists?.transactions} />
            <SpendingByCategory analytics={d.analytics} />
          </div>
        </>
      )}
      <QuickActions isAdmin={d.isAdmin} />
    </>
  );

  const panel = (t: Tab) => {
    switch (t) {
      case 'overview': return overview;
      case 'analytics': return <AnalyticsTab analytics={d.analytics} stats={d.stats} series={series} />;
      // Relative to when the figures were read: they move on with each refresh.
      case 'activity': return <ActivityTab analytics={d.analytics} now={d.updatedAt || undefined} />;
      case 'financial': return <FinancialTab analytics={d.analytics} recent={d.lists?.transactions} series={series} />;
      case 'health': return <SystemHealthTab analytics={d.analytics} analyticsMs={d.analyticsMs} server={health.data} />;
    }
  };

  return (
    <section className="page dashboard">
      <div className="row spread">
        <h1>Dashboard{d.isAdmin ? ' (Admin View)' : ''}</h1>
        <div className="row page-actions">
          {canWrite && <button type="button" className="btn primary" disabled={autoMatch.isPending} onClick={() => autoMatch.mutate()}>{autoMatch.isPending ? 'Matching...' : 'Auto-Match Receipts'}</button>}
          {d.isAdmin && <Link className="btn" to="/exports">Generate Reports</Link>}
          {d.isAdmin && <button type="button" className="btn" disabled={d.fetching} aria-busy={d.fetching} onClick={() => void refresh()}>Refresh</button>}
        </div>
      </div>
      {d.updatedAt > 0 && (
        <p className="muted updated" aria-live="polite">
          Updated {new Date(d.updatedAt).toLocaleTimeString()}{d.isAdmin ? ' · refreshes every 10 minutes' : ''}
        </p>
      )}
      {d.isAdmin ? (
        <>
          <Tabs<Tab> label="Dashboard sections" idPrefix={PREFIX} tabs={ADMIN_TABS} active={tab} onChange={(t) => setParams(t === 'overview' ? {} : { tab: t }, { replace: true })} />
          <div role="tabpanel" id={tabPanelId(PREFIX, tab)} aria-labelledby={tabId(PREFIX, tab)} tabIndex={0} className="tab-panel">
            {panel(tab)}
          </div>
        </>
      ) : overview}
    </section>
  );
}
export default DashboardPage;
