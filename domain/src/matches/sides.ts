import { ConflictError, NotFoundError } from '../core/errors';
import type { Role } from '../core/context';
import type { MatchEvidence, MatchProposal } from '../matching';
import type { MatchEvent, MatchOrigin, MatchStatus, Side, Suggestion } from './matches';

/**
 * Matches sized to their decisions (ADR 0021). Every match is a pair (receipt,
 * transaction); its facts live in two small streams, one per side:
 *
 * - `receiptMatches-<receipt>` holds the public events (MatchesSuggested, MatchesWithdrawn,
 *   MatchConfirmed, MatchRejected, MatchDeleted) of the receipt's matches, exactly as the
 *   projections know them, each about this receipt only;
 * - `transactionMatches-<transaction>` holds `MatchesNoted`: the same status changes, as the
 *   transaction sees them (the write side's copy; no projection reads it).
 *
 * A decision on a pair reads the two streams and appends to both with their revisions, so two
 * decisions that touch one side conflict and the bus plans the later one again: a receipt is
 * confirmed to at most one transaction and a transaction to one receipt, under concurrency.
 * Either stream alone knows the status of every match of its side: rejected pairs stay
 * rejected (auto-match never proposes them again), confirmed ones stay confirmed (auto-match
 * never withdraws them).
 */
export type MatchNoteReason = 'mirror' | 'carried' | 'carry-complete';

export interface NotedMatch {
  matchId: string;
  receiptId: string;
  transactionId: string;
  confidence: number;
  status: MatchStatus;
  /** The receipt's file name when the match was confirmed (a later delete names it). */
  receiptName?: string;
}

/**
 * A side's copy of status changes. `mirror`: written with every change, in the transaction's
 * stream. `carried`: the state of a side as the company's old stream `matching-<company>` left
 * it, written once by the upgrade (ADR 0021). `carry-complete`: the upgrade's end mark.
 */
export interface MatchesNotedEvent {
  type: 'MatchesNoted';
  data: { companyId: string; reason: MatchNoteReason; matches: NotedMatch[] };
}

export type SideEvent = MatchEvent | MatchesNotedEvent;

export interface SideState {
  matches: Map<string, NotedMatch>;
  /**
   * Pairs a person deleted (`receiptId|transactionId`), at the log position of the deletion when
   * the fold was given one: a run started by evidence older than that does not propose the pair
   * again (its evidence is what the person undid).
   */
  deletedAt: Map<string, number>;
}

export const emptySide = (): SideState => ({ matches: new Map(), deletedAt: new Map() });
const pairKey = (receiptId: string, transactionId: string) => `${receiptId}|${transactionId}`;

function setStatus(state: SideState, m: Omit<NotedMatch, 'status' | 'confidence'> & { confidence?: number }, status: MatchStatus, receiptName?: string): void {
  const known = state.matches.get(m.matchId);
  const name = receiptName ?? known?.receiptName;
  state.matches.set(m.matchId, {
    matchId: m.matchId,
    receiptId: m.receiptId,
    transactionId: m.transactionId,
    confidence: m.confidence ?? known?.confidence ?? 0,
    status,
    ...(name !== undefined ? { receiptName: name } : {}),
  });
}

/** Folds one event of a side stream (either kind of side); a recorded event also brings its log position. */
export function evolveSide(state: SideState, event: SideEvent & { position?: number }): SideState {
  const deletedHere = (m: { receiptId: string; transactionId: string }) => {
    if (typeof event.position === 'number') state.deletedAt.set(pairKey(m.receiptId, m.transactionId), event.position);
  };
  switch (event.type) {
    case 'MatchesSuggested':
      for (const s of event.data.suggestions) {
        setStatus(state, s, 'pending');
        // Suggested again after a deletion (newer evidence, or by hand): the deletion no longer holds the pair back.
        state.deletedAt.delete(pairKey(s.receiptId, s.transactionId));
      }
      return state;
    case 'MatchesWithdrawn':
      for (const id of event.data.matchIds) {
        const m = state.matches.get(id);
        if (m) m.status = 'withdrawn';
      }
      return state;
    case 'MatchConfirmed':
      setStatus(state, event.data, 'confirmed', event.data.receiptName);
      return state;
    case 'MatchRejected':
      setStatus(state, event.data, 'rejected');
      return state;
    case 'MatchDeleted':
      setStatus(state, event.data, 'deleted');
      deletedHere(event.data);
      return state;
    case 'MatchesNoted':
      for (const m of event.data.matches) {
        setStatus(state, m, m.status, m.receiptName);
        if (m.status === 'deleted') deletedHere(m);
        else if (m.status === 'pending' || m.status === 'confirmed') state.deletedAt.delete(pairKey(m.receiptId, m.transactionId));
      }
      return state;
  }
}

