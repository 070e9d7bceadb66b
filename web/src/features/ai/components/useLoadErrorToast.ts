import { useEffect } from 'react';
import { toast } from 'react-toastify';

/** Spec section 8: a failed load on /ai-dashboard reads 'Error loading AI dashboard data' (once per failure). */
export function useLoadErrorToast(failed: boolean): void {
  useEffect(() => {
    if (failed) toast.error('Error loading AI dashboard data', { toastId: 'ai-dashboard-load' });
  }, [failed]);
}
