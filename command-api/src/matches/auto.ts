import {
  autoMatch,
  confirmedOf,
  decideProposals,
  deletedSince,
  DEFAULT_AUTO_MATCH_THRESHOLD,
  type AutoMatchOptions,
  type MatchProposal,
  type MatchStatus,
  type ReceiptInput,
  type RequestContext,
  type TransactionInput,
} from '@paperlink/domain';
import type { CommandBus } from '../core/bus';
import { newId } from '../core/ids';
import { LoadedBook } from './book';

/** A receipt as matching needs it, with its owner and file name. */
export interface MatchReceipt extends ReceiptInput {
  owner: string;
  name: string;
}
export interface MatchTransaction extends TransactionInput {
  owner: string;
}

/** A match as the read model knows it (a hint: every decision is checked on the side streams). */
export interface KnownMatch {
  matchId: string;
  receiptId: string;
  transactionId: string;
  status: MatchStatus;
}

/**
 * Ends a slice of background work (a job's run): resolves when the thread may go on, after the
 * requests in flight (infra's RequestActivity). Never passed by a request doing its own run.
 */
export type Pause = () => Promise<void>;

/** What an incremental run starts from: new or changed receipts, lines, or the posting days of new lines. */
export interface MatchSeed {
  receiptIds?: string[];
  transactionIds?: string[];
  /** First and last posting day ('YYYY-MM-DD') of imported lines. */
  days?: [string, string];
  /**
   * The log position of the event that brought this evidence (a job's). A pair a person deleted
   * after it is left out of the run: the person undid it knowing this evidence. Unset: now.
   */
  evidenceAt?: number;
}

