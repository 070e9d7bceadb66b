import { useEffect } from 'react';
import { toast } from 'react-toastify';
import { errorMessage } from '../../../lib/api-client';

export const LOAD_ERROR = 'Error loading AI dashboard data';

/** Spec section 8: a failed load on /ai-dashboard reads 'Error loading AI dashboard data' (once per failure). */
export function useLoadErrorToast(failed: boolean): void {
  useEffect(() => {
    if (failed) toast.error(LOAD_ERROR, { toastId: 'ai-dashboard-load' });
  }, [failed]);
}

/** The in-page line: the spec's text, and the server's reason when it gave one (the AI features switched off, say). */
export function loadErrorText(error: unknown): string {
  const reason = errorMessage(error, '');
  return reason ? `${LOAD_ERROR}: ${reason}` : LOAD_ERROR;
}
