import type { Decider } from '../core/decider';
import { ConflictError, NotFoundError } from '../core/errors';
import type { Role } from '../core/context';
import type { MatchEvidence, MatchProposal } from '../matching';

/**
 * The match events and types. Matches now live in the streams of their sides (sides.ts, ADR
 * 0021). `matchingDecider` below is the decider of the design before ADR 0021, when every match
 * of a company lived in one stream `matching-<companyId>`: it is kept to fold such old streams
 * once, when a data folder is upgraded (infra/src/eventstore/carry-legacy-matches.ts). People's
 * decisions are final for the machine in both: a confirmed pair is never re-suggested or
 * withdrawn by auto-match, and a rejected pair is never proposed again.
 */
export type MatchStatus = 'pending' | 'confirmed' | 'rejected' | 'withdrawn' | 'deleted';
export type MatchOrigin = 'auto' | 'find' | 'manual';

export interface Suggestion {
  matchId: string;
  receiptId: string;
  transactionId: string;
  confidence: number;
  evidence: MatchEvidence;
}

export type MatchEvent =
  | { type: 'MatchesSuggested'; data: { companyId: string; origin: MatchOrigin; threshold: number | null; by: string; suggestions: Suggestion[] } }
  | { type: 'MatchesWithdrawn'; data: { companyId: string; matchIds: string[]; reason: string } }
  | { type: 'MatchConfirmed'; data: { companyId: string; matchId: string; receiptId: string; transactionId: string; receiptName: string; by: string } }
  | { type: 'MatchRejected'; data: { companyId: string; matchId: string; receiptId: string; transactionId: string; by: string } }
  | { type: 'MatchDeleted'; data: { companyId: string; matchId: string; receiptId: string; transactionId: string; receiptName: string; wasConfirmed: boolean; by: string } };

/** Every event type of matching; `MatchesNoted` is the write side's copy in a transaction's stream (sides.ts). */
export const MATCH_EVENT_TYPES = ['MatchesSuggested', 'MatchesWithdrawn', 'MatchConfirmed', 'MatchRejected', 'MatchDeleted', 'MatchesNoted'] as const;

export interface MatchRecord {
  matchId: string;
  receiptId: string;
  transactionId: string;
  confidence: number;
  status: MatchStatus;
}

export interface MatchingState {
  matches: Map<string, MatchRecord>;
  /** receiptId → matchId, and transactionId → matchId, of confirmed matches. */
  confirmedReceipt: Map<string, string>;
  confirmedTransaction: Map<string, string>;
  /** `${receiptId}|${transactionId}` of rejected pairs. */
  rejected: Set<string>;
  /** pair → matchId of pending suggestions. */
  pending: Map<string, string>;
}

export const pairKey = (receiptId: string, transactionId: string) => `${receiptId}|${transactionId}`;

/** What a command may need to know about the two sides (read by the caller from read models). */
export interface Side {
  receiptName?: string;
  /** Owner of the receipt / transaction, for non-admin access. */
  receiptOwner?: string;
  transactionOwner?: string;
}

export type MatchingCommand =
  | {
      type: 'ApplyAutoMatch';
      companyId: string;
      by: string;
      threshold: number;
      origin: 'auto' | 'find';
      /** The assignment computed over free receipts and transactions. */
      proposals: MatchProposal[];
      /** Receipts and transactions the run looked at: their pending suggestions not in `proposals` are withdrawn. */
      scope: { receiptIds: ReadonlySet<string>; transactionIds: ReadonlySet<string> } | 'proposals-only';
      newId: () => string;
    }
  | { type: 'CreateManualMatch'; companyId: string; by: string; role: Role; receiptId: string; transactionId: string; confidence: number; evidence: MatchEvidence; side: Side; newId: () => string }
  | { type: 'ConfirmMatch'; companyId: string; by: string; role: Role; matchId: string; side: Side }
  | { type: 'RejectMatch'; companyId: string; by: string; role: Role; matchId: string; side: Side }
  | { type: 'DeleteMatch'; companyId: string; by: string; role: Role; matchId: string; side: Side }
  | { type: 'ForgetReceipt'; companyId: string; by: string; receiptId: string; receiptName: string }
  | { type: 'ForgetTransaction'; companyId: string; by: string; transactionId: string; receiptNames: Map<string, string> };

const empty = (): MatchingState => ({ matches: new Map(), confirmedReceipt: new Map(), confirmedTransaction: new Map(), rejected: new Set(), pending: new Map() });

