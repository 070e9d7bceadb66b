import { Link } from 'react-router-dom';
import type { Analytics } from '../api/dashboard';
import { formatPercent } from '../metrics';

const FIELDS = [
  ['Description', 'missingDescription', 'missingDescriptionPercentage'],
  ['Category', 'missingCategory', 'missingCategoryPercentage'],
  ['Job Number', 'missingJobNumber', 'missingJobNumberPercentage'],
  ['Cost Code', 'missingCostCode', 'missingCostCodePercentage'],
] as const;

/** Spec section 2: shown when incompleteTransactions is above 0, with the completion rate, counts, percentages and a link to /transactions. */
export function DataQualityAlert({ missing }: { missing: Analytics['missingFields'] | undefined }) {
  if (!missing || missing.incompleteTransactions <= 0) return null;
  return (
    <section className="alert warning" role="region" aria-label="Data Quality" data-testid="data-quality-alert">
      <h2>Data Quality</h2>
      <p>
        <strong data-testid="dq-incomplete">{missing.incompleteTransactions}</strong> transactions are incomplete; completion rate{' '}
        <strong data-testid="dq-completion">{formatPercent(missing.completionRate)}</strong>.
      </p>
      <ul className="dq-list">
        {FIELDS.map(([label, count, pct]) => (
          <li key={count} data-testid={`dq-${count}`}>Missing {label}: {missing[count]} ({formatPercent(missing[pct])})</li>
        ))}
      </ul>
      <Link to="/transactions">Complete transactions</Link>
    </section>
  );
}
