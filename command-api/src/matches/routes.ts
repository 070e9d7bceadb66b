import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import {
  confirmedOf,
  decideForget,
  decideManual,
  decidePair,
  decideProposals,
  NotFoundError,
  scoreMatch,
  type RequestContext,
  type Side,
} from '@paperlink/domain';
import type { CommandBus, Plan } from '../core/bus';
import { send } from '../core/http';
import { newId } from '../core/ids';
import { ctxOf, requireCompany } from '../http/context';
import { validIdParams } from '../http/params';
import { LoadedBook } from './book';
import { runAutoMatch, thresholdFor, type MatchDeps, type MatchTransaction } from './auto';

export { runAutoMatch, thresholdFor } from './auto';
export type { AutoMatchOutcome, KnownMatch, MatchDeps, MatchReceipt, MatchSeed, MatchTransaction, Pause } from './auto';

export const ThresholdBody = z.object({ threshold: z.coerce.number({ error: 'Threshold must be a number from 0 to 100' }).min(0, 'Threshold must be a number from 0 to 100').max(100, 'Threshold must be a number from 0 to 100').optional() });
export const ManualBody = z.object({
  receiptId: z.string({ error: 'receiptId is required' }).min(1, 'receiptId is required').max(100),
  transactionId: z.string({ error: 'transactionId is required' }).min(1, 'transactionId is required').max(100),
});

/** Candidates shown by "find": the best few transactions for one receipt, free or not. */
const FIND_LIMIT = 5;

/**
 * Matches (ADR 0021): every decision reads the side streams of its pair (a receipt's and a
 * transaction's), never the company's matches nor a read model, and appends to them with their
 * revisions. The read model only says which pair a match id names.
 */
