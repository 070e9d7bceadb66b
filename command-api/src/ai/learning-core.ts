/**
 * What the learning AI routes share: the ports they are given, the
 * request schemas, scope helpers and the answer shapes. The routes are in
 * categorize-routes.ts, duplicate-routes.ts and recurring-routes.ts; learning.ts mounts them.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  ConflictError,
  NotFoundError,
  type CompanyMemo,
  type CompanySettings,
  type DuplicateCandidate,
  type DuplicateGroup,
  type DuplicateKind,
  type DuplicatePair,
  type LanguageModel,
  type RecurringPattern,
  type RecurringRecord,
  type RequestContext,
} from '@paperlink/domain';
import type { CommandBus } from '../core/bus';

/** A transaction as the AI features read it. */
export interface AiTransaction {
  id: string;
  userId: string;
  date: string;
  description: string;
  amountCents: number;
  categoryName: string | null;
}

/** A receipt as the duplicate check reads it. */
export interface AiReceipt {
  id: string;
  userId: string;
  date: string | null;
  amountCents: number | null;
  merchant: string | null;
  fileHash: string | null;
  fileName: string;
}

export interface AiCategoryPrediction {
  categoryName: string | null;
  confidence: number;
  source: string;
  merchantKey: string;
  alternatives: { categoryName: string; probability: number }[];
}

export interface AiGroupView {
  _id: string;
  companyId: string;
  kind: DuplicateKind;
  memberIds: string[];
  ownerIds: string[];
  confidence_score: number;
  duplicate_count: number;
  status: 'pending' | 'confirmed' | 'dismissed';
  reasons: string[];
  created_at: string;
  updated_at: string;
}

export interface AiLearningDeps {
  bus: CommandBus;
  settings(companyId: string): Promise<CompanySettings>;
  /** The company's categories (master data). */
  categories(companyId: string): Promise<Array<{ id: string; name: string }>>;
  transaction(companyId: string, id: string): Promise<AiTransaction | null>;
  receipt(companyId: string, id: string): Promise<AiReceipt | null>;
  /** Every transaction (receipt) in scope: a member's own, or (userId unset) the company's; of one amount when given. */
  transactions(companyId: string, scope: { userId?: string }, amountCents?: number): Promise<AiTransaction[]>;
  receipts(companyId: string, scope: { userId?: string }, amountCents?: number): Promise<AiReceipt[]>;
  /** The company's categoriser (payee memory with feedback, linear model), off the request thread. */
  predict(companyId: string, line: { description: string; amountCents: number }, categoryNames: string[]): Promise<AiCategoryPrediction>;
  /** Off the request thread. */
  recurring(records: RecurringRecord[], onlyMerchantKey?: string): Promise<RecurringPattern[]>;
  duplicateGroups(records: DuplicateCandidate[], options: { dismissed: string[]; recurring: Array<[string, string]> }): Promise<DuplicateGroup[]>;
  duplicatesOf(target: DuplicateCandidate, others: DuplicateCandidate[], options: { dismissed: string[]; recurring: Array<[string, string]> }): Promise<DuplicatePair[]>;
  dismissedPairs(companyId: string): Promise<Set<string>>;
  groups(companyId: string, scope: { userId?: string }, status?: string): Promise<AiGroupView[]>;
  group(companyId: string, groupId: string): Promise<AiGroupView | null>;
  /** Prediction and feedback counts: the company's, or (userId set) one member's own. */
  stats(companyId: string, scope: { userId?: string }): Promise<{ total_predictions: number; feedback_total: number; feedback_correct: number }>;
  /** The language-model chain, asked when the company's own model is unsure and a hosted model is chosen. */
  llm?: LanguageModel;
  /** Whole-company answers kept until the company's next event (recurring series); computed per call when absent. */
  memo?: CompanyMemo;
}

export const FeedbackBody = z.object({
  transactionId: z.string({ error: 'transactionId is required' }).min(1).max(100),
  actualCategoryId: z.string().max(100).nullable().optional(),
  predictedCategoryId: z.string().max(100).nullable().optional(),
  confidence: z.coerce.number().min(0).max(1).nullable().optional(),
});
export const GroupStatusBody = z.object({ status: z.enum(['confirmed', 'dismissed'], { error: "status must be 'confirmed' or 'dismissed'" }) });
export const GroupListQuery = z.object({ status: z.enum(['pending', 'confirmed', 'dismissed']).optional() });
export const BATCH_LIMIT = 100;
export const BatchBody = z.object({
  limit: z.coerce.number().int().min(1).max(BATCH_LIMIT, `At most ${BATCH_LIMIT} items per batch`).optional().default(BATCH_LIMIT),
  kind: z.enum(['transaction', 'receipt']).optional().default('transaction'),
});

