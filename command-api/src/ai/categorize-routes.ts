/**
 * Categorisation: a prediction (recorded, so the dashboard counts it), feedback that teaches the
 * company's categoriser, and the counts.
 */
import type { Router } from 'express';
import { ValidationError, categorizationStream, merchantKey, type AiLearningEvent } from '@paperlink/domain';
import type { Plan } from '../core/bus';
import { send } from '../core/http';
import { ctxOf, requireCompany } from '../http/context';
import { ASK_MODEL_BELOW, FeedbackBody, categorizationStats, guards, round, scopeOf, type AiLearningDeps } from './learning-core';

export function categorizeRoutes(router: Router, deps: AiLearningDeps): void {
  const member = requireCompany();
  const { requireSwitch, ownTransaction } = guards(deps);

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
}
