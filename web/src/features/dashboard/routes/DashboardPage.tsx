import { useCallback, useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { toast } from 'react-toastify';
import { formatUsd } from '../../../lib/format';
import { useSession } from '../../auth/stores/session';
import { confidenceBadge, matchesApi, type Match } from '../../matches/api/matches';
import { DEFAULT_RECEIPT_FILTERS, receiptsApi, type Receipt } from '../../receipts/api/receipts';
import { DEFAULT_FILTERS, transactionsApi, type Transaction } from '../../transactions/api/transactions';

/** Dashboard list sizes (spec section 9). */
export const DASHBOARD_ROWS = 10;
/** The dashboard's auto-match threshold (spec section 9). */
export const DASHBOARD_THRESHOLD = 70;

/** Whether the receipt's amount and the card's agree to the cent (expenses are negative on the card). */
export const amountsAgree = (m: Pick<Match, 'extracted_amount' | 'transaction_amount'>) =>
  m.extracted_amount !== null && m.transaction_amount !== null && Math.round(Math.abs(m.transaction_amount) * 100) === Math.round(m.extracted_amount * 100);

/** Spec section 2, /dashboard: auto-match, the pending matches and the latest activity (analytics arrive with their issue). */
export function DashboardPage() {
  const isAdmin = useSession((s) => s.role() === 'admin');
  const [pending, setPending] = useState<Match[] | null>(null);
  const [transactions, setTransactions] = useState<Transaction[] | null>(null);
  const [receipts, setReceipts] = useState<Receipt[] | null>(null);
  const [running, setRunning] = useState(false);

  const load = useCallback(async () => {
    try {
      const [p, t, r] = await Promise.all([matchesApi.pending(), transactionsApi.list(1, DEFAULT_FILTERS, DASHBOARD_ROWS), receiptsApi.list(1, DEFAULT_RECEIPT_FILTERS, DASHBOARD_ROWS)]);
      setPending(p.slice(0, DASHBOARD_ROWS));
      setTransactions(t.transactions);
      setReceipts(r.receipts);
    } catch {
      toast.error('Error loading dashboard data');
      setPending((p) => p ?? []);
      setTransactions((t) => t ?? []);
      setReceipts((r) => r ?? []);
    }
  }, []);
  useEffect(() => void load(), [load]);

  const autoMatch = async () => {
    setRunning(true);
    try {
      const r = await matchesApi.autoMatch(DASHBOARD_THRESHOLD);
      toast.success(`Auto-matched ${r.matched} receipts!`);
      await load();
    } catch {
      toast.error('Error running auto-match');
    } finally {
      setRunning(false);
    }
  };

  return (
    <section className="page">
      <div className="row spread">
        <h1>Dashboard{isAdmin ? ' (Admin View)' : ''}</h1>
        <div className="row">
          <button type="button" className="btn primary" disabled={running} onClick={autoMatch}>{running ? 'Matching...' : 'Auto-Match Receipts'}</button>
          {isAdmin && <Link className="btn" to="/exports">Generate Reports</Link>}
          {isAdmin && <button type="button" className="btn" onClick={() => void load()}>Refresh</button>}
        </div>
      </div>

      <div className="card">
        <div className="row spread"><h2>Pending Matches</h2><Link to="/matches">Review all matches</Link></div>
        {!pending ? <p className="muted">Loading...</p> : pending.length === 0 ? <p className="muted" role="status">No matches waiting for review.</p> : (
          <table className="table dense" aria-label="Pending matches">
            <thead><tr><th>Receipt</th><th>Transaction</th><th>Confidence</th><th>Amount Match</th><th>Date</th></tr></thead>
            <tbody>
              {pending.map((m) => (
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
      </div>

      <div className="two-columns">
        <div className="card">
          <h2>Recent Transactions</h2>
          {!transactions ? <p className="muted">Loading...</p> : transactions.length === 0 ? <p className="muted">No transactions yet. <Link to="/import">Import a statement</Link>.</p> : (
            <table className="table dense" aria-label="Recent transactions">
              <thead><tr><th>Date</th><th>Description</th><th>Amount</th><th>Status</th></tr></thead>
              <tbody>{transactions.map((t) => (
                <tr key={t.id}><td>{t.transaction_date}</td><td>{t.description}</td><td className="num">{formatUsd(t.amount)}</td><td><span className={`badge ${t.receipt_count > 0 ? 'success' : 'warning'}`}>{t.receipt_count > 0 ? 'Matched' : 'Unmatched'}</span></td></tr>
              ))}</tbody>
            </table>
          )}
        </div>
        <div className="card">
          <h2>Recent Receipts</h2>
          {!receipts ? <p className="muted">Loading...</p> : receipts.length === 0 ? <p className="muted">No receipts yet. <Link to="/receipts">Upload one</Link>.</p> : (
            <table className="table dense" aria-label="Recent receipts">
              <thead><tr><th>Filename</th><th>Amount</th><th>Status</th><th>Match</th></tr></thead>
              <tbody>{receipts.map((r) => (
                <tr key={r.id}><td>{r.original_filename}</td><td className="num">{formatUsd(r.extracted_amount)}</td>
                  <td><span className={`badge ${r.processing_status === 'completed' ? 'success' : r.processing_status === 'processing' ? 'warning' : 'danger'}`}>{r.processing_status}</span></td>
                  <td><span className={`badge ${r.match_count > 0 ? 'success' : 'warning'}`}>{r.match_count > 0 ? 'Matched' : 'Pending'}</span></td></tr>
              ))}</tbody>
            </table>
          )}
        </div>
      </div>

      <div className="card">
        <h2>Quick Actions</h2>
        <div className="row quick-actions">
          <Link className="btn" to="/import">Import Transactions</Link>
          <Link className="btn" to="/receipts">Upload Receipt</Link>
          <Link className="btn" to="/matches">Review Matches</Link>
          {isAdmin && <Link className="btn" to="/exports">Generate Reports</Link>}
          {isAdmin && <Link className="btn" to="/company-settings">Company Settings</Link>}
        </div>
      </div>
    </section>
  );
}
export default DashboardPage;
