import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import {
  autoMatch,
  DEFAULT_AUTO_MATCH_THRESHOLD,
  fold,
  matchingDecider,
  matchingStream,
  NotFoundError,
  scoreMatch,
  type AutoMatchOptions,
  type ExpectedRevision,
  type MatchEvent,
  type MatchProposal,
  type MatchingCommand,
  type MatchingState,
  type ReceiptInput,
  type RequestContext,
  type Side,
  type TransactionInput,
} from '@paperlink/domain';
import type { CommandBus, Plan } from '../core/bus';
import { send } from '../core/http';
import { newId } from '../core/ids';
import { chunksInSlices } from '../core/slices';
import { ctxOf, requireCompany } from '../http/context';
import { validIdParams } from '../http/params';

/** A receipt as matching needs it, with its owner and file name. */
export interface MatchReceipt extends ReceiptInput {
  owner: string;
  name: string;
}
export interface MatchTransaction extends TransactionInput {
  owner: string;
}

export interface MatchDeps {
  bus: CommandBus;
  /** Receipts that OCR has read and transactions, of the company (of one member when `userId` is set). */
  inputs(companyId: string, scope: { userId?: string }): Promise<{ receipts: MatchReceipt[]; transactions: MatchTransaction[] }>;
  receipt(companyId: string, id: string): Promise<MatchReceipt | null>;
  transaction(companyId: string, id: string): Promise<MatchTransaction | null>;
  /** The two sides of a match, by match id (from the read model). */
  matchSides(companyId: string, matchId: string): Promise<{ receiptId: string; transactionId: string } | null>;
  /**
   * Runs `autoMatch` off the request thread (infra's worker pool): over a company's 200,000
   * transactions it is seconds of work. Without it, it runs in place (tools and tests).
   */
  autoMatch?(receipts: MatchReceipt[], transactions: MatchTransaction[], options: AutoMatchOptions): Promise<MatchProposal[]>;
  /** The company's autoMatchThreshold setting: the threshold when a call names none. */
  threshold?(companyId: string): Promise<number>;
}

/** The threshold a run uses: the call's own, else the company's setting, else the default. */
export async function thresholdFor(deps: Pick<MatchDeps, 'threshold'>, companyId: string, asked: number | undefined): Promise<number> {
  return asked ?? (deps.threshold ? await deps.threshold(companyId) : DEFAULT_AUTO_MATCH_THRESHOLD);
}

async function loadMatching(bus: CommandBus, companyId: string): Promise<{ state: MatchingState; expected: ExpectedRevision }> {
  const recorded = await bus.events.readStream(matchingStream(companyId));
  return { state: fold(matchingDecider, recorded as unknown as MatchEvent[]), expected: recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1]!.revision };
}

function planMatching(bus: CommandBus, companyId: string, command: (s: MatchingState) => Promise<MatchingCommand> | MatchingCommand, body: (events: MatchEvent[], s: MatchingState) => unknown) {
  return async (): Promise<Plan> => {
    const { state, expected } = await loadMatching(bus, companyId);
    const cmd = await command(state);
    const events = matchingDecider.decide(cmd, state);
    const out = body(events, state);
    return { appends: [{ streamId: matchingStream(companyId), expectedRevision: expected, events }], body: out };
  };
}

export interface AutoMatchOutcome {
  matched: number;
  suggested: number;
  withdrawn: number;
  threshold: number;
  receiptsConsidered: number;
  transactionsConsidered: number;
  ms: number;
}

/** Transaction ids added to the run's scope per turn of the event loop. */
const ID_SLICE = 20_000;

/**
 * One auto-match run: the one-to-one assignment over the free receipts and transactions in
 * scope, then the decider keeps what people decided and records the new suggestions.
 */
