/**
 * Recurring series: the one a transaction belongs to, and every series in scope.
 */
import type { Router } from 'express';
import { merchantKey, type RecurringRecord } from '@paperlink/domain';
import { ctxOf, requireCompany } from '../http/context';
import { guards, patternView, recurringInScope, scopeOf, type AiLearningDeps, type AiTransaction } from './learning-core';

export function recurringRoutes(router: Router, deps: AiLearningDeps): void {
  const member = requireCompany();
  const { requireSwitch, ownTransaction } = guards(deps);

  const recordsOf = (ts: AiTransaction[]): RecurringRecord[] => ts.map((t) => ({ id: t.id, date: t.date, amountCents: t.amountCents, description: t.description, categoryName: t.categoryName }));

  router.post('/ai/recurring/detect/:id', member, async (req, res) => {
    const ctx = ctxOf(res);
    await requireSwitch(ctx.companyId!, null);
    const t = await ownTransaction(ctx, String(req.params.id));
    // With the memo, every series in scope (kept for the next line asked about); without, the merchant's only.
    const patterns = deps.memo ? await recurringInScope(deps, ctx.companyId!, scopeOf(ctx)) : await deps.recurring(recordsOf(await deps.transactions(ctx.companyId!, scopeOf(ctx))), merchantKey(t.description));
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
    const patterns = await recurringInScope(deps, ctx.companyId!, scopeOf(ctx));
    res.json({ patterns: patterns.map(patternView) });
  });
}
