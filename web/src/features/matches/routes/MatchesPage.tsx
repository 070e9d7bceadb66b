import { useState, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { Pagination } from '../../../components/Pagination';
import { SearchBox, useUrlSearch } from '../../../components/SearchBox';
import { Spinner } from '../../../components/Spinner';
import { ReceiptThumbnail } from '../../../components/ReceiptThumbnail';
import { Tabs } from '../../../components/Tabs';
import { formatUsd } from '../../../lib/format';
import { useCanWrite } from '../../../lib/roles';
import { confidenceBadge, MATCH_PAGE, type Match } from '../api/matches';
import { useAutoMatchAll, useMatchAction, useMatchPage, type MatchAction } from '../api/queries';

type Tab = 'pending' | 'confirmed';

function Evidence({ m }: { m: Match }) {
  return (
    <details className="evidence">
      <summary>Why {m.match_confidence}%?</summary>
      <ul>{m.evidence.reasons.map((r) => <li key={r}>{r}</li>)}</ul>
    </details>
  );
}

/** Receipt amount against the card amount: the card shows expenses as negatives. */
function AmountComparison({ m }: { m: Match }) {
  const card = m.transaction_amount === null ? null : Math.abs(m.transaction_amount);
  const same = card !== null && m.extracted_amount !== null && Math.round(card * 100) === Math.round(m.extracted_amount * 100);
  return (
    <span className={same ? 'amount-same' : 'amount-differs'}>
      {formatUsd(m.extracted_amount)} → {formatUsd(m.transaction_amount)}
      {!same && card !== null && m.extracted_amount !== null && <span className="muted"> ({formatUsd(card - m.extracted_amount)} difference)</span>}
    </span>
  );
}

/** Spec section 2, /matches: Pending and Confirmed tabs with counts. `rowActions` adds what other features offer on a match (the app passes History). */
export function MatchesPage({ rowActions }: { rowActions?: (m: Match) => ReactNode } = {}) {
  const [tab, setTab] = useState<Tab>('pending');
  const [q] = useUrlSearch();
  const searching = q.trim() !== '';
  // A page per list, kept while the other tab is shown; a new search starts both at page 1.
  const [paging, setPaging] = useState<{ q: string; pages: Record<Tab, number> }>({ q, pages: { pending: 1, confirmed: 1 } });
  const pages = paging.q === q ? paging.pages : { pending: 1, confirmed: 1 };
  const setPages = (f: (p: Record<Tab, number>) => Record<Tab, number>) => setPaging({ q, pages: f(pages) });
  const page = pages[tab];
  const { matches, counts } = useMatchPage(tab, page, q);
  const action = useMatchAction();
  const autoMatch = useAutoMatchAll();
  // An auditor reviews the matches and their evidence; confirming, rejecting and deleting are writes.
  const canWrite = useCanWrite();
  const busy = action.isPending ? action.variables.m.id : null;

  const act = (m: Match, kind: MatchAction) => {
    if (kind === 'remove' && !window.confirm(`Delete the match of ${m.original_filename ?? 'this receipt'} with "${m.description ?? 'the transaction'}"?`)) return;
    action.mutate({ m, action: kind });
  };

  const pending = tab === 'pending' ? matches ?? [] : [];
  const confirmed = tab === 'confirmed' ? matches ?? [] : [];
  // The counts are of the whole lists; a search pages by what it found (a full page: there may be more).
  const total = searching ? (page - 1) * MATCH_PAGE + (matches?.length ?? 0) : (tab === 'pending' ? counts?.pending_matches : counts?.confirmed_matches) ?? 0;
  const lastPage = searching ? page + ((matches?.length ?? 0) === MATCH_PAGE ? 1 : 0) : Math.max(1, Math.ceil(total / MATCH_PAGE));
  // A decision that empties the last page (or counts that shrank) shows the page before it.
  if (!searching && page > lastPage && counts) setPages((p) => ({ ...p, [tab]: lastPage }));

  return (
    <section className="page">
      <div className="row spread">
        <h1>Matches</h1>
        <Link to="/review" className="btn">Review one by one</Link>
        {canWrite && <button type="button" className="btn primary" disabled={autoMatch.isPending} onClick={() => autoMatch.mutate()}>Auto-Match Receipts</button>}
      </div>
      <SearchBox label="Search matches" />
      <Tabs<Tab> label="Match lists" active={tab} onChange={setTab} tabs={[['pending', `Pending (${counts?.pending_matches ?? 0})`], ['confirmed', `Confirmed (${counts?.confirmed_matches ?? 0})`]]} />
      {!matches ? <Spinner label="Loading matches..." /> : tab === 'pending' ? (
        pending.length === 0 ? <div className="card empty" role="status"><p>{searching ? `No pending match has "${q.trim()}".` : 'No matches waiting for review.'}</p></div> : (
          <div className="table-scroll">
            <table className="table dense" aria-label="Pending matches">
              <thead><tr><th>Receipt</th><th>Transaction</th><th>Dates</th><th>Amounts</th><th>Confidence</th><th>Actions</th></tr></thead>
              <tbody>
                {pending.map((m) => (
                  <tr key={m.id} data-testid={`match-${m.original_filename}`}>
                    <td><div className="receipt-cell"><ReceiptThumbnail receiptId={m.receipt_id} name={m.original_filename} /><div>{m.original_filename}<div className="muted">{m.extracted_merchant}</div></div></div></td>
                    <td>{m.description}</td>
                    <td className="nowrap">{m.extracted_date ?? '—'} / {m.transaction_date}</td>
                    <td><AmountComparison m={m} /></td>
                    <td><span className={`badge confidence ${confidenceBadge(m.match_confidence)}`}>{m.match_confidence}%</span><Evidence m={m} /></td>
                    <td className="actions">
                      {canWrite && (
                        <>
                          <button type="button" className="btn primary small" disabled={busy === m.id} onClick={() => act(m, 'confirm')} aria-label={`Confirm ${m.original_filename}`}>Confirm</button>
                          <button type="button" className="btn small" disabled={busy === m.id} onClick={() => act(m, 'reject')} aria-label={`Reject ${m.original_filename}`}>Reject</button>
                        </>
                      )}
                      {rowActions?.(m)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      ) : confirmed.length === 0 ? <div className="card empty" role="status"><p>{searching ? `No confirmed match has "${q.trim()}".` : 'No confirmed matches yet.'}</p></div> : (
        <div className="table-scroll">
          <table className="table dense" aria-label="Confirmed matches">
            <thead><tr><th>Receipt</th><th>Transaction</th><th>Date</th><th>Amount</th><th>Confidence</th><th>Actions</th></tr></thead>
            <tbody>
              {confirmed.map((m) => (
                <tr key={m.id} data-testid={`match-${m.original_filename}`}>
                  <td><div className="receipt-cell"><ReceiptThumbnail receiptId={m.receipt_id} name={m.original_filename} /><span>{m.original_filename}</span></div></td>
                  <td>{m.description}</td>
                  <td>{m.transaction_date}</td>
                  <td className="num">{formatUsd(m.transaction_amount)}</td>
                  <td><span className={`badge confidence ${confidenceBadge(m.match_confidence)}`}>{m.match_confidence}%</span><Evidence m={m} /></td>
                  <td className="actions">{rowActions?.(m)}{canWrite && <button type="button" className="btn danger small" disabled={busy === m.id} onClick={() => act(m, 'remove')} aria-label={`Delete match ${m.original_filename}`}>Delete</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {matches && (matches.length > 0 || page > 1) && <Pagination page={page} pages={lastPage} total={total} onPage={(n) => setPages((p) => ({ ...p, [tab]: n }))} />}
    </section>
  );
}
export default MatchesPage;
