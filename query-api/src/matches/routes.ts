import { Router } from 'express';
import type { ReadStore, RequestContext } from '@paperlink/domain';
import { requireCompany } from '@paperlink/domain/http/context';
import { analyticsMatchStats, toMatchViews, visibleMatches } from '@paperlink/projections';
import { readStoreOf } from '../history/as-of';

const ctxOf = (res: { locals: Record<string, unknown> }) => res.locals.ctx as RequestContext;

/** Match reads: admins see the company's, others those of their own receipts or transactions. */
export function matchQueryRouter(live: ReadStore): Router {
  const router = Router();
  const company = requireCompany();
  const scopeOf = (ctx: RequestContext) => (ctx.role === 'admin' ? {} : { userId: ctx.userId! });

  router.get('/matches', company, async (_req, res) => {
    const ctx = ctxOf(res);
    const store = readStoreOf(res, live); // the live read models, or the state as of `asOf` (history/as-of.ts)
    res.json(await toMatchViews(store, await visibleMatches(store, ctx.companyId!, ['pending', 'confirmed'], scopeOf(ctx))));
  });

  router.get('/matches/pending', company, async (_req, res) => {
    const ctx = ctxOf(res);
    const store = readStoreOf(res, live);
    res.json(await toMatchViews(store, await visibleMatches(store, ctx.companyId!, ['pending'], scopeOf(ctx))));
  });

  // Counted with the analytics definitions, from the analytics read model (one document).
  router.get('/matches/stats', company, async (_req, res) => {
    const ctx = ctxOf(res);
    res.json(await analyticsMatchStats(live, { companyId: ctx.companyId!, ...scopeOf(ctx) }));
  });

  return router;
}
