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
}).passthrough();

/** Where a prediction came from (the server's details.source), in words. */
export function predictionSource(c: Categorization): string | null {
  const d = c.details;
  const source = d && typeof d === 'object' && 'source' in d ? (d as { source?: unknown }).source : undefined;
  const words: Record<string, string> = { memory: 'from this payee\'s history', model: "from the company's categorised transactions", name: 'from the category names', 'language-model': 'from the language model' };
  return typeof source === 'string' ? (words[source] ?? null) : null;
}

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
  kind: z.enum(['transaction', 'receipt']).optional(),
  memberIds: z.array(z.string()).optional(),
  reasons: z.array(z.string()).optional(),
  created_at: z.string().nullable().optional(),
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
  next_expected_date: z.string().nullable().optional(),
  amount: z.number().nullable().optional(),
}).passthrough();
export type RecurringPattern = z.infer<typeof RecurringPatternSchema>;

export const DashboardStatsSchema = z.object({
  categorization: z.object({ total_predictions: z.number(), accuracy: z.number().nullable() }).passthrough(),
  duplicates: z.object({ total_groups: z.number(), prevented_duplicates: z.number(), pending_groups: z.number().optional() }).passthrough(),
}).passthrough();
export type DashboardStats = z.infer<typeof DashboardStatsSchema>;

export const BatchResultSchema = z.object({ processed: z.number(), duplicatesFound: z.number(), newGroups: z.number().optional() }).passthrough();
export type BatchResult = z.infer<typeof BatchResultSchema>;
export type RecordKind = 'transaction' | 'receipt';

/** One record of a duplicate group, as its own list shows it. */
export interface GroupMember {
  id: string;
  date: string | null;
  description: string;
  amount: number | null;
}

export const CalendarUploadSchema = z.object({
  calendar: z.object({ id: z.string(), fileName: z.string(), name: z.string().nullable().optional(), events: z.number(), skipped: z.number().optional(), truncated: z.number().optional(), replaced: z.boolean().optional() }).passthrough(),
  message: z.string().optional(),
});
export type CalendarUpload = z.infer<typeof CalendarUploadSchema>;

export const CalendarInsightsSchema = z.object({
  calendars: z.array(z.object({ id: z.string(), fileName: z.string(), name: z.string().nullable().optional(), events: z.number(), uploaded_at: z.string().nullable().optional() }).passthrough()),
  trips: z.array(z.object({
    eventId: z.string().optional(),
    summary: z.string(),
    location: z.string().nullable().optional(),
    startDate: z.string(),
    endDate: z.string(),
    transactionCount: z.number(),
    totalSpent: z.number(),
    byCategory: z.array(z.object({ category: z.string().nullable(), amount: z.number() })).optional(),
  }).passthrough()),
  totals: z.object({ events: z.number(), trips: z.number(), correlatedTransactions: z.number(), correlatedSpend: z.number() }).passthrough(),
});
export type CalendarInsights = z.infer<typeof CalendarInsightsSchema>;


export interface Feedback {
  transactionId: string;
  actualCategoryId: string;
  predictedCategoryId: string | null;
  confidence: number | null;
}

/** Spec section 9: duplicate batches hold 100 items. */
export const BATCH_SIZE = 100;

const GroupsAnswer = z.object({ groups: z.array(DuplicateGroupSchema) });
const PatternsAnswer = z.object({ patterns: z.array(RecurringPatternSchema) });
const TransactionAnswer = z.object({ transaction: z.object({ id: z.string(), transaction_date: z.string().nullable(), description: z.string(), amount: z.number() }).passthrough() });
const ReceiptAnswer = z.object({ receipt: z.object({ id: z.string(), original_filename: z.string(), extracted_date: z.string().nullable().optional(), extracted_merchant: z.string().nullable().optional(), extracted_amount: z.number().nullable().optional() }).passthrough() });

const enc = encodeURIComponent;

