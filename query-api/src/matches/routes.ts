import { Router } from 'express';
import { z } from 'zod';
import type { MatchStatus, ReadStore, RequestContext } from '@paperlink/domain';
import { requireCompany } from '@paperlink/domain/http/context';
import { analyticsMatchStats, SEARCH_MAX, toMatchViews, visibleMatches } from '@paperlink/projections';
import { readStoreOf } from '../history/as-of';

const ctxOf = (res: { locals: Record<string, unknown> }) => res.locals.ctx as RequestContext;

/**
 * Optional slice of a match list (best first): without it the whole list, as the spec's screens
 * read it; the dashboard asks for its ten rows.
 */
const LIMIT = 'limit must be a whole number from 1 to 1000';
const OFFSET = 'offset must be a whole number of 0 or more';
export const MatchListQuery = z.object({
  status: z.enum(['pending', 'confirmed'], { error: "status must be 'pending' or 'confirmed'" }).optional(),
  limit: z.coerce.number({ error: LIMIT }).int(LIMIT).min(1, LIMIT).max(1000, LIMIT).optional(),
  offset: z.coerce.number({ error: OFFSET }).int(OFFSET).min(0, OFFSET).max(1_000_000, OFFSET).optional(),
  /** Only the matches of this card line (the receipts beside it on /transactions). */
  transactionId: z.string().min(1).max(100).optional(),
  /** One search over both sides: merchant, description, file names and amounts. */
  q: z.string().max(SEARCH_MAX, `q is at most ${SEARCH_MAX} characters`).optional(),
});
/** The statuses asked for (`status`, else `all`) and the slice, if any. */
const listOf = (query: unknown, all: MatchStatus[]) => {
  const q = MatchListQuery.parse(query);
  const page = q.limit === undefined && q.offset === undefined ? undefined : { limit: q.limit ?? 100, offset: q.offset ?? 0 };
  return { statuses: q.status ? [q.status] : all, page, of: { ...(q.transactionId ? { transactionId: q.transactionId } : {}), ...(q.q?.trim() ? { q: q.q } : {}) } };
};

/** Match reads: admins see the company's, others those of their own receipts or transactions. */
export function matchQueryRouter(live: ReadStore): Router {
  const router = Router();
  const company = requireCompany();
  const scopeOf = (ctx: RequestContext) => (ctx.role === 'admin' ? {} : { userId: ctx.userId! });

  router.get('/matches', company, async (req, res) => {
    const ctx = ctxOf(res);
    const store = readStoreOf(res, live); // the live read models, or the state as of `asOf` (history/as-of.ts)
    const { statuses, page, of } = listOf(req.query, ['pending', 'confirmed']);
    res.json(await toMatchViews(store, await visibleMatches(store, ctx.companyId!, statuses, scopeOf(ctx), page, of)));
  });

  router.get('/matches/pending', company, async (req, res) => {
    const ctx = ctxOf(res);
    const store = readStoreOf(res, live);
    const { page, of } = listOf(req.query, ['pending']);
    res.json(await toMatchViews(store, await visibleMatches(store, ctx.companyId!, ['pending'], scopeOf(ctx), page, of)));
  });

  // Counted with the analytics definitions, from the analytics read model (one document).
  router.get('/matches/stats', company, async (_req, res) => {
    const ctx = ctxOf(res);
    res.json(await analyticsMatchStats(live, { companyId: ctx.companyId!, ...scopeOf(ctx) }));
  });

  return router;
}
