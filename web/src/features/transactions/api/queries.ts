import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useErrorToast, useQueryScope } from '../../../lib/query-scope';
import { transactionsApi, type Transaction, type TransactionFilters, type TransactionUpdate } from './transactions';

/** This feature's server state, per company and person. */
export const transactionKeys = {
  all: (companyId: string | null, userId: string | null) => ['transactions', companyId, userId] as const,
  page: (companyId: string | null, userId: string | null, page: number, filters: TransactionFilters) => [...transactionKeys.all(companyId, userId), 'page', page, filters] as const,
  one: (companyId: string | null, userId: string | null, id: string) => [...transactionKeys.all(companyId, userId), 'one', id] as const,
};

export interface TransactionPage {
  rows: Transaction[];
  pages: number;
  total: number;
}

const EMPTY: TransactionPage = { rows: [], pages: 1, total: 0 };

/**
 * One page of transactions (GET /transactions) per company, person, page and filters; the
 * previous page stays on screen while the next loads. Every failed load toasts 'Error loading
 * transactions'; a list that cannot load reads as empty, with `failed` set.
 */
export function useTransactionPage(page: number, filters: TransactionFilters) {
  const { companyId, userId } = useQueryScope();
  const q = useQuery({
    queryKey: transactionKeys.page(companyId, userId, page, filters),
    queryFn: async (): Promise<TransactionPage> => {
      const r = await transactionsApi.list(page, filters);
      return { rows: r.transactions, pages: Math.max(1, r.pagination.pages), total: r.pagination.total };
    },
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
  useErrorToast(q, 'Error loading transactions');
  return { data: q.data ?? (q.isError ? EMPTY : undefined), failed: q.isError };
}

/** Writes to transactions; each loads the lists again once the server has answered. */
export function useTransactionWrites() {
  const client = useQueryClient();
  const { companyId, userId } = useQueryScope();
  const invalidate = () => client.invalidateQueries({ queryKey: transactionKeys.all(companyId, userId) });
  // The answer is shown (toast, form closed) at once; the lists load again behind it.
  const reloadLists = () => void invalidate();
  const update = useMutation({
    /** `revision`: the one the form was filled from; a 412 says someone else changed it since. */
    mutationFn: ({ id, body, revision }: { id: string; body: TransactionUpdate; revision?: number }) => transactionsApi.update(id, body, revision),
    onSuccess: reloadLists,
  });
  const remove = useMutation({ mutationFn: (id: string) => transactionsApi.remove(id), onSuccess: reloadLists });
  /** One transaction as it now is (after a 412), and the lists read again. */
  const reread = async (id: string): Promise<Transaction> => {
    const t = await client.fetchQuery({ queryKey: transactionKeys.one(companyId, userId, id), queryFn: () => transactionsApi.get(id), staleTime: 0 });
    await invalidate();
    return t;
  };
  return { update, remove, reread };
}

/** The receipts confirmed on one line, read when its row is expanded. */
export function useTransactionReceipts(id: string) {
  const { companyId, userId } = useQueryScope();
  const q = useQuery({ queryKey: [...transactionKeys.one(companyId, userId, id), 'receipts'], queryFn: () => transactionsApi.receipts(id) });
  useErrorToast(q, 'Error loading the receipts of this transaction');
  return q;
}
