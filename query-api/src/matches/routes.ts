import { Router } from 'express';
import { z } from 'zod';
import type { ReadStore, RequestContext } from '@paperlink/domain';
import { requireCompany } from '@paperlink/domain/http/context';
import { analyticsMatchStats, toMatchViews, visibleMatches } from '@paperlink/projections';
import { readStoreOf } from '../history/as-of';

const ctxOf = (res: { locals: Record<string, unknown> }) => res.locals.ctx as RequestContext;

/**
 * Optional slice of a match list (best first): without it the whole list, as the spec's screens
 * read it; the dashboard asks for its ten rows.
 */
export const MatchListQuery = z.object({
  status: z.enum(['pending', 'confirmed'], { error: "status must be 'pending' or 'confirmed'" }).optional(),
  limit: z.coerce.number({ error: 'limit must be a whole number from 1 to 1000' }).int('limit must be a whole number from 1 to 1000').min(1, 'limit must be a whole number from 1 to 1000').max(1000, 'limit must be a whole number from 1 to 1000').optional(),
  offset: z.coerce.number({ error: 'offset must be a whole number of 0 or more' }).int('offset must be a whole number of 0 or more').min(0, 'offset must be a whole number of 0 or more').max(1_000_000, 'offset must be a whole number of 0 or more').optional(),
});
const pageOf = (query: unknown) => {
  const q = MatchListQuery.parse(query);
  return q.limit === undefined && q.offset === undefined ? undefined : { limit: q.limit ?? 100, offset: q.offset ?? 0 };
};

/** Match reads: admins see the company's, others those of their own receipts or transactions. */
export function matchQueryRouter(live: ReadStore): Router {
  const router = Router();
  const company = requireCompany();
  const scopeOf = (ctx: RequestContext) => (ctx.role === 'admin' ? {} : { userId: ctx.userId! });

  router.get('/matches', company, async (req, res) => {
    const ctx = ctxOf(res);
    const store = readStoreOf(res, live); // the live read models, or the state as of `asOf` (history/as-of.ts)
    const { status } = MatchListQuery.parse(req.query);
    res.json(await toMatchViews(store, await visibleMatches(store, ctx.companyId!, status ? [status] : ['pending', 'confirmed'], scopeOf(ctx), pageOf(req.query))));
  });

  router.get('/matches/pending', company, async (req, res) => {
    const ctx = ctxOf(res);
    const store = readStoreOf(res, live);
    res.json(await toMatchViews(store, await visibleMatches(store, ctx.companyId!, ['pending'], scopeOf(ctx), pageOf(req.query))));
  });

  // Counted with the analytics definitions, from the analytics read model (one document).
  router.get('/matches/stats', company, async (_req, res) => {
    const ctx = ctxOf(res);
    res.json(await analyticsMatchStats(live, { companyId: ctx.companyId!, ...scopeOf(ctx) }));
  });

  return router;
}