export const foldSide = (events: Iterable<SideEvent & { position?: number }>): SideState => {
  let s = emptySide();
  for (const e of events) s = evolveSide(s, e);
  return s;
};

export const confirmedOf = (side: SideState): NotedMatch | undefined => [...side.matches.values()].find((m) => m.status === 'confirmed');
export const pendingOf = (side: SideState): NotedMatch[] => [...side.matches.values()].filter((m) => m.status === 'pending');
/** Whether the pair was rejected (by either side's record). */
const rejectedIn = (side: SideState, receiptId: string, transactionId: string) =>
  [...side.matches.values()].some((m) => m.status === 'rejected' && m.receiptId === receiptId && m.transactionId === transactionId);
/** Whether a person deleted the pair after the log position `at` (by either side's record). */
export const deletedSince = (side: SideState, receiptId: string, transactionId: string, at: number): boolean =>
  (side.deletedAt.get(pairKey(receiptId, transactionId)) ?? -Infinity) > at;
const pendingPair = (side: SideState, receiptId: string, transactionId: string) =>
  [...side.matches.values()].find((m) => m.status === 'pending' && m.receiptId === receiptId && m.transactionId === transactionId);

/** The side streams a decision has read: a missing one is a decision's bug, not an empty side. */
export interface MatchBook {
  receipt(receiptId: string): SideState;
  transaction(transactionId: string): SideState;
}

/** A status change of one match, decided; {@link appendsOfChanges} turns changes into the two sides' events. */
export type MatchChange =
  | { kind: 'suggested'; match: NotedMatch; evidence: MatchEvidence; origin: MatchOrigin; threshold: number | null }
  | { kind: 'withdrawn'; match: NotedMatch; reason: string }
  | { kind: 'confirmed'; match: NotedMatch; receiptName: string }
  | { kind: 'rejected'; match: NotedMatch }
  | { kind: 'deleted'; match: NotedMatch; receiptName: string; wasConfirmed: boolean };

/** Non-admins act only on matches both sides of which are theirs. */
function mayAct(role: Role, by: string, side: Side): boolean {
  return role === 'admin' || (side.receiptOwner === by && side.transactionOwner === by);
}

/** Pending matches that share a side with the pair, except `except`: withdrawn when the pair is confirmed. */
function rivals(book: MatchBook, receiptId: string, transactionId: string, except?: string): NotedMatch[] {
  const out = new Map<string, NotedMatch>();
  for (const m of [...pendingOf(book.receipt(receiptId)), ...pendingOf(book.transaction(transactionId))]) if (m.matchId !== except) out.set(m.matchId, m);
  return [...out.values()];
}

export interface PairDecision {
  companyId: string;
  by: string;
  role: Role;
  matchId: string;
  receiptId: string;
  transactionId: string;
  side: Side;
}

/** Confirm, reject or delete one match, on the streams of its two sides. */
export function decidePair(type: 'ConfirmMatch' | 'RejectMatch' | 'DeleteMatch', c: PairDecision, book: MatchBook): MatchChange[] {
  // The receipt's stream holds the public events: its record is the match's status.
  const m = book.receipt(c.receiptId).matches.get(c.matchId);
  if (!m || m.transactionId !== c.transactionId || m.status === 'withdrawn' || m.status === 'deleted' || !mayAct(c.role, c.by, c.side)) {
    throw new NotFoundError('Match not found', 'match_not_found');
  }
  if (type === 'ConfirmMatch') {
    if (m.status === 'confirmed') return [];
    if (m.status === 'rejected') throw new ConflictError('This match was rejected', 'match_rejected');
    const r = confirmedOf(book.receipt(m.receiptId));
    if (r && r.matchId !== m.matchId) throw new ConflictError('This receipt is already matched to another transaction', 'receipt_already_matched');
    const t = confirmedOf(book.transaction(m.transactionId));
    if (t && t.matchId !== m.matchId) throw new ConflictError('This transaction is already matched to another receipt', 'transaction_already_matched');
    return [
      ...rivals(book, m.receiptId, m.transactionId, m.matchId).map((x): MatchChange => ({ kind: 'withdrawn', match: x, reason: 'Another match of the same receipt or transaction was confirmed' })),
      { kind: 'confirmed', match: m, receiptName: c.side.receiptName ?? '' },
    ];
  }
  if (type === 'RejectMatch') {
    if (m.status === 'rejected') return [];
    if (m.status === 'confirmed') throw new ConflictError('This match is confirmed; delete it instead', 'match_confirmed');
    return [{ kind: 'rejected', match: m }];
  }
  if (m.status === 'rejected') throw new NotFoundError('Match not found', 'match_not_found');
  return [{ kind: 'deleted', match: m, receiptName: m.receiptName ?? c.side.receiptName ?? '', wasConfirmed: m.status === 'confirmed' }];
}

