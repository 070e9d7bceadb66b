/**
 * Read models of the learning AI features: feedback per merchant (the categoriser reads it
 * on every prediction, so an answer changes the next one), prediction and feedback counts per
 * company (AI dashboard), duplicate groups with their status, and the pairs people dismissed.
 */
import type { AiLearningEvent, Doc, ReadStore, RecordedEvent } from '@paperlink/domain';
import type { Projection } from '../core/projection';

export const AI_FEEDBACK = 'ai_feedback';
export const AI_STATS = 'ai_stats';
export const AI_DUPLICATE_GROUPS = 'ai_duplicate_groups';
export const AI_DISMISSED_PAIRS = 'ai_dismissed_pairs';

export interface AiFeedbackDoc extends Doc {
  companyId: string;
  transactionId: string;
  userId: string;
  merchantKey: string;
  predictedCategoryName: string | null;
  actualCategoryName: string | null;
  correct: boolean;
  at: string;
}

export interface AiStatsDoc extends Doc {
  companyId: string;
  total_predictions: number;
  feedback_total: number;
  feedback_correct: number;
}

export interface AiDuplicateGroupDoc extends Doc {
  companyId: string;
  kind: 'transaction' | 'receipt';
  memberIds: string[];
  ownerIds: string[];
  confidence_score: number;
  duplicate_count: number;
  status: 'pending' | 'confirmed' | 'dismissed';
  reasons: string[];
  created_at: string;
  updated_at: string;
}

export interface AiDismissedPairDoc extends Doc {
  companyId: string;
  pairKey: string;
}

const statsOf = (doc: AiStatsDoc | null, id: string, companyId: string): AiStatsDoc => doc ?? { _id: id, companyId, total_predictions: 0, feedback_total: 0, feedback_correct: 0 };
/** Counts per company (`<companyId>`) and per member (`<companyId>|<userId>`). */
const statIds = (companyId: string, userId: string): string[] => [companyId, `${companyId}|${userId}`];

export const aiLearningProjection: Projection = {
  name: 'ai-learning',
  version: 2,
  collections: {
    [AI_FEEDBACK]: [['companyId', 'merchantKey'], ['companyId']],
    [AI_STATS]: [],
    [AI_DUPLICATE_GROUPS]: [['companyId', 'status'], ['companyId']],
    [AI_DISMISSED_PAIRS]: [['companyId']],
  },
  handles: new Set(['CategoryPredicted', 'CategorizationFeedbackRecorded', 'DuplicateGroupDetected', 'DuplicateGroupConfirmed', 'DuplicateGroupDismissed']),
  async apply(event: RecordedEvent, view) {
    const e = event as unknown as AiLearningEvent;
    const at = event.metadata.occurredAt;
    switch (e.type) {
      case 'CategoryPredicted':
        for (const id of statIds(e.data.companyId, e.data.userId)) {
          await view.update<AiStatsDoc>(AI_STATS, id, (d) => {
            const s = statsOf(d, id, e.data.companyId);
            return { ...s, total_predictions: s.total_predictions + 1 };
          });
        }
        return;
      case 'CategorizationFeedbackRecorded': {
        const d = e.data;
        await view.update<AiFeedbackDoc>(AI_FEEDBACK, event.id, () => ({
          _id: event.id, companyId: d.companyId, transactionId: d.transactionId, userId: d.userId, merchantKey: d.merchantKey,
          predictedCategoryName: d.predictedCategoryName, actualCategoryName: d.actualCategoryName, correct: d.correct, at,
        }));
        for (const id of statIds(d.companyId, d.userId)) {
          await view.update<AiStatsDoc>(AI_STATS, id, (doc) => {
            const s = statsOf(doc, id, d.companyId);
            return { ...s, feedback_total: s.feedback_total + 1, feedback_correct: s.feedback_correct + (d.correct ? 1 : 0) };
          });
        }
        return;
      }
      case 'DuplicateGroupDetected': {
        const d = e.data;
        await view.update<AiDuplicateGroupDoc>(AI_DUPLICATE_GROUPS, d.groupId, () => ({
          _id: d.groupId, companyId: d.companyId, kind: d.kind, memberIds: d.memberIds, ownerIds: d.ownerIds, confidence_score: d.confidence,
          duplicate_count: d.memberIds.length, status: 'pending', reasons: d.reasons, created_at: at, updated_at: at,
        }));
        return;
      }
      case 'DuplicateGroupConfirmed':
        await view.update<AiDuplicateGroupDoc>(AI_DUPLICATE_GROUPS, e.data.groupId, (d) => (d ? { ...d, status: 'confirmed', updated_at: at } : d));
        return;
      case 'DuplicateGroupDismissed':
        await view.update<AiDuplicateGroupDoc>(AI_DUPLICATE_GROUPS, e.data.groupId, (d) => (d ? { ...d, status: 'dismissed', updated_at: at } : d));
        for (const pairKey of e.data.pairKeys) {
          const id = `${e.data.companyId}|${pairKey}`;
          await view.update<AiDismissedPairDoc>(AI_DISMISSED_PAIRS, id, () => ({ _id: id, companyId: e.data.companyId, pairKey }));
        }
        return;
    }
  },
};

/** Feedback on one merchant of a company, oldest first. */
export async function feedbackForMerchant(store: ReadStore, companyId: string, merchantKey: string): Promise<AiFeedbackDoc[]> {
  return store.collection<AiFeedbackDoc>(AI_FEEDBACK).find({ companyId, merchantKey }, { sort: { at: 1 } });
}

/** Prediction and feedback counts: the company's, or (userId set) one member's own. */
export async function aiStats(store: ReadStore, companyId: string, scope: { userId?: string } = {}): Promise<AiStatsDoc> {
  const id = scope.userId ? `${companyId}|${scope.userId}` : companyId;
  return statsOf(await store.collection<AiStatsDoc>(AI_STATS).findOne({ _id: id }), id, companyId);
}

export async function dismissedPairs(store: ReadStore, companyId: string): Promise<Set<string>> {
  return new Set((await store.collection<AiDismissedPairDoc>(AI_DISMISSED_PAIRS).find({ companyId })).map((d) => d.pairKey));
}

/** Duplicate groups a viewer may see: a member's own (every record theirs), or (userId unset) the company's. */
export async function duplicateGroups(store: ReadStore, companyId: string, scope: { userId?: string }, status?: string): Promise<AiDuplicateGroupDoc[]> {
  const filter: Record<string, unknown> = { companyId, ...(status ? { status } : {}) };
  const docs = await store.collection<AiDuplicateGroupDoc>(AI_DUPLICATE_GROUPS).find(filter, { sort: { created_at: -1 } });
  return scope.userId ? docs.filter((d) => d.ownerIds.length > 0 && d.ownerIds.every((o) => o === scope.userId)) : docs;
}

export async function duplicateGroup(store: ReadStore, companyId: string, groupId: string): Promise<AiDuplicateGroupDoc | null> {
  const d = await store.collection<AiDuplicateGroupDoc>(AI_DUPLICATE_GROUPS).findOne({ _id: groupId });
  return d && d.companyId === companyId ? d : null;
}
