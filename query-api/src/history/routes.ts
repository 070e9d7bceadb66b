import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { type EventStore, type ReadStore, type RequestContext } from '@paperlink/domain';
import { requireCompany } from '@paperlink/domain/http/context';
import { IdParam } from '@paperlink/domain/http/params';
import type { AsOfReplayer } from './as-of';
import { HISTORY_KINDS, recordHistory } from './timeline';

const ctxOf = (res: { locals: Record<string, unknown> }) => res.locals.ctx as RequestContext;

export const HistoryParams = z.object({
  kind: z.enum(HISTORY_KINDS, { error: 'Kind is transaction, receipt, match, company or member' }),
  id: IdParam,
});

/** `asOf`: an ISO 8601 date-time with a zone (2026-11-23T18:00:00Z); the state as it stood then. */
export const AsOfQuery = z.object({
  asOf: z
    .string()
    .max(40)
    .refine((v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(v) && Number.isFinite(Date.parse(v)), 'asOf must be an ISO date-time with a time zone, e.g. 2026-11-23T18:00:00Z')
    .optional()
    .meta({ description: 'Read the state as it stood at this moment (replayed from the events up to it)' }),
});

/** GET /history/{kind}/{id}: the record's timeline, with the scope of the record's own read. */
export function historyRouter(deps: { events: EventStore; store: ReadStore }): Router {
  const router = Router();
  router.get('/history/:kind/:id', requireCompany(), async (req, res) => {
    const { kind, id } = HistoryParams.parse(req.params);
    res.setHeader('Cache-Control', 'private, no-store');
    res.json(await recordHistory(deps, ctxOf(res), kind, id));
  });
  return router;
}

/** The reads that take `asOf`: the lists and records of transactions and receipts, and the match lists. */
const AS_OF_PATH = /^\/(?:(?:transactions|receipts)(?:\/[^/]+)?|matches(?:\/pending)?)\/?$/;

/**
 * Runs a read with `asOf` against the company's state at that moment: the replayed read
 * models (./as-of.ts) go on the response (`readStoreOf`), and the list and record routers read
 * from them instead of the live ones, with their own filters, sort, paging and scoping. Admins and auditors read the company as it was;
 * a plain member may use it too and, as on the live lists, sees only their own records
 * (the scope comes from the request's current role, never from the replayed one).
 * The answer says which state it is: X-As-Of (the moment) and X-As-Of-Position (the log position).
 */
export function asOfReads(replayer: AsOfReplayer): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== 'GET' || req.query.asOf === undefined || !AS_OF_PATH.test(req.path)) return next();
    const ctx = ctxOf(res);
    if (!ctx?.companyId || !ctx.role) return next(); // the router answers (X-Company-ID is required)
    const { asOf } = AsOfQuery.parse({ asOf: req.query.asOf });
    if (!asOf) return next();
    const snapshot = await replayer.snapshot(ctx.companyId, new Date(asOf));
    res.setHeader('X-As-Of', new Date(asOf).toISOString());
    res.setHeader('X-As-Of-Position', String(snapshot.position));
    res.setHeader('Cache-Control', 'private, no-store');
    res.locals.asOfStore = snapshot.store;
    next();
  };
}
