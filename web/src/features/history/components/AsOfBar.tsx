import { useState } from 'react';
import { useLocation } from 'react-router-dom';
import { useQueryClient } from '@tanstack/react-query';
import { useAsOf } from '../../../lib/as-of';
import { useSession } from '../../../lib/session';
import '../history.css';

const SCREENS = ['/transactions', '/receipts', '/matches'];

/** `datetime-local` value (local time) → ISO with zone, and back. */
const toIso = (local: string) => new Date(local).toISOString();
const toLocal = (iso: string) => {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
};

/**
 * The "Audit view" of the transactions, receipts and matches screens, for admins and auditors:
 * a toggle that opens the as-of picker (closed, it costs one Tab stop instead of eight), with a
 * banner while a moment is chosen: the lists show the company as it stood then.
 */
export function AsOfBar() {
  const { pathname } = useLocation();
  const role = useSession((s) => s.role()) as string | null;
  const { asOf, setAsOf } = useAsOf();
  const [draft, setDraft] = useState(asOf ? toLocal(asOf) : '');
  const [open, setOpen] = useState(asOf !== null);
  const client = useQueryClient();
  if (!SCREENS.some((s) => pathname.startsWith(s)) || (role !== 'admin' && role !== 'auditor')) return null;

  const apply = (next: string | null) => {
    setAsOf(next);
    void client.resetQueries();
  };

  return (
    <div className={`as-of-bar${asOf ? ' on' : ''}`} data-testid="as-of-bar">
      {asOf && (
        <p role="status" className="as-of-banner" data-testid="as-of-banner">
          Showing the records as they stood on <strong>{new Date(asOf).toLocaleString()}</strong>, replayed from the history.{role === 'auditor' ? '' : " Changes made here apply to today's records."}
        </p>
      )}
      <button type="button" className="btn small" aria-pressed={open} aria-controls={open ? 'as-of-form' : undefined} onClick={() => setOpen((o) => !o)}>Audit view</button>
      {open && <form
        id="as-of-form"
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (draft && Number.isFinite(Date.parse(draft))) apply(toIso(draft));
        }}
      >
        <label>
          As of{' '}
          <input type="datetime-local" step={1} value={draft} onChange={(e) => setDraft(e.target.value)} aria-label="Show as of" />
        </label>
        <button className="btn small primary" type="submit" disabled={!draft}>Show</button>
        {asOf && (
          <button className="btn small" type="button" onClick={() => { setDraft(''); apply(null); }}>Back to today</button>
        )}
      </form>}
    </div>
  );
}
