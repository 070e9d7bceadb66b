import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useErrorToast, useQueryScope } from '../../../lib/query-scope';
import { receiptsApi, type Receipt, type ReceiptFilters } from './receipts';

/** How often the list refreshes itself while OCR is running. */
export const POLL_MS = 1500;

/** This feature's server state, per company and person. */
export const receiptKeys = {
  all: (companyId: string | null, userId: string | null) => ['receipts', companyId, userId] as const,
  pages: (companyId: string | null, userId: string | null) => [...receiptKeys.all(companyId, userId), 'page'] as const,
  page: (companyId: string | null, userId: string | null, page: number, filters: ReceiptFilters) => [...receiptKeys.pages(companyId, userId), page, filters] as const,
  one: (companyId: string | null, userId: string | null, id: string) => [...receiptKeys.all(companyId, userId), 'one', id] as const,
  file: (companyId: string | null, userId: string | null, id: string, kind: 'view' | 'download' | 'thumbnail') => [...receiptKeys.all(companyId, userId), 'file', id, kind] as const,
};

const settling = (r: Receipt) => r.processing_status === 'pending' || r.processing_status === 'processing';
const EMPTY = { rows: [] as Receipt[], pages: 1, total: 0 };

/**
 * One page of receipts (GET /receipts) per company, person, page and filters. While a receipt
 * on the page is still being read, the page refetches every 1.5 s until all have settled; the
 * previous page stays on screen while the next loads. A load that fails toasts 'Error loading
 * receipts' (a first load shows an empty list), except a poll while receipts are being read,
 * which stays quiet.
 */
export function useReceiptList(page: number, filters: ReceiptFilters) {
  const { companyId, userId } = useQueryScope();
  const q = useQuery({
    queryKey: receiptKeys.page(companyId, userId, page, filters),
    queryFn: async () => {
      const r = await receiptsApi.list(page, filters);
      return { rows: r.receipts, pages: Math.max(1, r.pagination.pages), total: r.pagination.total };
    },
    placeholderData: keepPreviousData,
    staleTime: 0,
    refetchInterval: (query) => (query.state.data?.rows.some(settling) ? POLL_MS : false),
  });
  const polling = q.data?.rows.some(settling) ?? false;
  useErrorToast(q, 'Error loading receipts', () => !polling);
  return { data: q.data ?? (q.isError ? EMPTY : undefined) };
}

/** One receipt (GET /receipts/:id), read afresh each time the details open; a failure toasts 'Error loading receipt'. */
export function useReceipt(id: string) {
  const { companyId, userId } = useQueryScope();
  const q = useQuery({ queryKey: receiptKeys.one(companyId, userId, id), queryFn: () => receiptsApi.get(id), staleTime: 0 });
  useErrorToast(q, 'Error loading receipt');
  return q;
}

/** The picture shown in the details: the file itself, or a PDF's first page. */
export function useReceiptPreview(receipt: Receipt | undefined) {
  const { companyId, userId } = useQueryScope();
  const kind = receipt?.content_type === 'application/pdf' ? 'thumbnail' : 'view';
  const q = useQuery({
    queryKey: receiptKeys.file(companyId, userId, receipt?.id ?? '', kind),
    queryFn: () => receiptsApi.file(receipt!.id, kind),
    enabled: receipt !== undefined,
    // The bytes of a stored file do not change; they leave memory with the details.
    staleTime: Infinity,
    gcTime: 0,
  });
  useErrorToast(q, 'Error loading receipt');
  return q.data;
}

/**
 * Writes to receipts and the reads that go with them. A write that changes what the lists show
 * loads them again once the server has answered; uploads do not (a batch of them is followed by
 * one `refresh`).
 */
export function useReceiptWrites() {
  const client = useQueryClient();
  const { companyId, userId } = useQueryScope();
  const refresh = () => client.invalidateQueries({ queryKey: receiptKeys.pages(companyId, userId) });
  const reloadLists = () => void refresh();
  const update = useMutation({
    /** `revision`: the one the form was filled from; a 412 says someone else changed it since. */
    mutationFn: ({ id, body, revision }: { id: string; body: Record<string, string | number | null>; revision?: number }) => receiptsApi.update(id, body, revision),
    onSuccess: (r) => {
      // The answer is the receipt as it now is: the details show it without asking again.
      client.setQueryData(receiptKeys.one(companyId, userId, r.id), r);
      reloadLists();
    },
  });
  return {
    refresh,
    update,
    upload: useMutation({ mutationFn: ({ file, onProgress }: { file: File; onProgress: (fraction: number) => void }) => receiptsApi.upload(file, onProgress) }),
    remove: useMutation({ mutationFn: (id: string) => receiptsApi.remove(id), onSuccess: reloadLists }),
    reprocess: useMutation({ mutationFn: (id: string) => receiptsApi.reprocess(id), onSuccess: reloadLists }),
    matchTo: useMutation({ mutationFn: ({ id, transactionId }: { id: string; transactionId: string }) => receiptsApi.matchTo(id, transactionId), onSuccess: reloadLists }),
    /** Candidate transactions for one receipt (a POST: the server records the run). */
    findMatches: useMutation({ mutationFn: (id: string) => receiptsApi.findMatches(id) }),
    /** Receipts that look like the same purchase, asked afresh each time (a read, though sent as a POST). */
    duplicates: (id: string) => client.fetchQuery({ queryKey: [...receiptKeys.all(companyId, userId), 'duplicates', id], queryFn: () => receiptsApi.duplicates(id), staleTime: 0, gcTime: 0 }),
    /** A receipt's file, read once for a download or a new tab (not kept). */
    file: (id: string, kind: 'view' | 'download') => client.fetchQuery({ queryKey: receiptKeys.file(companyId, userId, id, kind), queryFn: () => receiptsApi.file(id, kind), staleTime: 0, gcTime: 0 }),
  };
}
