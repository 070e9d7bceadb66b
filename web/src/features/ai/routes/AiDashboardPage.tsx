import { useSearchParams } from 'react-router-dom';
import { tabId, tabPanelId, Tabs } from '../../../components/Tabs';
import { OverviewTab } from '../components/OverviewTab';
import { DuplicatesTab } from '../components/DuplicatesTab';
import { RecurringTab } from '../components/RecurringTab';
import '../ai.css';

type Tab = 'overview' | 'duplicates' | 'recurring';
const PREFIX = 'ai-dashboard';
const TABS: Array<[Tab, string]> = [['overview', 'Overview'], ['duplicates', 'Duplicate Detection'], ['recurring', 'Recurring Patterns']];

/** /ai-dashboard (spec section 2): Overview, Duplicate Detection, Recurring Patterns; the tab is kept in the address. */
export function AiDashboardPage() {
  const [params, setParams] = useSearchParams();
  const asked = params.get('tab');
  const tab: Tab = TABS.some(([id]) => id === asked) ? (asked as Tab) : 'overview';
  return (
    <section className="page">
      <h1>AI Dashboard</h1>
      <Tabs tabs={TABS} active={tab} onChange={(t) => setParams(t === 'overview' ? {} : { tab: t }, { replace: true })} label="AI dashboard sections" idPrefix={PREFIX} />
      <div role="tabpanel" id={tabPanelId(PREFIX, tab)} aria-labelledby={tabId(PREFIX, tab)} tabIndex={0}>
        {tab === 'overview' && <OverviewTab />}
        {tab === 'duplicates' && <DuplicatesTab />}
        {tab === 'recurring' && <RecurringTab />}
      </div>
    </section>
  );
}
export default AiDashboardPage;
