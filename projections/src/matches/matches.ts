import { fromCents, type Doc, type MatchEvent, type MatchEvidence, type MatchOrigin, type MatchStatus, type ReadStore, type RecordedEvent, type Filter } from '@paperlink/domain';
import type { Projection } from '../core/projection';
import { RECEIPTS, type ReceiptDoc } from '../receipts/receipts';
import { RECEIPT_SEARCH_FIELDS, searchClause, TRANSACTION_SEARCH_FIELDS } from '../transactions/search';
import { TRANSACTIONS, type TransactionDoc } from '../transactions/transactions';

export const MATCHES = 'matches';

export interface MatchDoc extends Doc {
  companyId: string;
  receiptId: string;
  transactionId: string;
  confidence: number;
  evidence: MatchEvidence;
  status: MatchStatus;
  origin: MatchOrigin;
  suggested_by: string;
  suggested_at: string;
  decided_by: string | null;
  decided_at: string | null;
  withdrawn_reason: string | null;
}

/** The index a page of one status's list is read from, best first (visibleMatches). */
const MATCH_LIST_INDEX = ['companyId', 'status', 'confidence', 'suggested_at'];

export const matchesProjection: Projection = {
  name: 'matches',
  version: 1,
  // (companyId, status, confidence, suggested_at): a page of one list (pending or confirmed), best
  // first, read from the index in order; without it every match of the status is sorted per page
  // (at 100,000 matches 110-180 ms a page, 0.05 ms with it; ADR 0029).
  collections: { [MATCHES]: [['companyId'], ['companyId', 'status'], ['companyId', 'receiptId'], ['companyId', 'transactionId'], MATCH_LIST_INDEX] },
  handles: new Set(['MatchesSuggested', 'MatchesWithdrawn', 'MatchConfirmed', 'MatchRejected', 'MatchDeleted']),
  async apply(event: RecordedEvent, view) {
    const e = event as unknown as MatchEvent;
    const at = event.metadata.occurredAt;
    switch (e.type) {
      case 'MatchesSuggested':
        for (const s of e.data.suggestions) {
          await view.update<MatchDoc>(MATCHES, s.matchId, () => ({
            _id: s.matchId,
            companyId: e.data.companyId,
            receiptId: s.receiptId,
            transactionId: s.transactionId,
            confidence: s.confidence,
            evidence: s.evidence,
            status: 'pending',
            origin: e.data.origin,
            suggested_by: e.data.by,
            suggested_at: at,
            decided_by: null,
            decided_at: null,
            withdrawn_reason: null,
          }));
        }
        return;
      case 'MatchesWithdrawn':
        // Withdrawn suggestions leave the read model; the events keep them for auditors.
        for (const id of e.data.matchIds) await view.update<MatchDoc>(MATCHES, id, () => null);
        return;
      case 'MatchConfirmed':
        return view.update<MatchDoc>(MATCHES, e.data.matchId, (d) => d && { ...d, status: 'confirmed', decided_by: e.data.by, decided_at: at });
      case 'MatchRejected':
        return view.update<MatchDoc>(MATCHES, e.data.matchId, (d) => d && { ...d, status: 'rejected', decided_by: e.data.by, decided_at: at });
      case 'MatchDeleted':
        return view.update<MatchDoc>(MATCHES, e.data.matchId, () => null);
    }
  },
};

/** The match as the API returns it (spec section 3), with the evidence behind the score. */
export interface MatchView {
  id: string;
  receipt_id: string;
  transaction_id: string;
  original_filename: string | null;
  extracted_merchant: string | null;
  extracted_date: string | null;
  extracted_amount: number | null;
  description: string | null;
  transaction_date: string | null;
  transaction_amount: number | null;
  match_confidence: number;
  user_confirmed: boolean;
  status: MatchStatus;
  origin: MatchOrigin;
  evidence: MatchEvidence;
  created_at: string;
  decided_at: string | null;
}

export async function toMatchViews(store: ReadStore, docs: MatchDoc[]): Promise<MatchView[]> {
  const receipts = (await store.getMany(RECEIPTS, [...new Set(docs.map((d) => d.receiptId))])) as Map<string, ReceiptDoc>;
  const txs = (await store.getMany(TRANSACTIONS, [...new Set(docs.map((d) => d.transactionId))])) as Map<string, TransactionDoc>;
  return docs.map((d) => {
    const r = receipts.get(d.receiptId);
    const t = txs.get(d.transactionId);
    return {
      id: d._id,
      receipt_id: d.receiptId,
      transaction_id: d.transactionId,
      original_filename: r?.original_filename ?? null,
      extracted_merchant: r?.extracted_merchant ?? null,
      extracted_date: r?.extracted_date ?? null,
      extracted_amount: r?.extractedCents == null ? null : fromCents(r.extractedCents),
      description: t?.description ?? null,
      transaction_date: t?.transaction_date ?? null,
      transaction_amount: t ? fromCents(t.amountCents) : null,
      match_confidence: d.confidence,
      user_confirmed: d.status === 'confirmed',
      status: d.status,
      origin: d.origin,
      evidence: d.evidence,
      created_at: d.suggested_at,
      decided_at: d.decided_at,
    };
  });
}

