import { formatPercent, healthTone, overviewFigures, pendingBar, PENDING_BAR_FULL } from '../metrics';
import type { Analytics, Stats } from '../api/dashboard';
import { NO_DATA, Stat } from './Stat';

/**
 * Spec section 2: Total Matches (percent confirmed), Processing Efficiency, Pending Review (bar
 * full at 10), System Health. Health is the admins' (a member cannot act on it) and is judged only
 * once there are receipts: on an empty company its rates are zeros, not a warning.
 */
export function OverviewCards({ stats, analytics, showHealth }: { stats: Stats | undefined; analytics: Analytics | undefined; showHealth: boolean }) {
  const f = overviewFigures(stats, analytics);
  const judged = f.health !== null && (analytics?.processing.totalReceipts ?? 0) > 0;
  return (
    <div className="stat-cards" data-testid="overview-cards">
      <Stat title="Total Matches" testId="card-total-matches" value={f.totalMatches ?? NO_DATA} sub={f.confirmedPercent === null ? undefined : `${formatPercent(f.confirmedPercent)} confirmed`} />
      <Stat title="Processing Efficiency" testId="card-processing-efficiency" value={f.processingEfficiency === null ? NO_DATA : formatPercent(f.processingEfficiency)} sub="receipts read by OCR" />
      <Stat title="Pending Review" testId="card-pending-review" value={f.pending ?? NO_DATA} sub={f.unmatched === null ? undefined : `${f.unmatched} unmatched receipts`}>
        {f.pending !== null && (
          <progress className="pending-bar" max={PENDING_BAR_FULL} value={Math.min(f.pending, PENDING_BAR_FULL)} aria-label={`Pending review: ${f.pending} of ${PENDING_BAR_FULL}`} data-fill={pendingBar(f.pending)} />
        )}
      </Stat>
      {showHealth && (
        <Stat
          title="System Health"
          testId="card-system-health"
          tone={judged && f.health ? healthTone(f.health.status) : undefined}
          value={judged && f.health ? <span className={`badge ${healthTone(f.health.status)}`}>{f.health.status}</span> : analytics ? 'Not judged yet' : NO_DATA}
          sub={judged && f.health ? `Score ${f.health.score}/100` : analytics ? 'judged once receipts are uploaded' : undefined}
        />
      )}
    </div>
  );
}
