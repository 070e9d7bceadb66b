import { Router } from 'express';
import type { ReadStore, RequestContext } from '@paperlink/domain';
import { requireCompany } from '@paperlink/command-api';
import { RECEIPTS, TRANSACTIONS, toMatchViews, visibleMatches } from '@paperlink/projections';

const ctxOf = (res: { locals: Record<string, unknown> }) => res.locals.ctx as RequestContext;

/** Match reads: admins see the company's, others those of their own receipts or transactions. */
export function matchQueryRouter(store: ReadStore): Router {
  const router = Router();
  const company = requireCompany();
  const scopeOf = (ctx: RequestContext) => (ctx.role === 'admin' ? {} : { userId: ctx.userId! });

  router.get('/matches', company, async (_req, res) => {
    const ctx = ctxOf(res);
    res.json(await toMatchViews(store, await visibleMatches(store, ctx.companyId!, ['pending', 'confirmed'], scopeOf(ctx))));
  });

  router.get('/matches/pending', company, async (_req, res) => {
    const ctx = ctxOf(res);
    res.json(await toMatchViews(store, await visibleMatches(store, ctx.companyId!, ['pending'], scopeOf(ctx))));
  });

  router.get('/matches/stats', company, async (_req, res) => {
    const ctx = ctxOf(res);
    const scope = scopeOf(ctx);
    const matches = await visibleMatches(store, ctx.companyId!, ['pending', 'confirmed'], scope);
    const own = { companyId: ctx.companyId!, ...(scope.userId ? { userId: scope.userId } : {}) };
    const [unmatchedReceipts, unmatchedTransactions] = await Promise.all([
      store.collection(RECEIPTS).count({ ...own, match_count: 0 }),
      store.collection(TRANSACTIONS).count({ ...own, receipt_count: 0 }),
    ]);
    const confirmed = matches.filter((m) => m.status === 'confirmed').length;
    res.json({
      total_matches: matches.length,
      confirmed_matches: confirmed,
      pending_matches: matches.length - confirmed,
      unmatched_receipts: unmatchedReceipts,
      unmatched_transactions: unmatchedTransactions,
    });
  });

  return router;
}
