/** The learning AI's CPU-heavy steps, run in the worker pool (see workers/tasks.ts). */
import { buildMemory, detectRecurringPatterns, duplicatesOf, findDuplicateGroups, merchantKey, trainCategorizer } from '@paperlink/domain';
import type { CategorizerModel, CategoryRef, DuplicateCandidate, DuplicateGroup, DuplicatePair, LabelledLine, PayeeMemory, RecurringPattern, RecurringRecord } from '@paperlink/domain';

export interface DuplicateTaskOptions {
  dismissed: string[];
  recurring: Array<[string, string]>;
}

const duplicateOptions = (o: DuplicateTaskOptions) => ({ dismissed: new Set(o.dismissed), recurringSeries: new Map(o.recurring) });

export const AI_LEARNING_TASKS = {
  /** A company's linear model (calibrated by grouped CV) and the payee memory of its categorised lines. */
  trainCategorizer: ({ lines, categories }: { lines: LabelledLine[]; categories: CategoryRef[] }): { model: CategorizerModel; memory: PayeeMemory } =>
    ({ model: trainCategorizer(lines, categories), memory: buildMemory(lines) }),
  recurringPatterns: ({ records, onlyMerchantKey }: { records: RecurringRecord[]; onlyMerchantKey?: string }): RecurringPattern[] =>
    detectRecurringPatterns(onlyMerchantKey === undefined ? records : records.filter((r) => merchantKey(r.description) === onlyMerchantKey)),
  duplicateGroups: ({ records, options }: { records: DuplicateCandidate[]; options: DuplicateTaskOptions }): DuplicateGroup[] => findDuplicateGroups(records, duplicateOptions(options)),
  duplicatesOf: ({ target, others, options }: { target: DuplicateCandidate; others: DuplicateCandidate[]; options: DuplicateTaskOptions }): DuplicatePair[] => duplicatesOf(target, others, duplicateOptions(options)),
};