export async function runAutoMatch(deps: MatchDeps, ctx: RequestContext, threshold: number, scope: { userId?: string }): Promise<AutoMatchOutcome> {
  const companyId = ctx.companyId!;
  let outcome: AutoMatchOutcome | undefined;
  await deps.bus.run(ctx, planMatching(deps.bus, companyId, async (state) => {
    const t = performance.now();
    const { receipts, transactions } = await deps.inputs(companyId, scope);
    const confirmed = [...state.confirmedReceipt.values()].map((id) => state.matches.get(id)!).map((m) => [m.receiptId, m.transactionId] as const);
    const rejected = [...state.rejected].map((k) => k.split('|') as [string, string]);
    const options = { threshold, confirmed, rejected };
    const proposals = deps.autoMatch ? await deps.autoMatch(receipts, transactions, options) : autoMatch(receipts, transactions, options);
    outcome = { matched: proposals.length, suggested: 0, withdrawn: 0, threshold, receiptsConsidered: receipts.length, transactionsConsidered: transactions.length, ms: 0 };
    outcome.ms = Math.round(performance.now() - t);
    // The set of a company's 400,000 transaction ids is built a slice per turn of the event
    // loop: in one go it held the request thread for 80 ms.
    const transactionIds = new Set<string>();
    await chunksInSlices(transactions, ID_SLICE, (chunk) => {
      for (const x of chunk) transactionIds.add(x.id);
    });
    return {
      type: 'ApplyAutoMatch', companyId, by: ctx.userId!, threshold, origin: 'auto', proposals,
      scope: { receiptIds: new Set(receipts.map((r) => r.id)), transactionIds },
      newId,
    };
  }, (events) => {
    for (const e of events) {
      if (e.type === 'MatchesSuggested') outcome!.suggested += e.data.suggestions.length;
      if (e.type === 'MatchesWithdrawn') outcome!.withdrawn += e.data.matchIds.length;
    }
    return outcome;
  }));
  return outcome!;
}

export const ThresholdBody = z.object({ threshold: z.coerce.number({ error: 'Threshold must be a number from 0 to 100' }).min(0, 'Threshold must be a number from 0 to 100').max(100, 'Threshold must be a number from 0 to 100').optional() });
export const ManualBody = z.object({
  receiptId: z.string({ error: 'receiptId is required' }).min(1, 'receiptId is required').max(100),
  transactionId: z.string({ error: 'transactionId is required' }).min(1, 'transactionId is required').max(100),
});

/** Candidates shown by "find": the best few transactions for one receipt, free or not. */
const FIND_LIMIT = 5;

