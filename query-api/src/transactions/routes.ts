import { Router } from 'express';
import { z } from 'zod';
import { NotFoundError, type ReadStore, type RequestContext } from '@paperlink/domain';
import { requireCompany } from '@paperlink/domain/http/context';
import { validIdParams } from '@paperlink/domain/http/params';
import { calendarDate } from '@paperlink/domain/http/schemas';
import { getTransaction, listMasterItems, listTransactions, toTransactionViews, TRANSACTION_SORTS, type TransactionSort, SEARCH_MAX } from '@paperlink/projections';
import { setEtag } from '@paperlink/domain/http/etag';
import { readStoreOf } from '../history/as-of';

const ctxOf = (res: { locals: Record<string, unknown> }) => res.locals.ctx as RequestContext;
const blankToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);
const date = z.preprocess(blankToUndefined, calendarDate.optional());
const amount = z.preprocess(blankToUndefined, z.coerce.number({ error: 'Amounts must be numbers' }).finite('Amounts must be numbers').optional());
const SORT_ALIASES: Record<string, TransactionSort> = { date: 'transaction_date', created: 'created_at', cost_code: 'cost_code_name' };

export const TransactionListQuery = z.object({
  page: z.preprocess(blankToUndefined, z.coerce.number().int().min(1).max(1_000_000).default(1)),
  limit: z.preprocess(blankToUndefined, z.coerce.number().int().min(1).max(500).default(50)),
  userId: z.preprocess(blankToUndefined, z.string().max(100).optional()),
  startDate: date,
  endDate: date,
  category: z.preprocess(blankToUndefined, z.string().max(200).optional()),
  minAmount: amount,
  maxAmount: amount,
  status: z.preprocess(blankToUndefined, z.enum(['matched', 'unmatched'], { error: 'Status is matched or unmatched' }).optional()),
  q: z.preprocess(blankToUndefined, z.string().max(SEARCH_MAX, `q is at most ${SEARCH_MAX} characters`).optional()),
  sortBy: z.preprocess(
    (v) => (typeof v === 'string' && Object.hasOwn(SORT_ALIASES, v) ? SORT_ALIASES[v] : blankToUndefined(v)),
    z.enum(Object.keys(TRANSACTION_SORTS) as [TransactionSort, ...TransactionSort[]], { error: 'Unknown sort field' }).default('transaction_date'),
  ),
  sortOrder: z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : blankToUndefined(v)), z.enum(['asc', 'desc']).default('desc')),
});

/** Transaction reads. Admins see the company's; everyone else only their own. */
export function transactionQueryRouter(live: ReadStore): Router {
  const router = validIdParams(Router());
  const categoryIds = async (store: ReadStore, companyId: string) =>
    new Map((await listMasterItems(store, companyId, 'categories')).map((c) => [c.name.toLowerCase(), c.id]));

  router.get('/transactions', requireCompany(), async (req, res) => {
    const ctx = ctxOf(res);
    const store = readStoreOf(res, live); // the live read models, or the state as of `asOf` (history/as-of.ts)
    const q = TransactionListQuery.parse(req.query);
    const userId = ctx.role === 'admin' ? q.userId : ctx.userId!;
    const { userId: _ignored, ...rest } = q;
    const { docs, total, pages } = await listTransactions(store, { ...rest, companyId: ctx.companyId!, ...(userId ? { userId } : {}) });
    res.json({
      transactions: await toTransactionViews(store, docs, await categoryIds(store, ctx.companyId!), ctx.role === 'admin' ? {} : { userId: ctx.userId! }),
      pagination: { page: q.page, limit: q.limit, total, pages },
    });
  });

  router.get('/transactions/:id', requireCompany(), async (req, res) => {
    const ctx = ctxOf(res);
    const store = readStoreOf(res, live);
    const doc = await getTransaction(store, ctx.companyId!, String(req.params.id));
    if (!doc || (ctx.role !== 'admin' && doc.userId !== ctx.userId)) throw new NotFoundError('Transaction not found', 'transaction_not_found');
    const [view] = await toTransactionViews(store, [doc], await categoryIds(store, ctx.companyId!), ctx.role === 'admin' ? {} : { userId: ctx.userId! });
    setEtag(res, view?.revision);
    res.json({ transaction: view });
  });

  return router;
}
