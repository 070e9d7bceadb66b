/**
 * Advanced matching: the scored candidates for one receipt or one transaction, with the
 * matching engine's own evidence (matching/score.ts); no second matcher.
 */
import { scoreMatch, type MatchEvidence, type ReceiptInput, type TransactionInput } from '../../matching';

export interface RankedCandidate {
  id: string;
  confidence: number;
  evidence: MatchEvidence;
}

export type RankTarget = { kind: 'receipt'; receipt: ReceiptInput } | { kind: 'transaction'; transaction: TransactionInput };

/** The best `limit` candidates (receipts for a transaction, transactions for a receipt), best first. */
export function rankCandidates(target: RankTarget, others: ReadonlyArray<ReceiptInput | TransactionInput>, limit = 10): RankedCandidate[] {
  const out: RankedCandidate[] = [];
  for (const o of others) {
    const s = target.kind === 'receipt' ? scoreMatch(target.receipt, o as TransactionInput) : scoreMatch(o as ReceiptInput, target.transaction);
    if (s) out.push({ id: o.id, confidence: s.confidence, evidence: s.evidence });
  }
  return out.sort((a, b) => b.confidence - a.confidence || a.id.localeCompare(b.id)).slice(0, limit);
}
