import { formatUsd } from '../../../lib/format';
import { Spinner } from '../../../components/Spinner';
import { useRecurringPatterns } from '../api/queries';
import { loadErrorText, useLoadErrorToast } from './useLoadErrorToast';

/** Recurring Patterns: description, category, frequency, occurrences, last and next expected date. */
export function RecurringTab() {
  const patterns = useRecurringPatterns();
  useLoadErrorToast(patterns.isError);
  if (patterns.isPending) return <Spinner label="Loading recurring patterns..." />;
  if (patterns.isError) return <div className="form-error" role="alert">{loadErrorText(patterns.error)}</div>;
  if (patterns.data.length === 0) return <div className="card empty" role="status"><p>No recurring patterns found yet.</p></div>;
  return (
    <div className="table-scroll card">
      <table className="table" aria-label="Recurring patterns">
        <thead>
          <tr><th>Description</th><th>Category</th><th>Frequency</th><th className="num">Amount</th><th className="num">Occurrences</th><th>Last match</th><th>Next expected</th></tr>
        </thead>
        <tbody>
          {patterns.data.map((p) => (
            <tr key={p.id}>
              <td>{p.description}</td>
              <td>{p.category_name ?? ''}</td>
              <td><span className="badge">{p.frequency}</span></td>
              <td className="num">{formatUsd(p.amount ?? null)}</td>
              <td className="num">{p.occurrence_count}</td>
              <td>{p.last_match ?? ''}</td>
              <td>{p.next_expected_date ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
