import type { ReadStore } from '@paperlink/domain';
import { MATCHES, type MatchDoc } from '../matches/matches';
import { RECEIPTS, type ReceiptDoc } from '../receipts/receipts';

/**
 * The receipt matched to a transaction that a viewer may see: the confirmed one, else the
 * best pending suggestion; null when there is none (splitting proposes from its lines).
 */
export async function matchedReceiptOf(store: ReadStore, companyId: string, transactionId: string, scope: { userId?: string }): Promise<string | null> {
  const matches = await store.collection<MatchDoc>(MATCHES).find({ companyId, transactionId, status: { $in: ['confirmed', 'pending'] } });
  const ranked = matches.sort((a, b) => (a.status === b.status ? b.confidence - a.confidence : a.status === 'confirmed' ? -1 : 1));
  for (const m of ranked) {
    const r = await store.collection<ReceiptDoc>(RECEIPTS).findOne({ _id: m.receiptId, companyId });
    if (r && (!scope.userId || r.userId === scope.userId)) return r._id;
  }
  return null;
}
