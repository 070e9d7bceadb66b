/**
 * The learning AI calls (spec section 7, AI; issue 16 items 2-4): categorisation with its
 * feedback and stats, duplicate checks, groups and batches, recurring patterns, and the AI
 * dashboard's figures. A plain member sees and acts on their own records only; an admin on
 * the company's. Predictions, feedback and duplicate groups are events.
 */
import { createHash } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import {
  ConflictError,
  NotFoundError,
  ValidationError,
  categorizationStream,
  duplicateGroupDecider,
  duplicateGroupStream,
  merchantKey,
  duplicatePairKey,
  type AiLearningEvent,
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
import type { CommandBus, Plan } from '../core/bus';
import { send } from '../core/http';
import { ctxOf, requireCompany } from '../http/context';
import { validIdParams } from '../http/params';

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
const ASK_MODEL_BELOW = 0.7;

const scopeOf = (ctx: RequestContext): { userId?: string } => (ctx.role === 'admin' ? {} : { userId: ctx.userId! });
const mine = (ctx: RequestContext, ownerId: string): boolean => ctx.role === 'admin' || ownerId === ctx.userId;
const round = (x: number, d = 3): number => Math.round(x * 10 ** d) / 10 ** d;
/** A group's id follows from its kind and members (a UUID version 8, RFC 9562): detecting it again records nothing new. */
function groupIdOf(kind: DuplicateKind, ids: string[]): string {
  const h = createHash('sha256').update(`${kind}:${[...ids].sort().join(',')}`).digest('hex');
  const variant = ((parseInt(h[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function txCandidate(t: AiTransaction): DuplicateCandidate {
  return { id: t.id, date: t.date, amountCents: t.amountCents, description: t.description, ownerId: t.userId };
}
function receiptCandidate(r: AiReceipt): DuplicateCandidate | null {
  if (r.amountCents === null || r.date === null) return null;
  return { id: r.id, date: r.date, amountCents: r.amountCents, description: r.merchant ?? '', ownerId: r.userId, fileHash: r.fileHash };
}

export function aiLearningRouter(deps: AiLearningDeps): Router {
  const router = validIdParams(Router());
  const member = requireCompany();

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

  // --- categorisation ---------------------------------------------------------------------

  router.post('/ai/categorize/transaction/:id', member, async (req, res) => {
    const id = String(req.params.id);
    await send(req, res, deps.bus, async (ctx): Promise<Plan> => {
      const settings = await requireSwitch(ctx.companyId!, 'autoCategorization');
      const t = await ownTransaction(ctx, id);
      const master = await deps.categories(ctx.companyId!);
      const names = master.map((c) => c.name);
      let p = await deps.predict(ctx.companyId!, { description: t.description, amountCents: t.amountCents }, names);
      let model: string | null = null;
      if (deps.llm && settings.llmModel && p.confidence < ASK_MODEL_BELOW && names.length > 0) {
        try {
          const answer = await deps.llm.categorize({ description: t.description, amount: t.amountCents / 100, categories: names, companyId: ctx.companyId!, date: t.date }, { models: { primary: settings.llmModel, fallback: settings.llmFallbackModel } });
          if (answer.source === 'remote' && names.includes(answer.category) && answer.confidence > p.confidence) {
            p = { ...p, categoryName: answer.category, confidence: answer.confidence, source: 'language-model' };
            model = answer.model;
          }
        } catch {
          // The company's own answer stands when the language model fails.
        }
      }
      const idOf = (name: string | null) => (name === null ? null : (master.find((c) => c.name.toLowerCase() === name.toLowerCase())?.id ?? null));
      const predictedCategoryId = idOf(p.categoryName);
      const event: AiLearningEvent = {
        type: 'CategoryPredicted',
        data: { companyId: ctx.companyId!, transactionId: id, userId: ctx.userId!, merchantKey: p.merchantKey, categoryId: predictedCategoryId, categoryName: p.categoryName, confidence: round(p.confidence), source: p.source },
      };
      return {
        appends: [{ streamId: categorizationStream(id), expectedRevision: 'any', events: [event] }],
        body: {
          predictedCategory: p.categoryName,
          predictedCategoryId,
          confidence: round(p.confidence),
          details: {
            source: p.source,
            merchantKey: p.merchantKey,
            model,
            alternatives: p.alternatives.map((a) => ({ category: a.categoryName, categoryId: idOf(a.categoryName), probability: a.probability })),
          },
        },
      };
    });
  });

  router.post('/ai/categorize/feedback', member, async (req, res) => {
    const b = FeedbackBody.parse(req.body ?? {});
    await send(req, res, deps.bus, async (ctx): Promise<Plan> => {
      await requireSwitch(ctx.companyId!, null);
      const t = await ownTransaction(ctx, b.transactionId);
      const master = await deps.categories(ctx.companyId!);
      const nameOf = (id: string | null | undefined, field: string): string | null => {
        if (id === null || id === undefined || id === '') return null;
        const c = master.find((m) => m.id === id);
        if (!c) throw new ValidationError('Unknown category', [{ field, message: 'Not one of the company\'s categories' }], 'unknown_category');
        return c.name;
      };
      const actualName = nameOf(b.actualCategoryId, 'actualCategoryId');
      const predictedName = nameOf(b.predictedCategoryId, 'predictedCategoryId');
      if (actualName === null && predictedName === null) throw new ValidationError('Say which category was predicted or which one is right', [{ field: 'actualCategoryId', message: 'Required' }], 'feedback_empty');
      const correct = actualName !== null && actualName === predictedName;
      const event: AiLearningEvent = {
        type: 'CategorizationFeedbackRecorded',
        data: {
          companyId: ctx.companyId!, transactionId: t.id, userId: ctx.userId!, merchantKey: merchantKey(t.description),
          predictedCategoryId: b.predictedCategoryId ?? null, predictedCategoryName: predictedName,
          actualCategoryId: b.actualCategoryId ?? null, actualCategoryName: actualName, correct, confidence: b.confidence ?? null,
        },
      };
      return { appends: [{ streamId: categorizationStream(t.id), expectedRevision: 'any', events: [event] }], body: { success: true, correct, message: 'Categorization feedback recorded' } };
    });
  });

  router.get('/ai/categorize/stats', member, async (_req, res) => {
    const ctx = ctxOf(res);
    const s = await deps.stats(ctx.companyId!, scopeOf(ctx));
    res.json(categorizationStats(s));
  });

  router.get('/ai/dashboard/stats', member, async (_req, res) => {
    const ctx = ctxOf(res);
    const [s, groups] = await Promise.all([deps.stats(ctx.companyId!, scopeOf(ctx)), deps.groups(ctx.companyId!, scopeOf(ctx))]);
    res.json({
      categorization: categorizationStats(s),
      duplicates: {
        total_groups: groups.length,
        pending_groups: groups.filter((g) => g.status === 'pending').length,
        prevented_duplicates: groups.filter((g) => g.status === 'confirmed').reduce((n, g) => n + g.duplicate_count - 1, 0),
      },
    });
  });

  // --- duplicates -------------------------------------------------------------------------

  /** Appends for groups not recorded yet (a group id is its kind and members, so a retry records nothing new). */
  const recordGroups = (ctx: RequestContext, kind: DuplicateKind, groups: Array<{ ids: string[]; confidence: number; reasons: string[] }>, ownerOf: Map<string, string>) =>
    groups.map((g) => {
      const groupId = groupIdOf(kind, g.ids);
      const events = duplicateGroupDecider.decide(
        { type: 'DetectDuplicateGroup', companyId: ctx.companyId!, groupId, kind, memberIds: g.ids, ownerIds: [...new Set(g.ids.map((i) => ownerOf.get(i) ?? ''))], confidence: g.confidence, reasons: g.reasons },
        { status: 'none' },
      );
      return { groupId, append: { streamId: duplicateGroupStream(groupId), expectedRevision: 'any' as const, events } };
    });

  const existingGroupIds = async (companyId: string): Promise<Set<string>> => new Set((await deps.groups(companyId, {})).map((g) => g._id));

  router.post('/ai/duplicates/check/:id', member, async (req, res) => {
    const id = String(req.params.id);
    await send(req, res, deps.bus, async (ctx): Promise<Plan> => {
      await requireSwitch(ctx.companyId!, 'duplicateDetection');
      const scope = scopeOf(ctx);
      const dismissed = [...(await deps.dismissedPairs(ctx.companyId!))];
      const tx = await deps.transaction(ctx.companyId!, id);
      let kind: DuplicateKind;
      let target: DuplicateCandidate | null;
      let others: DuplicateCandidate[];
      const described = new Map<string, Record<string, unknown>>();
      if (tx) {
        if (!mine(ctx, tx.userId)) throw new NotFoundError('Transaction not found', 'transaction_not_found');
        kind = 'transaction';
        target = txCandidate(tx);
        const all = await deps.transactions(ctx.companyId!, scope, tx.amountCents);
        others = all.filter((t) => t.id !== id).map(txCandidate);
        for (const t of all) described.set(t.id, { id: t.id, transaction_date: t.date, description: t.description, amount: t.amountCents / 100, category_name: t.categoryName });
      } else {
        const r = await deps.receipt(ctx.companyId!, id);
        if (!r || !mine(ctx, r.userId)) throw new NotFoundError('Transaction or receipt not found', 'not_found');
        kind = 'receipt';
        target = receiptCandidate(r);
        const all = target ? await deps.receipts(ctx.companyId!, scope, target.amountCents) : [];
        others = all.filter((x) => x.id !== id).map(receiptCandidate).filter((x): x is DuplicateCandidate => x !== null);
        for (const x of all) described.set(x.id, { id: x.id, original_filename: x.fileName, extracted_date: x.date, extracted_amount: x.amountCents === null ? null : x.amountCents / 100, extracted_merchant: x.merchant });
      }
      const sameAmount = target ? others.filter((o) => o.amountCents === target.amountCents) : [];
      let recurring: Array<[string, string]> = [];
      if (kind === 'transaction' && target && sameAmount.length > 0) {
        const patterns = await deps.recurring([target, ...sameAmount].map((c) => ({ id: c.id, date: c.date, amountCents: c.amountCents, description: c.description })));
        recurring = patterns.flatMap((p) => p.memberIds.map((m): [string, string] => [m, p.id]));
      }
      const pairs = target ? await deps.duplicatesOf(target, sameAmount, { dismissed, recurring }) : [];
      const ownerOf = new Map<string, string>([[id, tx?.userId ?? ''], ...others.map((o): [string, string] => [o.id, o.ownerId ?? ''])]);
      if (kind === 'receipt') {
        const r = await deps.receipt(ctx.companyId!, id);
        ownerOf.set(id, r?.userId ?? '');
      }
      const confidence = pairs.reduce((m, p) => Math.max(m, p.confidence), 0);
      const group = pairs.length > 0 ? recordGroups(ctx, kind, [{ ids: [id, ...pairs.map((p) => p.b)], confidence, reasons: pairs[0]?.reasons ?? [] }], ownerOf)[0] : undefined;
      const known = group ? await existingGroupIds(ctx.companyId!) : new Set<string>();
      const duplicates = pairs.map((p) => ({ ...(described.get(p.b) ?? { id: p.b }), confidence: p.confidence, reasons: p.reasons }));
      return {
        appends: group && !known.has(group.groupId) ? [group.append] : [],
        body: {
          duplicateAnalysis: {
            isDuplicate: pairs.length > 0,
            kind,
            confidence,
            groupId: group?.groupId ?? null,
            duplicates,
            ...(kind === 'transaction' ? { similarTransactions: duplicates } : {}),
          },
        },
      };
    });
  });

  router.get('/ai/duplicates/groups', member, async (req, res) => {
    const ctx = ctxOf(res);
    const q = GroupListQuery.parse(req.query ?? {});
    const groups = await deps.groups(ctx.companyId!, scopeOf(ctx), q.status);
    res.json({ groups: groups.map(groupView) });
  });

  router.put('/ai/duplicates/groups/:id', member, async (req, res) => {
    const id = String(req.params.id);
    const b = GroupStatusBody.parse(req.body ?? {});
    await send(req, res, deps.bus, async (ctx): Promise<Plan> => {
      const g = await deps.group(ctx.companyId!, id);
      if (!g || !(ctx.role === 'admin' || (g.ownerIds.length > 0 && g.ownerIds.every((o) => o === ctx.userId)))) throw new NotFoundError('Duplicate group not found', 'duplicate_group_not_found');
      const pairKeys: string[] = [];
      for (let i = 0; i < g.memberIds.length; i++) for (let j = i + 1; j < g.memberIds.length; j++) pairKeys.push(duplicatePairKey(g.memberIds[i]!, g.memberIds[j]!));
      const state = { status: g.status, companyId: g.companyId, memberIds: g.memberIds, ownerIds: g.ownerIds };
      const events = duplicateGroupDecider.decide({ type: 'ResolveDuplicateGroup', companyId: ctx.companyId!, groupId: id, userId: ctx.userId!, status: b.status, pairKeys }, state);
      return { appends: [{ streamId: duplicateGroupStream(id), expectedRevision: 'any', events }], body: { success: true, group: { ...groupView(g), status: b.status } } };
    });
  });

  /** Batch duplicate processing (spec section 9: 100 items): the newest records in scope, each checked against all. */
  router.post('/ai/duplicates/batch', member, async (req, res) => {
    const b = BatchBody.parse(req.body ?? {});
    await send(req, res, deps.bus, async (ctx): Promise<Plan> => {
      await requireSwitch(ctx.companyId!, 'duplicateDetection');
      const scope = scopeOf(ctx);
      const dismissed = [...(await deps.dismissedPairs(ctx.companyId!))];
      const records = b.kind === 'transaction'
        ? (await deps.transactions(ctx.companyId!, scope)).map(txCandidate)
        : (await deps.receipts(ctx.companyId!, scope)).map(receiptCandidate).filter((x): x is DuplicateCandidate => x !== null);
      const targets = [...records].sort((x, y) => y.date.localeCompare(x.date) || x.id.localeCompare(y.id)).slice(0, b.limit);
      const targetIds = new Set(targets.map((t) => t.id));
      const amounts = new Set(targets.map((t) => t.amountCents));
      const candidates = records.filter((r) => amounts.has(r.amountCents));
      const recurring = b.kind === 'transaction'
        ? (await deps.recurring(candidates.map((c) => ({ id: c.id, date: c.date, amountCents: c.amountCents, description: c.description })))).flatMap((p) => p.memberIds.map((m): [string, string] => [m, p.id]))
        : [];
      const found = (await deps.duplicateGroups(candidates, { dismissed, recurring })).filter((g) => g.ids.some((i) => targetIds.has(i)));
      const ownerOf = new Map(records.map((r) => [r.id, r.ownerId ?? '']));
      const known = await existingGroupIds(ctx.companyId!);
      const recorded = recordGroups(ctx, b.kind, found, ownerOf);
      return {
        appends: recorded.filter((r) => !known.has(r.groupId)).map((r) => r.append),
        body: {
          results: {
            processed: targets.length,
            duplicatesFound: found.length,
            newGroups: recorded.filter((r) => !known.has(r.groupId)).length,
            groups: found.map((g, i) => ({ id: recorded[i]?.groupId, memberIds: g.ids, confidence_score: g.confidence })),
          },
        },
      };
    });
  });

  // --- recurring --------------------------------------------------------------------------

  const recordsOf = (ts: AiTransaction[]): RecurringRecord[] => ts.map((t) => ({ id: t.id, date: t.date, amountCents: t.amountCents, description: t.description, categoryName: t.categoryName }));

  router.post('/ai/recurring/detect/:id', member, async (req, res) => {
    const ctx = ctxOf(res);
    await requireSwitch(ctx.companyId!, null);
    const t = await ownTransaction(ctx, String(req.params.id));
    const patterns = await deps.recurring(recordsOf(await deps.transactions(ctx.companyId!, scopeOf(ctx))), merchantKey(t.description));
    const p = patterns.find((x) => x.memberIds.includes(t.id)) ?? null;
    res.json({
      hasPattern: p !== null,
      patternDescription: p ? `${p.description}: ${p.frequency}, ${p.occurrenceCount} times, about ${(Math.abs(p.amountCents) / 100).toFixed(2)}; next expected ${p.nextExpectedDate}` : null,
      frequency: p?.frequency ?? null,
      pattern: p ? patternView(p) : null,
    });
  });

  router.get('/ai/matching/recurring/patterns', member, async (_req, res) => {
    const ctx = ctxOf(res);
    await requireSwitch(ctx.companyId!, null);
    const patterns = await deps.recurring(recordsOf(await deps.transactions(ctx.companyId!, scopeOf(ctx))));
    res.json({ patterns: patterns.map(patternView) });
  });

  return router;
}

function categorizationStats(s: { total_predictions: number; feedback_total: number; feedback_correct: number }) {
  return {
    total_predictions: s.total_predictions,
    feedback_count: s.feedback_total,
    correct_count: s.feedback_correct,
    /** Share of feedback answers that said the prediction was right (null: no feedback yet). */
    accuracy: s.feedback_total > 0 ? round(s.feedback_correct / s.feedback_total) : null,
  };
}

function groupView(g: AiGroupView) {
  return { id: g._id, kind: g.kind, confidence_score: g.confidence_score, duplicate_count: g.duplicate_count, status: g.status, memberIds: g.memberIds, reasons: g.reasons, created_at: g.created_at, updated_at: g.updated_at };
}

function patternView(p: RecurringPattern) {
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
