import { Spinner } from '../../../components/Spinner';
import { useDashboardStats } from '../api/queries';
import { percent } from '../badges';
import { useLoadErrorToast } from './useLoadErrorToast';

/** Overview: predictions and their accuracy from feedback, duplicate groups and duplicates prevented. */
export function OverviewTab() {
  const stats = useDashboardStats();
  useLoadErrorToast(stats.isError);
  if (stats.isPending) return <Spinner label="Loading AI statistics..." />;
  if (stats.isError) return <div className="form-error" role="alert">Error loading AI dashboard data</div>;
  const { categorization, duplicates } = stats.data;
  return (
    <div className="card">
      <h2>Overview</h2>
      <div className="stat-cards">
        <Stat label="Predictions made" value={String(categorization.total_predictions)} testId="stat-predictions" />
        <Stat label="Categorization accuracy" value={categorization.accuracy === null ? 'No feedback yet' : percent(normalise(categorization.accuracy))} testId="stat-accuracy" />
        <Stat label="Duplicate groups" value={String(duplicates.total_groups)} testId="stat-groups" />
        <Stat label="Duplicates prevented" value={String(duplicates.prevented_duplicates)} testId="stat-prevented" />
      </div>
      <p className="muted">Accuracy is the share of predictions people confirmed through 'was this correct' feedback.</p>
    </div>
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
