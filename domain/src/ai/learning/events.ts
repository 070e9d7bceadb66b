/**
 * Events of the learning AI features: predictions and the feedback on them, and
 * duplicate groups with their status. A prediction is recorded so that the dashboard counts
 * what was predicted; feedback teaches the company's categoriser; a dismissed group's pairs are
 * never raised again.
 */
import { type Decider } from '../../core/decider';
import { ConflictError, NotFoundError } from '../../core/errors';

export type DuplicateKind = 'transaction' | 'receipt';
export type DuplicateStatus = 'pending' | 'confirmed' | 'dismissed';

export type AiLearningEvent =
  | {
    type: 'CategoryPredicted';
    data: { companyId: string; transactionId: string; userId: string; merchantKey: string; categoryId: string | null; categoryName: string | null; confidence: number; source: string };
  }
  | {
    type: 'CategorizationFeedbackRecorded';
    data: {
      companyId: string; transactionId: string; userId: string; merchantKey: string;
      predictedCategoryId: string | null; predictedCategoryName: string | null;
      actualCategoryId: string | null; actualCategoryName: string | null;
      correct: boolean; confidence: number | null;
    };
  }
  | {
    type: 'DuplicateGroupDetected';
    data: { companyId: string; groupId: string; kind: DuplicateKind; memberIds: string[]; ownerIds: string[]; confidence: number; reasons: string[] };
  }
  | { type: 'DuplicateGroupConfirmed'; data: { companyId: string; groupId: string; userId: string } }
  | { type: 'DuplicateGroupDismissed'; data: { companyId: string; groupId: string; userId: string; pairKeys: string[] } };

export const AI_LEARNING_EVENT_TYPES = ['CategoryPredicted', 'CategorizationFeedbackRecorded', 'DuplicateGroupDetected', 'DuplicateGroupConfirmed', 'DuplicateGroupDismissed'] as const;

/** Streams: predictions and feedback per transaction, one stream per duplicate group. */
export { categorizationStream, duplicateGroupStream } from '../../core/streams';

export type DuplicateGroupState =
  | { status: 'none' }
  | { status: DuplicateStatus; companyId: string; memberIds: string[]; ownerIds: string[] };

export type DuplicateGroupCommand =
  | { type: 'DetectDuplicateGroup'; companyId: string; groupId: string; kind: DuplicateKind; memberIds: string[]; ownerIds: string[]; confidence: number; reasons: string[] }
  | { type: 'ResolveDuplicateGroup'; companyId: string; groupId: string; userId: string; status: 'confirmed' | 'dismissed'; pairKeys: string[] };

/** A duplicate group: detected once, then confirmed or dismissed once. */
export const duplicateGroupDecider: Decider<DuplicateGroupState, DuplicateGroupCommand, AiLearningEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'DuplicateGroupDetected':
        return { status: 'pending', companyId: event.data.companyId, memberIds: event.data.memberIds, ownerIds: event.data.ownerIds };
      case 'DuplicateGroupConfirmed':
        return state.status === 'none' ? state : { ...state, status: 'confirmed' };
      case 'DuplicateGroupDismissed':
        return state.status === 'none' ? state : { ...state, status: 'dismissed' };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'DetectDuplicateGroup': {
        if (state.status !== 'none') return [];
        const { type: _type, ...data } = command;
        return [{ type: 'DuplicateGroupDetected', data }];
      }
      case 'ResolveDuplicateGroup': {
        if (state.status === 'none' || state.companyId !== command.companyId) throw new NotFoundError('Duplicate group not found', 'duplicate_group_not_found');
        if (state.status === command.status) return [];
        if (state.status !== 'pending') throw new ConflictError(`This duplicate group is already ${state.status}`, 'duplicate_group_resolved');
        const base = { companyId: command.companyId, groupId: command.groupId, userId: command.userId };
        return command.status === 'confirmed'
          ? [{ type: 'DuplicateGroupConfirmed', data: base }]
          : [{ type: 'DuplicateGroupDismissed', data: { ...base, pairKeys: command.pairKeys } }];
      }
    }
  },
};