export interface MatchDeps {
  bus: CommandBus;
  /** Receipts that OCR has read and transactions, of the company (of one member when `userId` is set): a full run. */
  inputs(companyId: string, scope: { userId?: string }): Promise<{ receipts: MatchReceipt[]; transactions: MatchTransaction[] }>;
  /**
   * The candidate block of a seed, through indexed read-model queries (amount and posting-day
   * blocks, domain/src/matching/blocking.ts): the seed's receipts, the receipts that could pay
   * the seed's lines, and every line those receipts could be matched to. Never the whole company.
   */
  block(companyId: string, seed: MatchSeed, scope: { userId?: string }, threshold: number, pause?: Pause): Promise<{ receipts: MatchReceipt[]; transactions: MatchTransaction[] }>;
  receipt(companyId: string, id: string): Promise<MatchReceipt | null>;
  transaction(companyId: string, id: string): Promise<MatchTransaction | null>;
  /** The two sides of a match, by match id (from the read model). */
  matchSides(companyId: string, matchId: string): Promise<{ receiptId: string; transactionId: string } | null>;
  /** Matches of the company with these statuses (read model), of these receipts when given. */
  matchesOf(companyId: string, statuses: MatchStatus[], receiptIds?: readonly string[], pause?: Pause): Promise<KnownMatch[]>;
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

export interface AutoMatchOutcome {
  matched: number;
  suggested: number;
  withdrawn: number;
  threshold: number;
  receiptsConsidered: number;
  transactionsConsidered: number;
  ms: number;
}

/** Proposals (and withdrawals) recorded per command: each command reads and appends its pairs' side streams only. */
const PAIRS_PER_COMMAND = 200;
/** Blocks this small are assigned in place; larger ones go to the worker pool. */
const IN_PLACE = 5_000;

/**
 * One auto-match run. Full (no seed): every free receipt and line of the company (or member),
 * on request. Incremental (a seed): the seed's candidate block only, so its cost does not grow with the company (ADR 0021). The
 * assignment is computed on read models; each proposal is then recorded by a command that
 * reads the two side streams of its pair and skips it when a person rejected the pair or
 * confirmed a side meanwhile (never decided on a read model that may lag).
 */
export async function runAutoMatch(deps: MatchDeps, ctx: RequestContext, threshold: number, scope: { userId?: string }, seed?: MatchSeed, pause?: Pause): Promise<AutoMatchOutcome> {
  const companyId = ctx.companyId!;
  const t0 = performance.now();
  const { receipts, transactions } = seed ? await deps.block(companyId, seed, scope, threshold, pause) : await deps.inputs(companyId, scope);
  await pause?.();
  const receiptIds = receipts.map((r) => r.id);
  const txIds = new Set(transactions.map((t) => t.id));
  // People's decisions the assignment leaves out: for a block from its side streams, for a full run from the read model.
  let decided: KnownMatch[];
  if (seed) {
    const book = await new LoadedBook(deps.bus.events, companyId).load(receiptIds, txIds);
    decided = [];
    for (const id of receiptIds) for (const m of book.receipt(id).matches.values()) if (m.status === 'confirmed' || m.status === 'rejected') decided.push(m);
    for (const id of txIds) {
      const side = book.transaction(id);
      const c = confirmedOf(side);
      if (c) decided.push(c);
      for (const m of side.matches.values()) if (m.status === 'rejected') decided.push(m);
    }
    // Pairs a person deleted after the run's evidence: left out like rejected ones, for this run only.
    const at = seed.evidenceAt;
    if (at !== undefined) {
      for (const id of receiptIds) {
        for (const m of book.receipt(id).matches.values()) if (m.status === 'deleted' && deletedSince(book.receipt(id), m.receiptId, m.transactionId, at)) decided.push({ ...m, status: 'rejected' });
      }
    }
  } else {
    decided = await deps.matchesOf(companyId, ['confirmed', 'rejected']);
  }
  await pause?.();
  const options: AutoMatchOptions = {
    threshold,
    confirmed: decided.filter((m) => m.status === 'confirmed').map((m) => [m.receiptId, m.transactionId] as const),
    rejected: decided.filter((m) => m.status === 'rejected').map((m) => [m.receiptId, m.transactionId] as const),
  };
  const proposals = deps.autoMatch && (!seed || transactions.length > IN_PLACE) ? await deps.autoMatch(receipts, transactions, options) : autoMatch(receipts, transactions, options);
  // Pending suggestions the run looked at: of its receipts (a block), or of everything in scope (a full run).
  await pause?.();
  const pending = await deps.matchesOf(companyId, ['pending'], seed ? receiptIds : undefined, pause);
  const inScope = new Set(receiptIds);
  const proposed = new Set(proposals.map((p) => `${p.receiptId}|${p.transactionId}`));
  const considered = pending.filter((m) => (inScope.has(m.receiptId) || (!seed && txIds.has(m.transactionId))) && !proposed.has(`${m.receiptId}|${m.transactionId}`));
  const outcome: AutoMatchOutcome = { matched: proposals.length, suggested: 0, withdrawn: 0, threshold, receiptsConsidered: receipts.length, transactionsConsidered: transactions.length, ms: 0 };
  for (let i = 0; i < Math.max(proposals.length, considered.length); i += PAIRS_PER_COMMAND) {
    const slice = proposals.slice(i, i + PAIRS_PER_COMMAND);
    const withdraw = considered.slice(i, i + PAIRS_PER_COMMAND);
    let counts = { suggested: 0, withdrawn: 0 };
    await pause?.();
    await deps.bus.run(ctx, async () => {
      const book = await new LoadedBook(deps.bus.events, companyId).load(
        [...slice.map((p) => p.receiptId), ...withdraw.map((m) => m.receiptId)],
        [...slice.map((p) => p.transactionId), ...withdraw.map((m) => m.transactionId)],
      );
      const changes = decideProposals({ threshold, origin: 'auto', proposals: slice, considered: withdraw, newId, ...(seed?.evidenceAt !== undefined ? { evidenceAt: seed.evidenceAt } : {}) }, book);
      counts = { suggested: changes.filter((c) => c.kind === 'suggested').length, withdrawn: changes.filter((c) => c.kind === 'withdrawn').length };
      return { appends: await book.appends(ctx.userId!, changes), body: null };
    });
    outcome.suggested += counts.suggested;
    outcome.withdrawn += counts.withdrawn;
  }
  outcome.ms = Math.round(performance.now() - t0);
  return outcome;
}
