import '../history.css';
import { useState } from 'react';
import { Dialog } from '../../../components/Dialog';
import { Spinner } from '../../../components/Spinner';
import { shown, sourceLine, type HistoryKind } from '../api/history';
import { useHistory } from '../api/queries';

/** The timeline of one record: when, who (and their role then), what changed, from where. */
export function HistoryPanel({ kind, id, title, onClose }: { kind: HistoryKind; id: string; title: string; onClose: () => void }) {
  const history = useHistory(kind, id);
  const entries = history.data?.entries ?? null;
  const failed = history.isError;

  return (
    <Dialog title={title} onClose={onClose} testId="history-panel" className="history-panel" footer={<button type="button" className="btn" onClick={onClose}>Close</button>}>
        {failed && <p className="error">The history could not be loaded.</p>}
        {!failed && !entries && <Spinner label="Loading history..." />}
        {entries && (
          <ol className="history-timeline">
            {entries.map((e) => (
              <li key={e.eventId} data-testid="history-entry">
                <div className="history-head">
                  <time dateTime={e.at}>{new Date(e.at).toLocaleString()}</time>{' '}
                  <strong>{e.summary}</strong>{' '}
                  <span className="badge">{e.who ? `${e.who.name ?? 'Unknown'}${e.who.role ? ` · ${e.who.role}` : ''}` : `System${e.system ? ` (${e.system})` : ''}`}</span>
                </div>
                {e.changes.length > 0 && (
                  <table className="history-changes">
                    <tbody>
                      {e.changes.map((c) => (
                        <tr key={c.field}>
                          <th scope="row">{c.field.replace(/_/g, ' ')}</th>
                          <td className="before">{shown(c.before)}</td>
                          <td aria-hidden="true">→</td>
                          <td className="after">{shown(c.after)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
                {(sourceLine(e.source) || e.requestId) && (
                  <div className="history-source">
                    {sourceLine(e.source)}
                    {e.requestId && <span className="muted"> · request {e.requestId}</span>}
                  </div>
                )}
              </li>
            ))}
          </ol>
        )}
    </Dialog>
  );
}

/** A "History" button that opens the record's panel. */
export function HistoryButton({ kind, id, label }: { kind: HistoryKind; id: string; label: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button className="btn small" onClick={() => setOpen(true)} aria-label={`History of ${label}`}>History</button>
      {open && <HistoryPanel kind={kind} id={id} title={`History: ${label}`} onClose={() => setOpen(false)} />}
    </>
  );
}