export function matchRouter(deps: MatchDeps): Router {
  const { bus } = deps;
  const router = validIdParams(Router());
  const company = requireCompany();
  const scopeOf = (ctx: RequestContext) => (ctx.role === 'admin' ? {} : { userId: ctx.userId! });

  const sideFor = async (ctx: RequestContext, receiptId: string, transactionId: string): Promise<Side> => {
    const [r, t] = await Promise.all([deps.receipt(ctx.companyId!, receiptId), deps.transaction(ctx.companyId!, transactionId)]);
    return { ...(r ? { receiptName: r.name, receiptOwner: r.owner } : {}), ...(t ? { transactionOwner: t.owner } : {}) };
  };

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
    const { transactions } = await deps.inputs(ctx.companyId!, scopeOf(ctx));
    const scored = transactions
      .map((t) => ({ t, s: scoreMatch(receipt, t) }))
      .filter((x): x is { t: MatchTransaction; s: NonNullable<typeof x.s> } => x.s !== null)
      .sort((a, b) => b.s.confidence - a.s.confidence)
      .slice(0, FIND_LIMIT);
    const threshold = await thresholdFor(deps, ctx.companyId!, ThresholdBody.parse(req.body ?? {}).threshold);
    let suggestedId: string | null = null;
    await send(req, res, bus, planMatching(bus, ctx.companyId!, (state) => {
      const best = scored.find((x) => x.s.confidence >= threshold && !state.confirmedTransaction.has(x.t.id) && !state.rejected.has(`${receipt.id}|${x.t.id}`));
      const free = !state.confirmedReceipt.has(receipt.id);
      return {
        type: 'ApplyAutoMatch', companyId: ctx.companyId!, by: ctx.userId!, threshold, origin: 'find',
        proposals: best && free ? [{ receiptId: receipt.id, transactionId: best.t.id, confidence: best.s.confidence, evidence: best.s.evidence }] : [],
        scope: 'proposals-only',
        newId: () => (suggestedId = newId()),
      };
    }, (events, state) => ({
      receiptId: receipt.id,
      suggested: suggestedId !== null || events.length > 0,
      matchId: suggestedId ?? state.confirmedReceipt.get(receipt.id) ?? null,
      candidates: scored.map((x) => ({
        transaction_id: x.t.id, description: x.t.description, transaction_date: x.t.date, transaction_amount: x.t.amountCents / 100,
        match_confidence: x.s.confidence, evidence: x.s.evidence, already_matched: state.confirmedTransaction.has(x.t.id),
      })),
    })));
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
    let matchId = '';
    await send(req, res, bus, planMatching(bus, ctx.companyId!, () => ({
      type: 'CreateManualMatch', companyId: ctx.companyId!, by: ctx.userId!, role: ctx.role!, receiptId: r.id, transactionId: t.id,
      confidence: score?.confidence ?? 0, evidence, side: { receiptName: r.name, receiptOwner: r.owner, transactionOwner: t.owner },
      newId: () => (matchId = newId()),
    }), (events) => {
      const confirmed = events.find((e) => e.type === 'MatchConfirmed');
      return { match: { id: confirmed?.type === 'MatchConfirmed' ? confirmed.data.matchId : matchId, receipt_id: r.id, transaction_id: t.id, match_confidence: score?.confidence ?? 0, user_confirmed: true, evidence }, message: 'Match created' };
    }));
  });

  const decision = (type: 'ConfirmMatch' | 'RejectMatch' | 'DeleteMatch', message: string) => async (req: Request, res: Response) => {
    const ctx = ctxOf(res);
    const matchId = String(req.params.id);
    const sides = await deps.matchSides(ctx.companyId!, matchId);
    if (!sides) throw new NotFoundError('Match not found', 'match_not_found');
    const side = await sideFor(ctx, sides.receiptId, sides.transactionId);
    await send(req, res, bus, planMatching(bus, ctx.companyId!, () => ({ type, companyId: ctx.companyId!, by: ctx.userId!, role: ctx.role!, matchId, side }), () => ({ success: true, id: matchId, message })));
  };
  router.put('/matches/:id/confirm', company, decision('ConfirmMatch', 'Match confirmed'));
  router.put('/matches/:id/reject', company, decision('RejectMatch', 'Match rejected'));
  router.delete('/matches/:id', company, decision('DeleteMatch', 'Match deleted'));

  return router;
}

/** Extra appends that drop a receipt's matches when it is deleted (same atomic append). */
export async function forgetReceiptAppends(bus: CommandBus, companyId: string, by: string, receiptId: string, receiptName: string): Promise<Plan['appends']> {
  const { state, expected } = await loadMatching(bus, companyId);
  const events = matchingDecider.decide({ type: 'ForgetReceipt', companyId, by, receiptId, receiptName }, state);
  return events.length > 0 ? [{ streamId: matchingStream(companyId), expectedRevision: expected, events }] : [];
}

/** Extra appends that drop a transaction's matches when it is deleted. */
export async function forgetTransactionAppends(bus: CommandBus, companyId: string, by: string, transactionId: string, receiptNames: Map<string, string>): Promise<Plan['appends']> {
  const { state, expected } = await loadMatching(bus, companyId);
  const events = matchingDecider.decide({ type: 'ForgetTransaction', companyId, by, transactionId, receiptNames }, state);
  return events.length > 0 ? [{ streamId: matchingStream(companyId), expectedRevision: expected, events }] : [];
}
