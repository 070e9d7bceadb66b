import { useEffect, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api } from '../lib/api-client';
import { useReadSide } from '../lib/read-side';
import './read-only.css';

/** Between two questions whether the lists hold this tab's writes yet, ms (each also waits up to READ_WAIT_S on the server). */
export const READ_SIDE_POLL_MS = 1000;

/**
 * Under the navigation bar while this tab's latest write is not in every list yet (a very large
 * import is answered before all its rows are listed; lib/read-side.ts): says so in a polite live
 * region, asks the server again (a read carrying X-Min-Position) until it is current, then
 * reloads what the page shows so the lists hold every row.
 */
export function ReadSideNotice({ pollMs = READ_SIDE_POLL_MS }: { pollMs?: number }) {
  const behind = useReadSide((s) => s.behind);
  const queryClient = useQueryClient();
  // Once current again, what the page shows is read anew (it may hold fewer rows than were written).
  const wasBehind = useRef(behind);
  useEffect(() => {
    if (wasBehind.current && !behind) void queryClient.invalidateQueries();
    wasBehind.current = behind;
  }, [behind, queryClient]);
  useEffect(() => {
    if (!behind) return undefined;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = async () => {
      try {
        await api.get('/auth/profile');
      } catch {
        // Asked again on the next round; an expired session is the API client's to handle.
      }
      if (!stopped && useReadSide.getState().behind) timer = setTimeout(() => void ask(), pollMs);
    };
    timer = setTimeout(() => void ask(), pollMs);
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [behind, pollMs]);
  return (
    <div role="status" aria-live="polite" data-testid="read-side-notice">
      {behind && (
        <p className="read-only-notice">
          <strong>Updating</strong> <span>Your latest changes are still being listed; the lists fill in as they are.</span>
        </p>
      )}
    </div>
  );
}
