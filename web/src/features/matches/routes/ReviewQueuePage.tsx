import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { Link } from 'react-router-dom';
import { Dialog } from '../../../components/Dialog';
import { ReceiptThumbnail } from '../../../components/ReceiptThumbnail';
import { Spinner } from '../../../components/Spinner';
import { formatUsd } from '../../../lib/format';
import { useCanWrite } from '../../../lib/roles';
import { confidenceBadge, type Match } from '../api/matches';
import { useMatchAction, useMatchPage } from '../api/queries';

/** The queue's keys: shown by `?` and named on the buttons (aria-keyshortcuts). */
export const SHORTCUTS: Array<[string, string]> = [['c', 'Confirm this match'], ['r', 'Reject this match'], ['n or →', 'Next match'], ['p or ←', 'Previous match'], ['?', 'Show these shortcuts']];

/**
 * Pending matches one at a time: the receipt's image beside the card line, confirm or reject with
 * one key, and the queue keeps the focus, so a reviewer works through it without the mouse.
 */
export function ReviewQueuePage() {
  const { matches, counts } = useMatchPage('pending', 1);
  const action = useMatchAction();
  const canWrite = useCanWrite();
  // Decided here: hidden at once, before the list is read again.
  const [decided, setDecided] = useState<ReadonlySet<string>>(new Set());
  const [index, setIndex] = useState(0);
  const [help, setHelp] = useState(false);
  const queue = useRef<HTMLDivElement>(null);
  const left = (matches ?? []).filter((m) => !decided.has(m.id));
  const at = Math.min(index, Math.max(0, left.length - 1));
  const current = left[at];
  const more = Math.max(0, (counts?.pending_matches ?? 0) - (matches?.length ?? 0));

  // The queue holds the focus: on arrival and after each decision (the decided item's buttons leave the page).
  const focusQueue = () => queue.current?.focus({ preventScroll: true });
  useEffect(() => {
    if (matches) focusQueue();
  }, [matches === undefined]); // eslint-disable-line react-hooks/exhaustive-deps

  const decide = (m: Match, kind: 'confirm' | 'reject') => {
    if (!canWrite || action.isPending) return;
    action.mutate({ m, action: kind }, { onSuccess: () => setDecided((d) => new Set(d).add(m.id)), onSettled: focusQueue });
    focusQueue();
  };
  const move = (by: number) => setIndex(Math.min(Math.max(0, at + by), Math.max(0, left.length - 1)));

  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.ctrlKey || e.metaKey || e.altKey || help) return;
    const key = e.key;
    const act = key === 'c' && current ? () => decide(current, 'confirm')
      : key === 'r' && current ? () => decide(current, 'reject')
      : key === 'n' || key === 'ArrowRight' ? () => move(1)
      : key === 'p' || key === 'ArrowLeft' ? () => move(-1)
      : key === '?' ? () => setHelp(true) : null;
    if (!act) return;
    e.preventDefault();
    act();
  };

  return (
    <section className="page">
      <div className="row spread">
        <h1>Review queue</h1>
        <Link to="/matches">All matches</Link>
      </div>
      {!matches ? <Spinner label="Loading the queue..." /> : (
        <div ref={queue} className="card review-queue" role="region" aria-label="Review queue" tabIndex={-1} onKeyDown={onKey} data-testid="review-queue">
          <p role="status" aria-live="polite" data-testid="queue-left">
            {left.length === 0 ? 'Nothing left to review.' : `${left.length + more} left · match ${at + 1} of ${left.length}`}
          </p>
          {current && <QueueItem m={current} />}
          <div className="row">
            {canWrite && current && (
              <>
                <button type="button" className="btn primary" aria-keyshortcuts="c" disabled={action.isPending} onClick={() => decide(current, 'confirm')}>Confirm</button>
                <button type="button" className="btn" aria-keyshortcuts="r" disabled={action.isPending} onClick={() => decide(current, 'reject')}>Reject</button>
              </>
            )}
            <button type="button" className="btn" aria-keyshortcuts="p" disabled={at === 0} onClick={() => move(-1)}>Previous</button>
            <button type="button" className="btn" aria-keyshortcuts="n" disabled={at >= left.length - 1} onClick={() => move(1)}>Next</button>
            <button type="button" className="btn" aria-keyshortcuts="?" onClick={() => setHelp(true)}>Shortcuts (?)</button>
          </div>
        </div>
      )}
      {help && (
        <Dialog title="Keyboard shortcuts" onClose={() => setHelp(false)} testId="queue-shortcuts" footer={<button type="button" className="btn" onClick={() => setHelp(false)}>Close</button>}>
          <dl className="details">{SHORTCUTS.map(([k, what]) => <div key={k}><dt><kbd>{k}</kbd></dt><dd>{what}</dd></div>)}</dl>
        </Dialog>
      )}
    </section>
  );
}

function QueueItem({ m }: { m: Match }) {
  return (
    <div className="row queue-item" data-testid="queue-item" data-match-id={m.id}>
      <ReceiptThumbnail receiptId={m.receipt_id} name={m.original_filename} />
      <dl className="details">
        <dt>Receipt</dt><dd>{m.original_filename} · {m.extracted_merchant ?? '—'} · {m.extracted_date ?? '—'} · {formatUsd(m.extracted_amount)}</dd>
        <dt>Card line</dt><dd>{m.description} · {m.transaction_date} · {formatUsd(m.transaction_amount)}</dd>
        <dt>Confidence</dt><dd><span className={`badge confidence ${confidenceBadge(m.match_confidence)}`}>{m.match_confidence}%</span> {m.evidence.reasons.join('; ')}</dd>
      </dl>
    </div>
  );
}
export default ReviewQueuePage;
