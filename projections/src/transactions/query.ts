import { fromCents, toCents, type DatePeriod, type Filter, type ReadStore, type SortSpec } from '@paperlink/domain';
import { getUsers } from '../accounts/users';
import { MATCHES, type MatchDoc } from '../matches/matches';
import { RECEIPTS, type ReceiptDoc } from '../receipts/receipts';
import { searchClause, TRANSACTION_SEARCH_FIELDS } from './search';

export { SEARCH_MAX, searchedCents } from './search';
import { TRANSACTION_SORTS, TRANSACTIONS, type TransactionDoc, type TransactionSort } from './transactions';


export interface TransactionQuery {
  companyId: string;
  /** Only this member's transactions (non-admins always; admins when they filter by user). */
  userId?: string;
  startDate?: string;
  endDate?: string;
  /** Category name (exact, any case). */
  category?: string;
  /** Compare by size, ignoring the sign (an expense of 42.00 is 42). */
  minAmount?: number;
  maxAmount?: number;
  status?: 'matched' | 'unmatched';
  /** One search over the description (the merchant as the bank wrote it), the statement's file name and the amount. */
  q?: string;
  sortBy: TransactionSort;
  sortOrder: 'asc' | 'desc';
  page: number;
  limit: number;
}

/** The transaction as the API returns it (spec section 3). */
export interface TransactionView {
  id: string;
  transaction_date: string;
  external_transaction_id: string | null;
  description: string;
  amount: number;
  sales_tax: number | null;
  currency: string | null;
  category_name: string | null;
  category_id: string | null;
  job_number_name: string | null;
  cost_code_name: string | null;
  receipt_count: number;
  receipts: string;
  status: 'matched' | 'unmatched';
  user_id: string;
  created_by_first_name: string | null;
  created_by_last_name: string | null;
  created_at: string;
  updated_at: string;
  source: { fileName: string; fileHash: string; row: number; importId: string };
  /** The split parts (empty when the transaction is not split); amounts signed like `amount`. */
  splits: SplitView[];
  /** The amount changed after the split was saved: the parts no longer add up to it. */
  split_stale: boolean;
  /** The transaction's revision (also its ETag): send it back in If-Match to edit this version. */
  revision: number;
}

export interface SplitView {
  amount: number;
  percentage: number | null;
  category_name: string;
  job_number_name: string;
  cost_code_name: string;
  note: string | null;
}

