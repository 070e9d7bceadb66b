import { useCallback, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router-dom';

/** Typing settles for this long before the list is asked again. */
const SETTLE_MS = 300;

/** The search of a list screen, kept in the URL (`?q=`), so a link or a reload shows the same rows. */
export function useUrlSearch(): [string, (q: string) => void] {
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const set = useCallback((next: string) =>
    setParams((p) => {
      const out = new URLSearchParams(p);
      if (next.trim()) out.set('q', next);
      else out.delete('q');
      return out;
    }, { replace: true }), [setParams]);
  return [q, set];
}

/**
 * One search box over merchant, description, amount and file name; the server searches (within
 * what the person may see). The URL follows the typing once it settles, and the box follows the
 * URL (back, forward, a shared link).
 */
export function SearchBox({ label, placeholder }: { label: string; placeholder?: string }) {
  const [q, setQ] = useUrlSearch();
  const [text, setText] = useState(q);
  const [shown, setShown] = useState(q);
  // The URL changed from elsewhere (navigation): show its search.
  if (q !== shown) {
    setShown(q);
    setText(q);
  }
  useEffect(() => {
    if (text === q) return;
    const t = setTimeout(() => setQ(text), SETTLE_MS);
    return () => clearTimeout(t);
  }, [text, q, setQ]);
  return (
    <form role="search" className="search-box" aria-label={label} onSubmit={(e) => { e.preventDefault(); setQ(text); }}>
      <input type="search" aria-label={label} placeholder={placeholder ?? 'Merchant, description, amount or file name'} value={text} onChange={(e) => setText(e.target.value)} maxLength={100} />
    </form>
  );
}