function setStatus(state: MatchingState, matchId: string, status: MatchStatus): void {
  const m = state.matches.get(matchId);
  if (!m) return;
  const key = pairKey(m.receiptId, m.transactionId);
  if (m.status === 'pending') state.pending.delete(key);
  if (m.status === 'confirmed') {
    state.confirmedReceipt.delete(m.receiptId);
    state.confirmedTransaction.delete(m.transactionId);
  }
  m.status = status;
  if (status === 'pending') state.pending.set(key, matchId);
  if (status === 'confirmed') {
    state.confirmedReceipt.set(m.receiptId, matchId);
    state.confirmedTransaction.set(m.transactionId, matchId);
  }
  if (status === 'rejected') state.rejected.add(key);
}

/** Non-admins act only on matches both sides of which are theirs: another member's record is never theirs to link or see. */
function mayAct(role: Role, by: string, side: Side): boolean {
  return role === 'admin' || (side.receiptOwner === by && side.transactionOwner === by);
}

/** Pending suggestions that share a side with a pair: they are withdrawn when the pair is confirmed. */
function rivalsOf(state: MatchingState, receiptId: string, transactionId: string, except?: string): string[] {
  const out: string[] = [];
  for (const matchId of state.pending.values()) {
    if (matchId === except) continue;
    const m = state.matches.get(matchId)!;
    if (m.receiptId === receiptId || m.transactionId === transactionId) out.push(matchId);
  }
  return out;
}