export const aiApi = {
  async analyze(transactionId: string): Promise<Analysis> {
    const data = (await api.post(`/ai/analyze/comprehensive/${enc(transactionId)}`)).data as { analysis?: unknown };
    return AnalysisSchema.parse(data.analysis ?? {});
  },
  /** A prediction the server records (the one feedback grades; it may ask the language model). */
  async categorize(transactionId: string): Promise<Categorization> {
    return CategorizationSchema.parse((await api.post(`/ai/categorize/transaction/${enc(transactionId)}`)).data);
  },
  /**
   * The AI Analysis modal's content: the comprehensive analysis (four sections, each with its
   * own error), with the categorisation taken from the recorded prediction when that call works.
   * The comprehensive call only reads, so without the second call no prediction would count on
   * /ai-dashboard and feedback would grade a prediction nobody recorded. A read-only caller (an
   * auditor) records nothing: `record` false asks for the analysis alone.
   */
  async analyzeForModal(transactionId: string, record = true): Promise<Analysis> {
    const [analysis, recorded] = await Promise.allSettled([aiApi.analyze(transactionId), record ? aiApi.categorize(transactionId) : Promise.reject(new Error('not recorded'))]);
    if (analysis.status === 'rejected') throw analysis.reason;
    return recorded.status === 'fulfilled' ? { ...analysis.value, categorization: recorded.value } : analysis.value;
  },
  async feedback(body: Feedback): Promise<void> {
    await api.post('/ai/categorize/feedback', body);
  },
  async checkDuplicates(transactionId: string): Promise<DuplicateAnalysis> {
    const data = (await api.post(`/ai/duplicates/check/${enc(transactionId)}`)).data as { duplicateAnalysis?: unknown };
    return DuplicateAnalysisSchema.parse(data.duplicateAnalysis ?? data);
  },
  async groups(): Promise<DuplicateGroup[]> {
    return GroupsAnswer.parse((await api.get('/ai/duplicates/groups')).data).groups;
  },
  /** The records of a group, read one by one (a group names its members by id). */
  async member(kind: RecordKind, id: string): Promise<GroupMember> {
    if (kind === 'receipt') {
      const r = ReceiptAnswer.parse((await api.get(`/receipts/${enc(id)}`)).data).receipt;
      return { id: r.id, date: r.extracted_date ?? null, description: [r.extracted_merchant, r.original_filename].filter(Boolean).join(' · '), amount: r.extracted_amount ?? null };
    }
    const t = TransactionAnswer.parse((await api.get(`/transactions/${enc(id)}`)).data).transaction;
    return { id: t.id, date: t.transaction_date, description: t.description, amount: t.amount };
  },
  async setGroupStatus(id: string, status: GroupStatus): Promise<void> {
    await api.put(`/ai/duplicates/groups/${enc(id)}`, { status });
  },
  /** Spec section 9: a batch of 100 (the server takes the newest records in scope and checks each against all). */
  async batch(kind: RecordKind): Promise<BatchResult> {
    return z.object({ results: BatchResultSchema }).parse((await api.post('/ai/duplicates/batch', { limit: BATCH_SIZE, kind })).data).results;
  },
  async patterns(): Promise<RecurringPattern[]> {
    return PatternsAnswer.parse((await api.get('/ai/matching/recurring/patterns')).data).patterns;
  },
  async uploadCalendar(file: File): Promise<CalendarUpload> {
    const form = new FormData();
    form.append('calendar', file);
    return CalendarUploadSchema.parse((await api.post('/ai/calendar/upload', form)).data);
  },
  async calendarInsights(): Promise<CalendarInsights> {
    return CalendarInsightsSchema.parse((await api.get('/ai/calendar/insights')).data);
  },
  async dashboardStats(): Promise<DashboardStats> {
    return DashboardStatsSchema.parse((await api.get('/ai/dashboard/stats')).data);
  },
};

/** How many similar records a duplicate analysis names (the server uses either field). */
export function similarOf(d: DuplicateAnalysis): SimilarItem[] {
  return d.similarTransactions ?? d.duplicates ?? [];
}
