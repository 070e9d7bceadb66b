/**
 * The learning analyses of the comprehensive call (categorisation, duplicates, recurring),
 * answered by the same ports as their own calls (command-api/src/ai/learning.ts: the company's
 * categoriser, duplicate scoring and recurring detection, all in the worker pool), with the
 * same switches. The comprehensive call only reads: it records no prediction and no group
 * (POST /ai/categorize/transaction/{id} and /ai/duplicates/check/{id} do).
 */
import { recurringInScope, type AiLearningDeps } from '@paperlink/command-api';
import { ConflictError, merchantKey, NotFoundError, type CompanySettings, type DuplicateCandidate, type RequestContext } from '@paperlink/domain';
import type { Analyzer } from '@paperlink/query-api';

type Learning = Pick<AiLearningDeps, 'categories' | 'transaction' | 'transactions' | 'predict' | 'recurring' | 'duplicatesOf' | 'dismissedPairs' | 'memo'>;

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
const scopeOf = (ctx: RequestContext) => (ctx.role === 'admin' ? {} : { userId: ctx.userId! });

export function learningAnalyzers(learning: Learning, settingsOf: (companyId: string) => Promise<CompanySettings>): Record<'categorization' | 'duplicateAnalysis' | 'recurringAnalysis', Analyzer> {
  const transactionOf = async (ctx: RequestContext, id: string) => {
    const t = await learning.transaction(ctx.companyId!, id);
    if (!t || (ctx.role !== 'admin' && t.userId !== ctx.userId)) throw new NotFoundError('Transaction not found', 'transaction_not_found');
    return t;
  };
  return {
    async categorization(ctx, id) {
      if (!(await settingsOf(ctx.companyId!)).autoCategorization) throw new ConflictError("Automatic categorisation is switched off in this company's settings.", 'categorization_disabled');
      const t = await transactionOf(ctx, id);
      const master = await learning.categories(ctx.companyId!);
      const p = await learning.predict(ctx.companyId!, { description: t.description, amountCents: t.amountCents }, master.map((c) => c.name));
      const idOf = (name: string | null) => (name === null ? null : (master.find((c) => c.name.toLowerCase() === name.toLowerCase())?.id ?? null));
      return {
        predictedCategory: p.categoryName,
        predictedCategoryId: idOf(p.categoryName),
        confidence: round(p.confidence),
        details: { source: p.source, merchantKey: p.merchantKey, alternatives: p.alternatives.map((a) => ({ category: a.categoryName, categoryId: idOf(a.categoryName), probability: a.probability })) },
      };
    },
    async duplicateAnalysis(ctx, id) {
      if (!(await settingsOf(ctx.companyId!)).duplicateDetection) throw new ConflictError("Duplicate detection is switched off in this company's settings.", 'duplicate_detection_disabled');
      const t = await transactionOf(ctx, id);
      // Only lines of the same amount can be the same charge: read those, not every line in scope.
      const all = await learning.transactions(ctx.companyId!, scopeOf(ctx), t.amountCents);
      const candidate = (x: typeof t): DuplicateCandidate => ({ id: x.id, date: x.date, amountCents: x.amountCents, description: x.description, ownerId: x.userId });
      const target = candidate(t);
      const sameAmount = all.filter((x) => x.id !== id && x.amountCents === t.amountCents).map(candidate);
      let recurring: Array<[string, string]> = [];
      if (sameAmount.length > 0) {
        // A monthly bill of the same amount is a series, not a duplicate.
        const patterns = await learning.recurring([target, ...sameAmount].map((c) => ({ id: c.id, date: c.date, amountCents: c.amountCents, description: c.description })));
        recurring = patterns.flatMap((p) => p.memberIds.map((m): [string, string] => [m, p.id]));
      }
      const pairs = sameAmount.length > 0 ? await learning.duplicatesOf(target, sameAmount, { dismissed: [...(await learning.dismissedPairs(ctx.companyId!))], recurring }) : [];
      const byId = new Map(all.map((x) => [x.id, x]));
      const similar = pairs.map((p) => {
        const x = byId.get(p.b);
        return { id: p.b, transaction_date: x?.date ?? null, description: x?.description ?? null, amount: x ? x.amountCents / 100 : null, confidence: p.confidence, reasons: p.reasons };
      });
      return {
        isDuplicate: pairs.length > 0,
        confidence: pairs.reduce((m, p) => Math.max(m, p.confidence), 0),
        similarTransactions: similar,
        duplicates: similar,
        details: pairs.length > 0 ? `${pairs.length} line${pairs.length > 1 ? 's look' : ' looks'} like the same charge` : `No duplicate among ${sameAmount.length} line${sameAmount.length === 1 ? '' : 's'} of the same amount`,
      };
    },
    async recurringAnalysis(ctx, id) {
      const t = await transactionOf(ctx, id);
      const patterns = learning.memo
        ? await recurringInScope(learning, ctx.companyId!, scopeOf(ctx))
        : await learning.recurring((await learning.transactions(ctx.companyId!, scopeOf(ctx))).map((x) => ({ id: x.id, date: x.date, amountCents: x.amountCents, description: x.description, categoryName: x.categoryName })), merchantKey(t.description));
      const p = patterns.find((x) => x.memberIds.includes(t.id)) ?? null;
      return {
        hasPattern: p !== null,
        patternDescription: p ? `${p.description}: ${p.frequency}, ${p.occurrenceCount} times, about ${(Math.abs(p.amountCents) / 100).toFixed(2)}; next expected ${p.nextExpectedDate}` : null,
        frequency: p?.frequency ?? null,
        ...(p ? { occurrenceCount: p.occurrenceCount, lastDate: p.lastDate, nextExpectedDate: p.nextExpectedDate } : {}),
      };
    },
  };
}
