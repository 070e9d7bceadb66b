import { Spinner } from '../../../components/Spinner';
import { useDashboardStats } from '../api/queries';
import { percent } from '../badges';
import { CalendarPanel } from './CalendarPanel';
import { loadErrorText, useLoadErrorToast } from './useLoadErrorToast';

/** Overview: predictions and their accuracy from feedback, duplicate groups and duplicates prevented; calendar insights. */
export function OverviewTab() {
  const stats = useDashboardStats();
  useLoadErrorToast(stats.isError);
  return (
    <>
      <div className="card">
        <h2>Overview</h2>
        {stats.isPending ? <Spinner label="Loading AI statistics..." /> : stats.isError ? (
          <div className="form-error" role="alert">{loadErrorText(stats.error)}</div>
        ) : (
          <>
            <div className="stat-cards">
              <Stat label="Predictions made" value={String(stats.data.categorization.total_predictions)} testId="stat-predictions" />
              <Stat label="Categorization accuracy" value={stats.data.categorization.accuracy === null ? 'No feedback yet' : percent(normalise(stats.data.categorization.accuracy))} testId="stat-accuracy" />
              <Stat label="Duplicate groups" value={String(stats.data.duplicates.total_groups)} testId="stat-groups" />
              {typeof stats.data.duplicates.pending_groups === 'number' && <Stat label="Awaiting review" value={String(stats.data.duplicates.pending_groups)} testId="stat-pending" />}
              <Stat label="Duplicates prevented" value={String(stats.data.duplicates.prevented_duplicates)} testId="stat-prevented" />
            </div>
            <p className="muted">Accuracy is the share of 'was this correct' answers that said the prediction was right.</p>
          </>
        )}
      </div>
      <CalendarPanel />
    </>
  );
}

/** Accuracy may come as a fraction (0.93) or a percentage (93). */
function normalise(accuracy: number): number {
  return accuracy > 1 ? accuracy / 100 : accuracy;
}

function Stat({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className="stat">
      <span className="muted">{label}</span>
      <span className="stat-value" data-testid={testId}>{value}</span>
    </div>
  );
}
