import { z } from 'zod';
import { api } from '../../../lib/api-client';

/**
 * The AI calls of spec section 7, each with a zod schema for the part of the answer the
 * screens read (section 3). Unknown fields pass through; absent optional ones stay absent.
 */

/** A section's error: the server sends a message string, or an object with one. */
const ErrorField = z
  .union([z.string(), z.object({ message: z.string().optional(), error: z.string().optional() }).passthrough(), z.null()])
  .optional()
  .transform((e) => (e === null || e === undefined ? undefined : typeof e === 'string' ? e : e.message ?? e.error ?? 'Analysis failed'));

const sectionBase = { error: ErrorField, details: z.unknown().optional() };

export const SimilarItemSchema = z
  .object({
    id: z.string().optional(),
    description: z.string().nullable().optional(),
    amount: z.number().nullable().optional(),
    transaction_date: z.string().nullable().optional(),
    similarity: z.number().nullable().optional(),
    confidence: z.number().nullable().optional(),
  })
  .passthrough();
export type SimilarItem = z.infer<typeof SimilarItemSchema>;

export const CategorizationSchema = z.object({
  ...sectionBase,
  predictedCategory: z.string().nullable().optional(),
  predictedCategoryId: z.string().nullable().optional(),
  confidence: z.number().nullable().optional(),
  source: z.string().nullable().optional(),
}).passthrough();

export const DuplicateAnalysisSchema = z.object({
  ...sectionBase,
  isDuplicate: z.boolean().optional(),
  similarTransactions: z.array(SimilarItemSchema).optional(),
  duplicates: z.array(SimilarItemSchema).optional(),
}).passthrough();
export type DuplicateAnalysis = z.infer<typeof DuplicateAnalysisSchema>;

export const RecurringAnalysisSchema = z.object({
  ...sectionBase,
  hasPattern: z.boolean().optional(),
  patternDescription: z.string().nullable().optional(),
  frequency: z.string().nullable().optional(),
  occurrenceCount: z.number().nullable().optional(),
  nextExpectedDate: z.string().nullable().optional(),
}).passthrough();

export const CalendarAnalysisSchema = z.object({
  ...sectionBase,
  hasCorrelation: z.boolean().optional(),
  correlationDescription: z.string().nullable().optional(),
}).passthrough();

/** A section the server left out is shown as failed rather than as an empty success. */
const MISSING = 'No result was returned for this analysis';
export const AnalysisSchema = z.object({
  categorization: CategorizationSchema.default({ error: MISSING }),
  duplicateAnalysis: DuplicateAnalysisSchema.default({ error: MISSING }),
  recurringAnalysis: RecurringAnalysisSchema.default({ error: MISSING }),
  calendarAnalysis: CalendarAnalysisSchema.default({ error: MISSING }),
});
export type Analysis = z.infer<typeof AnalysisSchema>;
export type Categorization = z.infer<typeof CategorizationSchema>;

export const DuplicateGroupSchema = z.object({
  id: z.string(),
  confidence_score: z.number(),
  duplicate_count: z.number(),
  status: z.string(),
  kind: z.string().optional(),
  created_at: z.string().optional(),
  members: z.array(SimilarItemSchema).optional(),
}).passthrough();
export type DuplicateGroup = z.infer<typeof DuplicateGroupSchema>;
export type GroupStatus = 'confirmed' | 'dismissed';

export const RecurringPatternSchema = z.object({
  id: z.string(),
  description: z.string(),
  category_name: z.string().nullable().optional(),
  frequency: z.string(),
  occurrence_count: z.number(),
  last_match: z.string().nullable().optional(),
  next_expected: z.string().nullable().optional(),
  average_amount: z.number().nullable().optional(),
}).passthrough();
export type RecurringPattern = z.infer<typeof RecurringPatternSchema>;

export const DashboardStatsSchema = z.object({
  categorization: z.object({ total_predictions: z.number(), accuracy: z.number().nullable() }).passthrough(),
  duplicates: z.object({ total_groups: z.number(), prevented_duplicates: z.number() }).passthrough(),
}).passthrough();
export type DashboardStats = z.infer<typeof DashboardStatsSchema>;

export const BatchResultSchema = z.object({ processed: z.number(), duplicatesFound: z.number(), remaining: z.number().optional(), nextOffset: z.number().nullable().optional() }).passthrough();
export type BatchResult = z.infer<typeof BatchResultSchema>;

export const CategorySchema = z.object({ id: z.string(), name: z.string() });
export type Category = z.infer<typeof CategorySchema>;

export interface Feedback {
  transactionId: string;
  actualCategoryId: string;
  predictedCategoryId: string | null;
  confidence: number | null;
}

/** Spec section 9: duplicate batches hold 100 items. */
export const BATCH_SIZE = 100;

/** An answer that is either the list itself or an object holding it under `key`. */
function listOf<T extends z.ZodTypeAny>(item: T, key: string) {
  return z.union([z.array(item), z.object({ [key]: z.array(item) }).transform((o) => o[key] as z.infer<T>[])]);
}

const enc = encodeURIComponent;

export const aiApi = {
  async analyze(transactionId: string): Promise<Analysis> {
    const data = (await api.post(`/ai/analyze/comprehensive/${enc(transactionId)}`)).data as { analysis?: unknown };
    return AnalysisSchema.parse(data.analysis ?? {});
  },
  async feedback(body: Feedback): Promise<void> {
    await api.post('/ai/categorize/feedback', body);
  },
  async checkDuplicates(transactionId: string): Promise<DuplicateAnalysis> {
    const data = (await api.post(`/ai/duplicates/check/${enc(transactionId)}`)).data as { duplicateAnalysis?: unknown };
    return DuplicateAnalysisSchema.parse(data.duplicateAnalysis ?? data);
  },
  async groups(): Promise<DuplicateGroup[]> {
    return listOf(DuplicateGroupSchema, 'groups').parse((await api.get('/ai/duplicates/groups')).data);
  },
  async setGroupStatus(id: string, status: GroupStatus): Promise<void> {
    await api.put(`/ai/duplicates/groups/${enc(id)}`, { status });
  },
  async batch(offset: number): Promise<BatchResult> {
    return BatchResultSchema.parse((await api.post('/ai/duplicates/batch', { limit: BATCH_SIZE, offset })).data);
  },
  async patterns(): Promise<RecurringPattern[]> {
    return listOf(RecurringPatternSchema, 'patterns').parse((await api.get('/ai/matching/recurring/patterns')).data);
  },
  async dashboardStats(): Promise<DashboardStats> {
    return DashboardStatsSchema.parse((await api.get('/ai/dashboard/stats')).data);
  },
  async categories(): Promise<Category[]> {
    return z.array(CategorySchema.passthrough()).parse((await api.get('/masterdata/categories')).data);
  },
};

/** How many similar records a duplicate analysis names (the server uses either field). */
export function similarOf(d: DuplicateAnalysis): SimilarItem[] {
  return d.similarTransactions ?? d.duplicates ?? [];
}
