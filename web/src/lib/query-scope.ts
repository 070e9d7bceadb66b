import { useEffect } from 'react';
import { toast } from 'react-toastify';
import { useSession } from './session';

/**
 * Whose server state a screen shows: query keys carry the company and the person, so a company
 * switch or another sign-in never shows the last one's answers from the cache.
 */
export function useQueryScope(): { companyId: string | null; userId: string | null } {
  const companyId = useSession((s) => s.currentCompanyId);
  const userId = useSession((s) => s.user?.id ?? null);
  return { companyId, userId };
}

/**
 * Toasts `message` once for each failed fetch of a query (its `errorUpdatedAt`), not again when
 * the screen re-renders; `when` says which failures deserve one (a refusal may be expected).
 */
export function useErrorToast(query: { error: unknown; errorUpdatedAt: number }, message: string, when: (error: unknown) => boolean = () => true): void {
  const failedAt = query.error !== null && query.error !== undefined && when(query.error) ? query.errorUpdatedAt : 0;
  useEffect(() => {
    if (failedAt) toast.error(message, { toastId: `${message}-${failedAt}` });
  }, [failedAt, message]);
}