/** The evolve mutates a private copy per fold; the state is rebuilt from events each time. */
export const matchingDecider: Decider<MatchingState, MatchingCommand, MatchEvent> = {
  initialState: empty,
  evolve(state, event) {
    switch (event.type) {
      case 'MatchesSuggested':
        for (const s of event.data.suggestions) {
          state.matches.set(s.matchId, { matchId: s.matchId, receiptId: s.receiptId, transactionId: s.transactionId, confidence: s.confidence, status: 'withdrawn' });
          setStatus(state, s.matchId, 'pending');
        }
        return state;
      case 'MatchesWithdrawn':
        for (const id of event.data.matchIds) setStatus(state, id, 'withdrawn');
        return state;
      case 'MatchConfirmed':
        setStatus(state, event.data.matchId, 'confirmed');
        return state;
      case 'MatchRejected':
        setStatus(state, event.data.matchId, 'rejected');
        return state;
      case 'MatchDeleted':
        setStatus(state, event.data.matchId, 'deleted');
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'ApplyAutoMatch': {
        const keep = new Set<string>();
        const suggestions: Suggestion[] = [];
        for (const p of command.proposals) {
          const key = pairKey(p.receiptId, p.transactionId);
          if (state.rejected.has(key) || state.confirmedReceipt.has(p.receiptId) || state.confirmedTransaction.has(p.transactionId)) continue;
          const existing = state.pending.get(key);
          if (existing) keep.add(existing);
          else suggestions.push({ matchId: command.newId(), receiptId: p.receiptId, transactionId: p.transactionId, confidence: p.confidence, evidence: p.evidence });
        }
        // A pending suggestion on a side that now has a better pair, or that the run no longer proposes, goes.
        const taken = new Set(suggestions.flatMap((s) => [`r:${s.receiptId}`, `t:${s.transactionId}`]));
        const withdrawn: string[] = [];
        for (const matchId of state.pending.values()) {
          if (keep.has(matchId)) continue;
          const m = state.matches.get(matchId)!;
          const inScope = command.scope === 'proposals-only' ? false : command.scope.receiptIds.has(m.receiptId) || command.scope.transactionIds.has(m.transactionId);
          if (inScope || taken.has(`r:${m.receiptId}`) || taken.has(`t:${m.transactionId}`)) withdrawn.push(matchId);
        }
        const events: MatchEvent[] = [];
        if (withdrawn.length > 0) events.push({ type: 'MatchesWithdrawn', data: { companyId: command.companyId, matchIds: withdrawn, reason: 'A newer matching run proposes other pairs' } });
        for (let i = 0; i < suggestions.length; i += 1000) {
          events.push({ type: 'MatchesSuggested', data: { companyId: command.companyId, origin: command.origin, threshold: command.threshold, by: command.by, suggestions: suggestions.slice(i, i + 1000) } });
        }
        return events;
      }
      case 'CreateManualMatch': {
        if (!mayAct(command.role, command.by, command.side)) throw new NotFoundError('Receipt or transaction not found', 'match_side_not_found');
        if (state.confirmedReceipt.has(command.receiptId)) throw new ConflictError('This receipt is already matched to a transaction. Delete that match first.', 'receipt_already_matched');
        if (state.confirmedTransaction.has(command.transactionId)) throw new ConflictError('This transaction is already matched to a receipt. Delete that match first.', 'transaction_already_matched');
        const key = pairKey(command.receiptId, command.transactionId);
        const matchId = state.pending.get(key) ?? command.newId();
        const events: MatchEvent[] = [];
        const rivals = rivalsOf(state, command.receiptId, command.transactionId, matchId);
        if (rivals.length > 0) events.push({ type: 'MatchesWithdrawn', data: { companyId: command.companyId, matchIds: rivals, reason: 'A person matched one side to something else' } });
        if (!state.pending.has(key)) {
          events.push({ type: 'MatchesSuggested', data: { companyId: command.companyId, origin: 'manual', threshold: null, by: command.by, suggestions: [{ matchId, receiptId: command.receiptId, transactionId: command.transactionId, confidence: command.confidence, evidence: command.evidence }] } });
        }
        events.push({ type: 'MatchConfirmed', data: { companyId: command.companyId, matchId, receiptId: command.receiptId, transactionId: command.transactionId, receiptName: command.side.receiptName ?? '', by: command.by } });
        return events;
      }
      case 'ConfirmMatch':
      case 'RejectMatch':
      case 'DeleteMatch': {
        const m = state.matches.get(command.matchId);
        if (!m || m.status === 'withdrawn' || m.status === 'deleted' || !mayAct(command.role, command.by, command.side)) throw new NotFoundError('Match not found', 'match_not_found');
        const base = { companyId: command.companyId, matchId: m.matchId, receiptId: m.receiptId, transactionId: m.transactionId, by: command.by };
        if (command.type === 'ConfirmMatch') {
          if (m.status === 'confirmed') return [];
          if (m.status === 'rejected') throw new ConflictError('This match was rejected', 'match_rejected');
          if (state.confirmedReceipt.has(m.receiptId)) throw new ConflictError('This receipt is already matched to another transaction', 'receipt_already_matched');
          if (state.confirmedTransaction.has(m.transactionId)) throw new ConflictError('This transaction is already matched to another receipt', 'transaction_already_matched');
          const rivals = rivalsOf(state, m.receiptId, m.transactionId, m.matchId);
          return [
            ...(rivals.length > 0 ? [{ type: 'MatchesWithdrawn' as const, data: { companyId: command.companyId, matchIds: rivals, reason: 'Another match of the same receipt or transaction was confirmed' } }] : []),
            { type: 'MatchConfirmed', data: { ...base, receiptName: command.side.receiptName ?? '' } },
          ];
        }
        if (command.type === 'RejectMatch') {
          if (m.status === 'rejected') return [];
          if (m.status === 'confirmed') throw new ConflictError('This match is confirmed; delete it instead', 'match_confirmed');
          return [{ type: 'MatchRejected', data: base }];
        }
        if (m.status === 'rejected') throw new NotFoundError('Match not found', 'match_not_found');
        return [{ type: 'MatchDeleted', data: { ...base, receiptName: command.side.receiptName ?? '', wasConfirmed: m.status === 'confirmed' } }];
      }
      case 'ForgetReceipt':
      case 'ForgetTransaction': {
        const events: MatchEvent[] = [];
        const pendingIds: string[] = [];
        for (const m of state.matches.values()) {
          const hit = command.type === 'ForgetReceipt' ? m.receiptId === command.receiptId : m.transactionId === command.transactionId;
          if (!hit) continue;
          if (m.status === 'pending') pendingIds.push(m.matchId);
          if (m.status === 'confirmed') {
            const receiptName = command.type === 'ForgetReceipt' ? command.receiptName : command.receiptNames.get(m.receiptId) ?? '';
            events.push({ type: 'MatchDeleted', data: { companyId: command.companyId, matchId: m.matchId, receiptId: m.receiptId, transactionId: m.transactionId, receiptName, wasConfirmed: true, by: command.by } });
          }
        }
        if (pendingIds.length > 0) events.unshift({ type: 'MatchesWithdrawn', data: { companyId: command.companyId, matchIds: pendingIds, reason: command.type === 'ForgetReceipt' ? 'The receipt was deleted' : 'The transaction was deleted' } });
        return events;
      }
    }
  },
};

export { matchingStream } from '../core/streams';