export interface ManualMatch {
  by: string;
  role: Role;
  receiptId: string;
  transactionId: string;
  confidence: number;
  evidence: MatchEvidence;
  side: Side;
  newId: () => string;
}

/** A person matches a receipt to a transaction: suggested (unless pending already) and confirmed at once. */
export function decideManual(c: ManualMatch, book: MatchBook): MatchChange[] {
  if (!mayAct(c.role, c.by, c.side)) throw new NotFoundError('Receipt or transaction not found', 'match_side_not_found');
  if (confirmedOf(book.receipt(c.receiptId))) throw new ConflictError('This receipt is already matched to a transaction. Delete that match first.', 'receipt_already_matched');
  if (confirmedOf(book.transaction(c.transactionId))) throw new ConflictError('This transaction is already matched to a receipt. Delete that match first.', 'transaction_already_matched');
  const existing = pendingPair(book.receipt(c.receiptId), c.receiptId, c.transactionId);
  const match: NotedMatch = existing ?? { matchId: c.newId(), receiptId: c.receiptId, transactionId: c.transactionId, confidence: c.confidence, status: 'pending' };
  const out: MatchChange[] = rivals(book, c.receiptId, c.transactionId, match.matchId).map((x) => ({ kind: 'withdrawn', match: x, reason: 'A person matched one side to something else' }));
  if (!existing) out.push({ kind: 'suggested', match, evidence: c.evidence, origin: 'manual', threshold: null });
  out.push({ kind: 'confirmed', match, receiptName: c.side.receiptName ?? '' });
  return out;
}

export interface ApplyProposals {
  threshold: number;
  origin: 'auto' | 'find';
  proposals: readonly MatchProposal[];
  /**
   * Pending matches the run looked at (read from the read model, checked here against the
   * streams): those not proposed again are withdrawn. Empty for "find" (proposals only).
   */
  considered: ReadonlyArray<{ matchId: string; receiptId: string; transactionId: string }>;
  newId: () => string;
  /**
   * The log position of the evidence the run was started by (a job's event). A pair a person
   * deleted after it is skipped: the run would undo that person's decision with what they had
   * already seen (a job retried, or run late under load). Unset for runs a person asks for now.
   */
  evidenceAt?: number;
}

/**
 * Records an auto-match run's proposals on the streams of their sides: a pair rejected by a
 * person, or a side confirmed, is skipped (a person's decision is never overridden); a pair
 * already pending is kept; a pending match the run considered and no longer proposes, or
 * whose side a new suggestion takes, is withdrawn.
 */
export function decideProposals(c: ApplyProposals, book: MatchBook): MatchChange[] {
  const keep = new Set<string>();
  const out: MatchChange[] = [];
  const taken = new Set<string>();
  const suggested: MatchChange[] = [];
  for (const p of c.proposals) {
    const r = book.receipt(p.receiptId);
    const t = book.transaction(p.transactionId);
    if (rejectedIn(r, p.receiptId, p.transactionId) || rejectedIn(t, p.receiptId, p.transactionId)) continue;
    if (c.evidenceAt !== undefined && (deletedSince(r, p.receiptId, p.transactionId, c.evidenceAt) || deletedSince(t, p.receiptId, p.transactionId, c.evidenceAt))) continue;
    if (confirmedOf(r) || confirmedOf(t)) continue;
    if (taken.has(`r:${p.receiptId}`) || taken.has(`t:${p.transactionId}`)) continue;
    taken.add(`r:${p.receiptId}`);
    taken.add(`t:${p.transactionId}`);
    const existing = pendingPair(r, p.receiptId, p.transactionId);
    if (existing) {
      keep.add(existing.matchId);
      continue;
    }
    const match: NotedMatch = { matchId: c.newId(), receiptId: p.receiptId, transactionId: p.transactionId, confidence: p.confidence, status: 'pending' };
    suggested.push({ kind: 'suggested', match, evidence: p.evidence, origin: c.origin, threshold: c.threshold });
  }
  const newSides = new Set(suggested.flatMap((s) => [`r:${s.match.receiptId}`, `t:${s.match.transactionId}`]));
  const withdrawn = new Map<string, NotedMatch>();
  const consider = (m: NotedMatch, inScope: boolean) => {
    if (m.status !== 'pending' || keep.has(m.matchId) || withdrawn.has(m.matchId)) return;
    if (inScope || newSides.has(`r:${m.receiptId}`) || newSides.has(`t:${m.transactionId}`)) withdrawn.set(m.matchId, m);
  };
  for (const x of c.considered) {
    const m = book.receipt(x.receiptId).matches.get(x.matchId);
    if (m) consider(m, true);
  }
  for (const s of suggested) {
    for (const m of pendingOf(book.receipt(s.match.receiptId))) consider(m, false);
    for (const m of pendingOf(book.transaction(s.match.transactionId))) consider(m, false);
  }
  for (const m of withdrawn.values()) out.push({ kind: 'withdrawn', match: m, reason: 'A newer matching run proposes other pairs' });
  return [...out, ...suggested];
}

