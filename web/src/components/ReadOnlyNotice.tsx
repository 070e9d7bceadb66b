import { READ_ONLY_NOTE, useReadOnly } from '../lib/roles';
import './read-only.css';

/**
 * Under the navigation bar on every page of an auditor: the app is read-only
 * for them. A labelled note region (not a live region: it is there from the page's start, and a
 * screen reader finds it by its label); pages leave their write controls out.
 */
export function ReadOnlyNotice() {
  const readOnly = useReadOnly();
  if (!readOnly) return null;
  return (
    <aside className="read-only-notice" aria-label="Read-only access" data-testid="read-only-notice">
      <strong>Read-only</strong> <span>{READ_ONLY_NOTE}</span>
    </aside>
  );
}
