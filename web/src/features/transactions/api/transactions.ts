import { z } from 'zod';
import { api } from '../../../lib/api-client';
import { ifMatch } from '../../../lib/stale';

export const TransactionSchema = z.object({
  id: z.string(),
  transaction_date: z.string(),
  external_transaction_id: z.string().nullable(),
  description: z.string(),
  amount: z.number(),
  sales_tax: z.number().nullable(),
  category_name: z.string().nullable(),
  category_id: z.string().nullable().optional(),
  job_number_name: z.string().nullable(),
  cost_code_name: z.string().nullable(),
  receipt_count: z.number(),
  receipts: z.string(),
  user_id: z.string().optional(),
  created_by_first_name: z.string().nullable(),
  created_by_last_name: z.string().nullable(),
  /** The revision this copy shows: sent back in If-Match when saving an edit. */
  revision: z.number().optional(),
});
export type Transaction = z.infer<typeof TransactionSchema>;

export interface TransactionFilters {
  userId?: string;
  startDate?: string;
  endDate?: string;
  category?: string;
  minAmount?: string;
  maxAmount?: string;
  status?: '' | 'matched' | 'unmatched';
  /** The search box (merchant, description, amount, file name), searched by the server. */
  q?: string;
  sortBy: string;
  sortOrder: 'asc' | 'desc';
}

export const DEFAULT_FILTERS: TransactionFilters = { userId: '', startDate: '', endDate: '', category: '', minAmount: '', maxAmount: '', status: '', sortBy: 'transaction_date', sortOrder: 'desc' };
export const PAGE_SIZE = 50;

const ListSchema = z.object({ transactions: z.array(TransactionSchema), pagination: z.object({ pages: z.number(), total: z.number() }) });

export interface TransactionUpdate {
  description: string;
  category: string;
  amount: number;
  sales_tax: number | null;
  job_number: string;
  cost_code: string;
}

export const transactionsApi = {
  async list(page: number, filters: TransactionFilters, limit = PAGE_SIZE) {
    const params: Record<string, string | number> = { page, limit };
    for (const [k, v] of Object.entries(filters)) if (v !== '' && v !== undefined) params[k] = v;
    return ListSchema.parse((await api.get('/transactions', { params })).data);
  },
  async get(id: string) {
    return z.object({ transaction: TransactionSchema }).parse((await api.get(`/transactions/${encodeURIComponent(id)}`)).data).transaction;
  },
  /** `revision`: the one the form was filled from; a 412 says someone else changed it since. */
  async update(id: string, body: TransactionUpdate, revision?: number) {
    await api.put(`/transactions/${encodeURIComponent(id)}`, body, ...ifMatch(revision));
  },
  async remove(id: string) {
    await api.delete(`/transactions/${encodeURIComponent(id)}`);
  },
  /** The receipts confirmed on a line (GET /matches?transactionId&status=confirmed), for the row's images. */
  async receipts(id: string) {
    const rows = z.array(z.object({ receipt_id: z.string(), original_filename: z.string().nullable() }).passthrough()).parse((await api.get('/matches', { params: { transactionId: id, status: 'confirmed' } })).data);
    return rows.map((r) => ({ id: r.receipt_id, name: r.original_filename }));
  },
};