/** A receipt or a transaction is deleted: its pending matches are withdrawn, its confirmed ones deleted. */
export function decideForget(kind: 'receipt' | 'transaction', id: string, book: MatchBook): MatchChange[] {
  const side = kind === 'receipt' ? book.receipt(id) : book.transaction(id);
  const reason = kind === 'receipt' ? 'The receipt was deleted' : 'The transaction was deleted';
  const out: MatchChange[] = [];
  for (const m of side.matches.values()) {
    if (m.status === 'pending') out.push({ kind: 'withdrawn', match: m, reason });
    if (m.status === 'confirmed') out.push({ kind: 'deleted', match: m, receiptName: m.receiptName ?? '', wasConfirmed: true });
  }
  return out;
}

/** The other-side streams a decision's changes touch (besides the pair's own). */
export function sidesOf(changes: readonly MatchChange[]): { receiptIds: string[]; transactionIds: string[] } {
  return { receiptIds: [...new Set(changes.map((c) => c.match.receiptId))], transactionIds: [...new Set(changes.map((c) => c.match.transactionId))] };
}

const STATUS_AFTER: Record<MatchChange['kind'], MatchStatus> = { suggested: 'pending', withdrawn: 'withdrawn', confirmed: 'confirmed', rejected: 'rejected', deleted: 'deleted' };

/**
 * The events of a decision, per side: public events in each receipt's stream, a note in each
 * transaction's. Transactions come first: where appends are not atomic (EventStoreDB, ADR
 * 0016), a prefix leaves a transaction claiming a match its receipt does not know yet, which
 * blocks nothing but that transaction and which the retry (or any decision on the match) completes.
 */
export function eventsOfChanges(companyId: string, by: string, changes: readonly MatchChange[]): { transactions: Map<string, MatchesNotedEvent[]>; receipts: Map<string, MatchEvent[]> } {
  const notes = new Map<string, NotedMatch[]>();
  const receipts = new Map<string, MatchEvent[]>();
  const push = (receiptId: string, e: MatchEvent) => {
    const list = receipts.get(receiptId) ?? [];
    const last = list[list.length - 1];
    // Adjacent withdrawals (same reason) and suggestions (same run) of one receipt share one event.
    if (last?.type === 'MatchesWithdrawn' && e.type === 'MatchesWithdrawn' && last.data.reason === e.data.reason) last.data.matchIds.push(...e.data.matchIds);
    else if (last?.type === 'MatchesSuggested' && e.type === 'MatchesSuggested' && last.data.origin === e.data.origin && last.data.threshold === e.data.threshold) last.data.suggestions.push(...e.data.suggestions);
    else list.push(e);
    receipts.set(receiptId, list);
  };
  for (const c of changes) {
    const m = c.match;
    const base = { companyId, matchId: m.matchId, receiptId: m.receiptId, transactionId: m.transactionId, by };
    switch (c.kind) {
      case 'suggested': {
        const s: Suggestion = { matchId: m.matchId, receiptId: m.receiptId, transactionId: m.transactionId, confidence: m.confidence, evidence: c.evidence };
        push(m.receiptId, { type: 'MatchesSuggested', data: { companyId, origin: c.origin, threshold: c.threshold, by, suggestions: [s] } });
        break;
      }
      case 'withdrawn':
        push(m.receiptId, { type: 'MatchesWithdrawn', data: { companyId, matchIds: [m.matchId], reason: c.reason } });
        break;
      case 'confirmed':
        push(m.receiptId, { type: 'MatchConfirmed', data: { ...base, receiptName: c.receiptName } });
        break;
      case 'rejected':
        push(m.receiptId, { type: 'MatchRejected', data: base });
        break;
      case 'deleted':
        push(m.receiptId, { type: 'MatchDeleted', data: { ...base, receiptName: c.receiptName, wasConfirmed: c.wasConfirmed } });
        break;
    }
    const name = c.kind === 'confirmed' ? c.receiptName : m.receiptName;
    const list = notes.get(m.transactionId) ?? [];
    list.push({ matchId: m.matchId, receiptId: m.receiptId, transactionId: m.transactionId, confidence: m.confidence, status: STATUS_AFTER[c.kind], ...(name !== undefined ? { receiptName: name } : {}) });
    notes.set(m.transactionId, list);
  }
  const transactions = new Map<string, MatchesNotedEvent[]>();
  for (const [id, matches] of notes) transactions.set(id, [{ type: 'MatchesNoted', data: { companyId, reason: 'mirror', matches } }]);
  return { transactions, receipts };
}