/** Below this the company's own model asks the language model (spec section 9: high confidence above 0.7). */
export const ASK_MODEL_BELOW = 0.7;

export const scopeOf = (ctx: RequestContext): { userId?: string } => (ctx.role === 'admin' ? {} : { userId: ctx.userId! });

/**
 * Every recurring series among the transactions in scope. Reading every line in scope is what it
 * costs (seconds at 1,000,000 lines), so with a memo the answer is kept until the company's next
 * event and serves the listing, the series of one line and the comprehensive analysis alike (a
 * merchant's series do not depend on the other merchants' lines, so they are the same as when
 * only that merchant's are examined).
 */
export async function recurringInScope(deps: Pick<AiLearningDeps, 'transactions' | 'recurring' | 'memo'>, companyId: string, scope: { userId?: string }): Promise<RecurringPattern[]> {
  const compute = async () => deps.recurring((await deps.transactions(companyId, scope)).map((t) => ({ id: t.id, date: t.date, amountCents: t.amountCents, description: t.description, categoryName: t.categoryName })));
  return deps.memo ? deps.memo(companyId, `recurring-patterns:${scope.userId ?? '*'}`, compute) : compute();
}
export const mine = (ctx: RequestContext, ownerId: string): boolean => ctx.role === 'admin' || ownerId === ctx.userId;
export const round = (x: number, d = 3): number => Math.round(x * 10 ** d) / 10 ** d;
/** A group's id follows from its kind and members (a UUID version 8, RFC 9562): detecting it again records nothing new. */
export function groupIdOf(kind: DuplicateKind, ids: string[]): string {
  const h = createHash('sha256').update(`${kind}:${[...ids].sort().join(',')}`).digest('hex');
  const variant = ((parseInt(h[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function txCandidate(t: AiTransaction): DuplicateCandidate {
  return { id: t.id, date: t.date, amountCents: t.amountCents, description: t.description, ownerId: t.userId };
}
export function receiptCandidate(r: AiReceipt): DuplicateCandidate | null {
  if (r.amountCents === null || r.date === null) return null;
  return { id: r.id, date: r.date, amountCents: r.amountCents, description: r.merchant ?? '', ownerId: r.userId, fileHash: r.fileHash };
}

/** The checks every learning route starts with: the company's switches, the caller's own transaction. */
export function guards(deps: AiLearningDeps) {
  const requireSwitch = async (companyId: string, feature: 'autoCategorization' | 'duplicateDetection' | null): Promise<CompanySettings> => {
    const s = await deps.settings(companyId);
    if (!s.aiEnabled) throw new ConflictError("The AI features are switched off in this company's settings.", 'ai_disabled');
    if (feature === 'autoCategorization' && !s.autoCategorization) throw new ConflictError("Automatic categorisation is switched off in this company's settings.", 'categorization_disabled');
    if (feature === 'duplicateDetection' && !s.duplicateDetection) throw new ConflictError("Duplicate detection is switched off in this company's settings.", 'duplicate_detection_disabled');
    return s;
  };

  const ownTransaction = async (ctx: RequestContext, id: string): Promise<AiTransaction> => {
    const t = await deps.transaction(ctx.companyId!, id);
    if (!t || !mine(ctx, t.userId)) throw new NotFoundError('Transaction not found', 'transaction_not_found');
    return t;
  };

  return { requireSwitch, ownTransaction };
}

export function categorizationStats(s: { total_predictions: number; feedback_total: number; feedback_correct: number }) {
  return {
    total_predictions: s.total_predictions,
    feedback_count: s.feedback_total,
    correct_count: s.feedback_correct,
    /** Share of feedback answers that said the prediction was right (null: no feedback yet). */
    accuracy: s.feedback_total > 0 ? round(s.feedback_correct / s.feedback_total) : null,
  };
}

export function groupView(g: AiGroupView) {
  return { id: g._id, kind: g.kind, confidence_score: g.confidence_score, duplicate_count: g.duplicate_count, status: g.status, memberIds: g.memberIds, reasons: g.reasons, created_at: g.created_at, updated_at: g.updated_at };
}

export function patternView(p: RecurringPattern) {
  return {
    id: p.id,
    description: p.description,
    category_name: p.categoryName,
    frequency: p.frequency,
    occurrence_count: p.occurrenceCount,
    amount: p.amountCents / 100,
    first_date: p.firstDate,
    last_match: p.lastDate,
    last_date: p.lastDate,
    next_expected_date: p.nextExpectedDate,
    confidence: p.confidence,
    transaction_ids: p.memberIds,
  };
}
