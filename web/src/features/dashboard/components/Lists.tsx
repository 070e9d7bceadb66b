import { Link } from 'react-router-dom';
import { confidenceBadge } from '../../../lib/badges';
import { formatUsd } from '../../../lib/format';
import { useCanWrite } from '../../../lib/roles';
import type { PendingMatch, RecentReceipt, RecentTransaction } from '../api/dashboard';

/** Whether the receipt's amount and the card's agree to the cent (expenses are negative on the card). */
export const amountsAgree = (m: Pick<PendingMatch, 'extracted_amount' | 'transaction_amount'>) =>
  m.extracted_amount !== null && m.transaction_amount !== null && Math.round(Math.abs(m.transaction_amount) * 100) === Math.round(m.extracted_amount * 100);

/** Spec section 4: in the dashboard, any processing status other than completed or processing shows as danger. */
export const processingTone = (s: string) => (s === 'completed' ? 'success' : s === 'processing' ? 'warning' : 'danger');

const Loading = () => <p className="muted">Loading...</p>;

export function PendingMatchesTable({ rows }: { rows: PendingMatch[] | undefined }) {
  return (
    <section className="card" aria-labelledby="dash-pending">
      <div className="row spread"><h2 id="dash-pending">Pending Matches</h2><Link to="/matches">Review all matches</Link></div>
      {!rows ? <Loading /> : rows.length === 0 ? <p className="muted" role="status">No matches waiting for review.</p> : (
        <table className="table dense" aria-label="Pending matches">
          <thead><tr><th>Receipt</th><th>Transaction</th><th>Confidence</th><th>Amount Match</th><th>Date</th></tr></thead>
          <tbody>
            {rows.map((m) => (
              <tr key={m.id}>
                <td>{m.original_filename}</td>
                <td>{m.description}</td>
                <td><span className={`badge ${confidenceBadge(m.match_confidence)}`}>{m.match_confidence}%</span></td>
                <td>{formatUsd(m.extracted_amount)} / {formatUsd(m.transaction_amount)} {amountsAgree(m) ? <span className="badge success">Exact</span> : <span className="badge warning">Differs</span>}</td>
                <td>{m.transaction_date}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function RecentTransactionsTable({ rows }: { rows: RecentTransaction[] | undefined }) {
  const canWrite = useCanWrite();
  return (
    <section className="card" aria-labelledby="dash-recent-tx">
      <h2 id="dash-recent-tx">Recent Transactions</h2>
      {!rows ? <Loading /> : rows.length === 0 ? <p className="muted">No transactions yet.{canWrite && <> <Link to="/import">Import a statement</Link>.</>}</p> : (
        <table className="table dense" aria-label="Recent transactions">
          <thead><tr><th>Date</th><th>Description</th><th>Amount</th><th>Status</th></tr></thead>
          <tbody>{rows.map((t) => (
            <tr key={t.id}><td>{t.transaction_date}</td><td>{t.description}</td><td className="num">{formatUsd(t.amount)}</td>
              <td><span className={`badge ${t.receipt_count > 0 ? 'success' : 'warning'}`}>{t.receipt_count > 0 ? 'Matched' : 'Unmatched'}</span></td></tr>
          ))}</tbody>
        </table>
      )}
    </section>
  );
}

export function RecentReceiptsTable({ rows }: { rows: RecentReceipt[] | undefined }) {
  const canWrite = useCanWrite();
  return (
    <section className="card" aria-labelledby="dash-recent-rc">
      <h2 id="dash-recent-rc">Recent Receipts</h2>
      {!rows ? <Loading /> : rows.length === 0 ? <p className="muted">No receipts yet.{canWrite && <> <Link to="/receipts">Upload one</Link>.</>}</p> : (
        <table className="table dense" aria-label="Recent receipts">
          <thead><tr><th>Filename</th><th>Amount</th><th>Status</th><th>Match</th></tr></thead>
          <tbody>{rows.map((r) => (
            <tr key={r.id}><td>{r.original_filename}</td><td className="num">{formatUsd(r.extracted_amount)}</td>
              <td><span className={`badge ${processingTone(r.processing_status)}`}>{r.processing_status}</span></td>
              <td><span className={`badge ${r.match_count > 0 ? 'success' : 'warning'}`}>{r.match_count > 0 ? 'Matched' : 'Pending'}</span></td></tr>
          ))}</tbody>
        </table>
      )}
    </section>
  );
}

/**
 * Spec section 2: Import Transactions, Upload Receipt, Review Matches; admins also Generate
 * Reports and Company Settings. An auditor (read-only, ADR 0017) has no import or upload.
 */
export function QuickActions({ isAdmin }: { isAdmin: boolean }) {
  const canWrite = useCanWrite();
  return (
    <section className="card" aria-labelledby="dash-quick">
      <h2 id="dash-quick">Quick Actions</h2>
      <div className="row quick-actions">
        {canWrite && <Link className="btn" to="/import">Import Transactions</Link>}
        {canWrite && <Link className="btn" to="/receipts">Upload Receipt</Link>}
        <Link className="btn" to="/matches">Review Matches</Link>
        {isAdmin && <Link className="btn" to="/exports">Generate Reports</Link>}
        {isAdmin && <Link className="btn" to="/company-settings">Company Settings</Link>}
      </div>
    </section>
  );
}