/** Which matches of a list: those of one card line, those whose receipt or line a search finds. */
export interface MatchSelection {
  transactionId?: string;
  q?: string;
}

/** The most receipts and lines a match search gathers on each side (a search that finds more is too broad to review). */
const SEARCH_SIDE_MAX = 2000;

/**
 * The receipts and lines in the reader's scope that a search finds (the same fields as their own
 * lists' searches), or null for no search. A member's search looks only at their own records.
 */
async function searchedSides(store: ReadStore, companyId: string, scope: { userId?: string }, q: string | undefined): Promise<{ receipts: string[]; transactions: string[] } | null> {
  const rc = searchClause(q, RECEIPT_SEARCH_FIELDS, 'absCents');
  const tc = searchClause(q, TRANSACTION_SEARCH_FIELDS, 'absCents');
  if (!rc || !tc) return null;
  const own = scope.userId ? { userId: scope.userId } : {};
  const [receipts, transactions] = await Promise.all([
    store.collection<ReceiptDoc>(RECEIPTS).find({ companyId, ...own, ...rc }, { limit: SEARCH_SIDE_MAX }),
    store.collection<TransactionDoc>(TRANSACTIONS).find({ companyId, ...own, ...tc }, { limit: SEARCH_SIDE_MAX }),
  ]);
  return { receipts: receipts.map((r) => r._id), transactions: transactions.map((t) => t._id) };
}

/** Matches a member may see: all for admins; for others those both sides of which are theirs. */
/** Matches read per query while a member's page is gathered (their share of a company's matches may be small). */
const MEMBER_SCAN = 500;

/**
 * The matches an admin (scope {}) or a member (both sides theirs) sees, best first. With `page`,
 * only that slice: the whole list of a company with 100,000 matches is 80,000 rows to read, join
 * and send (seconds of the request thread); the dashboard wants ten.
 */
export async function visibleMatches(store: ReadStore, companyId: string, statuses: MatchStatus[], scope: { userId?: string }, page?: { limit: number; offset: number }, of: MatchSelection = {}): Promise<MatchDoc[]> {
  const c = store.collection<MatchDoc>(MATCHES);
  // One status is an equality, so a page is read in order from MATCH_LIST_INDEX; one line's
  // matches are few, read through (companyId, transactionId).
  const one = statuses.length === 1;
  const filter: Filter = { companyId, status: one ? statuses[0]! : { $in: statuses }, ...(of.transactionId ? { transactionId: of.transactionId } : {}) };
  const found = await searchedSides(store, companyId, scope, of.q);
  if (found) filter.$or = [{ receiptId: { $in: found.receipts } }, { transactionId: { $in: found.transactions } }];
  const sort = { confidence: -1, suggested_at: -1 } as const;
  const hint = one && !of.transactionId && !found ? { hint: MATCH_LIST_INDEX } : {};
  const theirs = async (docs: MatchDoc[]) => {
    const receipts = (await store.getMany(RECEIPTS, [...new Set(docs.map((d) => d.receiptId))])) as Map<string, ReceiptDoc>;
    const txs = (await store.getMany(TRANSACTIONS, [...new Set(docs.map((d) => d.transactionId))])) as Map<string, TransactionDoc>;
    return docs.filter((d) => receipts.get(d.receiptId)?.userId === scope.userId && txs.get(d.transactionId)?.userId === scope.userId);
  };
  if (!page) {
    const docs = await c.find(filter, { sort });
    return scope.userId ? theirs(docs) : docs;
  }
  if (!scope.userId) return c.find(filter, { sort, skip: page.offset, limit: page.limit, ...hint });
  const out: MatchDoc[] = [];
  let seen = 0;
  for (let skip = 0; out.length < page.limit; skip += MEMBER_SCAN) {
    const batch = await c.find(filter, { sort, skip, limit: MEMBER_SCAN, ...hint });
    for (const d of await theirs(batch)) {
      if (seen++ >= page.offset) out.push(d);
      if (out.length === page.limit) break;
    }
    if (batch.length < MEMBER_SCAN) break;
  }
  return out;
}

export async function getMatch(store: ReadStore, companyId: string, id: string): Promise<MatchDoc | null> {
  return store.collection<MatchDoc>(MATCHES).findOne({ _id: id, companyId });
}