/** A saved split as the API shows it. */
export function splitViews(d: Pick<TransactionDoc, 'split'>): SplitView[] {
  return (d.split?.parts ?? []).map((p) => ({
    amount: fromCents(p.amountCents),
    percentage: p.basisPoints === undefined ? null : p.basisPoints / 100,
    category_name: p.category,
    job_number_name: p.jobNumber,
    cost_code_name: p.costCode,
    note: p.note ?? null,
  }));
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function transactionFilter(q: Omit<TransactionQuery, 'sortBy' | 'sortOrder' | 'page' | 'limit'>): Filter {
  const filter: Filter = { companyId: q.companyId };
  if (q.userId) filter.userId = q.userId;
  const date: Record<string, string> = {};
  if (q.startDate) date.$gte = q.startDate;
  if (q.endDate) date.$lte = q.endDate;
  if (Object.keys(date).length) filter.transaction_date = date;
  if (q.category) filter.category_name = { $regex: `^${escapeRegex(q.category.trim())}$`, $options: 'i' };
  const size: Record<string, number> = {};
  if (q.minAmount !== undefined) size.$gte = toCents(Math.abs(q.minAmount));
  if (q.maxAmount !== undefined) size.$lte = toCents(Math.abs(q.maxAmount));
  if (Object.keys(size).length) filter.absCents = size;
  if (q.status === 'matched') filter.receipt_count = { $gt: 0 };
  if (q.status === 'unmatched') filter.receipt_count = 0;
  const search = searchClause(q.q, TRANSACTION_SEARCH_FIELDS, 'absCents');
  if (search) Object.assign(filter, search);
  return filter;
}

/**
 * The names of the receipts matched to each line that belong to one member. An admin may link
 * a member's line to another member's receipt; that member is never shown the other's record.
 */
async function ownReceiptNames(store: ReadStore, docs: TransactionDoc[], userId: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const matched = docs.filter((d) => d.receipt_count > 0);
  if (matched.length === 0) return out;
  const confirmed = await store.collection<MatchDoc>(MATCHES).find({ companyId: matched[0]!.companyId, transactionId: { $in: matched.map((d) => d._id) }, status: 'confirmed' });
  const receipts = (await store.getMany(RECEIPTS, [...new Set(confirmed.map((m) => m.receiptId))])) as Map<string, ReceiptDoc>;
  for (const m of confirmed) {
    const r = receipts.get(m.receiptId);
    if (r?.userId === userId) out.set(m.transactionId, [...(out.get(m.transactionId) ?? []), r.original_filename]);
  }
  return out;
}

/** Lines as the API shows them; a viewer scoped to one member (`userId`) sees only their own receipts on them. */
export async function toTransactionViews(store: ReadStore, docs: TransactionDoc[], categoryIds?: Map<string, string>, scope: { userId?: string } = {}): Promise<TransactionView[]> {
  const users = await getUsers(store, [...new Set(docs.map((d) => d.userId))]);
  const own = scope.userId ? await ownReceiptNames(store, docs, scope.userId) : null;
  return docs.map((d) => {
    const u = users.get(d.userId);
    const receipts = own ? own.get(d._id) ?? [] : d.receipts;
    return {
      id: d._id,
      transaction_date: d.transaction_date,
      external_transaction_id: d.external_transaction_id,
      description: d.description,
      amount: fromCents(d.amountCents),
      sales_tax: d.salesTaxCents === null ? null : fromCents(d.salesTaxCents),
      currency: d.currency,
      category_name: d.category_name,
      category_id: (d.category_name && categoryIds?.get(d.category_name.toLowerCase())) ?? null,
      job_number_name: d.job_number_name,
      cost_code_name: d.cost_code_name,
      receipt_count: own ? receipts.length : d.receipt_count,
      receipts: receipts.join(', '),
      status: (own ? receipts.length : d.receipt_count) > 0 ? 'matched' : 'unmatched',
      user_id: d.userId,
      created_by_first_name: u?.firstName ?? null,
      created_by_last_name: u?.lastName ?? null,
      created_at: d.created_at,
      updated_at: d.updated_at,
      source: { fileName: d.fileName, fileHash: d.fileHash, row: d.row, importId: d.importId },
      splits: splitViews(d),
      split_stale: !!d.split && d.split.totalCents !== d.amountCents,
      revision: d.revision ?? 0,
    };
  });
}

export async function listTransactions(store: ReadStore, q: TransactionQuery): Promise<{ docs: TransactionDoc[]; total: number; pages: number }> {
  const coll = store.collection<TransactionDoc>(TRANSACTIONS);
  const filter = transactionFilter(q);
  const dir = q.sortOrder === 'asc' ? 1 : -1;
  const sort: SortSpec = { [TRANSACTION_SORTS[q.sortBy]]: dir };
  if (q.sortBy !== 'transaction_date') sort.transaction_date = -1;
  const { docs, total } = await coll.findPage(filter, { sort, skip: (q.page - 1) * q.limit, limit: q.limit });
  return { docs, total, pages: Math.max(1, Math.ceil(total / q.limit)) };
}

export async function getTransaction(store: ReadStore, companyId: string, id: string): Promise<TransactionDoc | null> {
  return store.collection<TransactionDoc>(TRANSACTIONS).findOne({ _id: id, companyId });
}

const BY_POSTING_DAY = { hint: ['companyId', 'transaction_date'] } as const;

/**
 * The company's period: the first and last posting day of its lines (two reads by the
 * (companyId, transaction_date) index), undefined before its first import. The receipt reader
 * checks a date's year against it (domain/src/receipts/date-period.ts); it is the company's, not a
 * member's, and never leaves the server.
 */
export async function companyPeriod(store: ReadStore, companyId: string): Promise<DatePeriod | undefined> {
  const c = store.collection<TransactionDoc>(TRANSACTIONS);
  const [first] = await c.find({ companyId }, { sort: { transaction_date: 1 }, limit: 1, ...BY_POSTING_DAY });
  const [last] = await c.find({ companyId }, { sort: { transaction_date: -1 }, limit: 1, ...BY_POSTING_DAY });
  return first && last ? { from: first.transaction_date, to: last.transaction_date } : undefined;
}
