import { useEffect } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { toast } from 'react-toastify';
import { useSession } from '../../../lib/session';
import { receiptsApi, type Receipt, type ReceiptFilters } from './receipts';

/** How often the list refreshes itself while OCR is running. */
export const POLL_MS = 1500;

const settling = (r: Receipt) => r.processing_status === 'pending' || r.processing_status === 'processing';
const EMPTY = { rows: [] as Receipt[], pages: 1, total: 0 };

/**
 * One page of receipts (GET /receipts) per company, person, page and filters. While a receipt
 * on the page is still being read, the page refetches every 1.5 s until all have settled; the
 * previous page stays on screen while the next loads. A first load that fails toasts 'Error
 * loading receipts' and shows an empty list; a failed poll stays quiet. `reload` refetches now
 * (after an upload or a deletion) and says so when it fails, unless asked to be quiet.
 */
export function useReceiptList(page: number, filters: ReceiptFilters) {
  const companyId = useSession((s) => s.currentCompanyId);
  const userId = useSession((s) => s.user?.id ?? null);
  const q = useQuery({
    queryKey: ['receipts', companyId, userId, page, filters],
    queryFn: async () => {
      const r = await receiptsApi.list(page, filters);
      return { rows: r.receipts, pages: Math.max(1, r.pagination.pages), total: r.pagination.total };
    },
    placeholderData: keepPreviousData,
    staleTime: 0,
    refetchInterval: (query) => (query.state.data?.rows.some(settling) ? POLL_MS : false),
  });
  useEffect(() => {
    if (q.isLoadingError) toast.error('Error loading receipts', { toastId: `receipts-error-${q.errorUpdatedAt}` });
  }, [q.isLoadingError, q.errorUpdatedAt]);
  const reload = async (quiet = false) => {
    const r = await q.refetch();
    if (r.isError && !quiet) toast.error('Error loading receipts');
  };
  return { data: q.data ?? (q.isError ? EMPTY : undefined), reload };
}