export function matchRouter(deps: MatchDeps): Router {
  const { bus } = deps;
  const router = validIdParams(Router());
  const company = requireCompany();
  const scopeOf = (ctx: RequestContext) => (ctx.role === 'admin' ? {} : { userId: ctx.userId! });

  const sideFor = async (ctx: RequestContext, receiptId: string, transactionId: string): Promise<Side> => {
    const [r, t] = await Promise.all([deps.receipt(ctx.companyId!, receiptId), deps.transaction(ctx.companyId!, transactionId)]);
    return { ...(r ? { receiptName: r.name, receiptOwner: r.owner } : {}), ...(t ? { transactionOwner: t.owner } : {}) };
  };

  // A full run over the company (or the member's own records), on request.
  router.post('/matches/auto-match', company, async (req, res) => {
    const ctx = ctxOf(res);
    const threshold = await thresholdFor(deps, ctx.companyId!, ThresholdBody.parse(req.body ?? {}).threshold);
    const outcome = await runAutoMatch(deps, ctx, threshold, scopeOf(ctx));
    res.json({ ...outcome, message: `Auto-matched ${outcome.matched} receipts!` });
  });

  router.post('/matches/find/:id', company, async (req, res) => {
    const ctx = ctxOf(res);
    const receipt = await deps.receipt(ctx.companyId!, String(req.params.id));
    if (!receipt || (ctx.role !== 'admin' && receipt.owner !== ctx.userId)) throw new NotFoundError('Receipt not found', 'receipt_not_found');
    // The receipt's candidate block (any confidence), not the company's lines.
    const { transactions } = await deps.block(ctx.companyId!, { receiptIds: [receipt.id] }, scopeOf(ctx), 0);
    const scored = transactions
      .map((t) => ({ t, s: scoreMatch(receipt, t) }))
      .filter((x): x is { t: MatchTransaction; s: NonNullable<typeof x.s> } => x.s !== null)
      .sort((a, b) => b.s.confidence - a.s.confidence || (a.t.id < b.t.id ? -1 : 1))
      .slice(0, FIND_LIMIT);
    const threshold = await thresholdFor(deps, ctx.companyId!, ThresholdBody.parse(req.body ?? {}).threshold);
    let suggestedId: string | null = null;
    await send(req, res, bus, async (): Promise<Plan> => {
      suggestedId = null;
      const book = await new LoadedBook(bus.events, ctx.companyId!).load([receipt.id], scored.map((x) => x.t.id));
      const r = book.receipt(receipt.id);
      const rejected = (tId: string) => [...r.matches.values()].some((m) => m.status === 'rejected' && m.transactionId === tId);
      const best = scored.find((x) => x.s.confidence >= threshold && !confirmedOf(book.transaction(x.t.id)) && !rejected(x.t.id));
      const changes = best && !confirmedOf(r)
        ? decideProposals({ threshold, origin: 'find', proposals: [{ receiptId: receipt.id, transactionId: best.t.id, confidence: best.s.confidence, evidence: best.s.evidence }], considered: [], newId: () => (suggestedId = newId()) }, book)
        : [];
      return {
        appends: await book.appends(ctx.userId!, changes),
        body: {
          receiptId: receipt.id,
          suggested: changes.length > 0,
          matchId: suggestedId ?? confirmedOf(r)?.matchId ?? null,
          candidates: scored.map((x) => ({
            transaction_id: x.t.id, description: x.t.description, transaction_date: x.t.date, transaction_amount: x.t.amountCents / 100,
            match_confidence: x.s.confidence, evidence: x.s.evidence, already_matched: confirmedOf(book.transaction(x.t.id)) !== undefined,
          })),
        },
      };
    });
  });

  router.post('/matches', company, async (req, res) => {
    const ctx = ctxOf(res);
    const b = ManualBody.parse(req.body ?? {});
    const [r, t] = await Promise.all([deps.receipt(ctx.companyId!, b.receiptId), deps.transaction(ctx.companyId!, b.transactionId)]);
    // A non-admin links only two records of her own; another member's record answers as missing.
    const mine = (owner: string) => ctx.role === 'admin' || owner === ctx.userId;
    if (!r || !mine(r.owner)) throw new NotFoundError('Receipt not found', 'receipt_not_found');
    if (!t || !mine(t.owner)) throw new NotFoundError('Transaction not found', 'transaction_not_found');
    const score = scoreMatch(r, t);
    const evidence = score?.evidence ?? { amountDiffCents: null, amountRatio: null, amountKind: 'unknown', daysBetween: null, merchantSimilarity: null, uploaderIsCardHolder: null, reasons: ['Matched by hand'] };
    await send(req, res, bus, async (): Promise<Plan> => {
      const book = await new LoadedBook(bus.events, ctx.companyId!).load([r.id], [t.id]);
      const changes = decideManual({
        by: ctx.userId!, role: ctx.role!, receiptId: r.id, transactionId: t.id, confidence: score?.confidence ?? 0, evidence,
        side: { receiptName: r.name, receiptOwner: r.owner, transactionOwner: t.owner }, newId,
      }, book);
      const confirmed = changes.find((c) => c.kind === 'confirmed')!;
      return {
        appends: await book.appends(ctx.userId!, changes),
        body: { match: { id: confirmed.match.matchId, receipt_id: r.id, transaction_id: t.id, match_confidence: score?.confidence ?? 0, user_confirmed: true, evidence }, message: 'Match created' },
      };
    });
  });

  const decision = (type: 'ConfirmMatch' | 'RejectMatch' | 'DeleteMatch', message: string) => async (req: Request, res: Response) => {
    const ctx = ctxOf(res);
    const matchId = String(req.params.id);
    // The read model names the pair; its side streams decide (an unknown or stale id is a 404 there).
    const sides = await deps.matchSides(ctx.companyId!, matchId);
    if (!sides) throw new NotFoundError('Match not found', 'match_not_found');
    const side = await sideFor(ctx, sides.receiptId, sides.transactionId);
    await send(req, res, bus, async (): Promise<Plan> => {
      const book = await new LoadedBook(bus.events, ctx.companyId!).load([sides.receiptId], [sides.transactionId]);
      const changes = decidePair(type, { companyId: ctx.companyId!, by: ctx.userId!, role: ctx.role!, matchId, ...sides, side }, book);
      return { appends: await book.appends(ctx.userId!, changes), body: { success: true, id: matchId, message } };
    });
  };
  router.put('/matches/:id/confirm', company, decision('ConfirmMatch', 'Match confirmed'));
  router.put('/matches/:id/reject', company, decision('RejectMatch', 'Match rejected'));
  router.delete('/matches/:id', company, decision('DeleteMatch', 'Match deleted'));

  return router;
}

/** Extra appends that drop a receipt's matches when it is deleted (same append; its side streams only). */
export async function forgetReceiptAppends(bus: CommandBus, companyId: string, by: string, receiptId: string, _receiptName: string): Promise<Plan['appends']> {
  const book = await new LoadedBook(bus.events, companyId).load([receiptId], []);
  return book.appends(by, decideForget('receipt', receiptId, book));
}

/** Extra appends that drop a transaction's matches when it is deleted. */
export async function forgetTransactionAppends(bus: CommandBus, companyId: string, by: string, transactionId: string, _receiptNames: Map<string, string>): Promise<Plan['appends']> {
  const book = await new LoadedBook(bus.events, companyId).load([], [transactionId]);
  return book.appends(by, decideForget('transaction', transactionId, book));
}
