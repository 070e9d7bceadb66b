import { z } from 'zod';
import { api } from '../../../lib/api-client';

/** The /llm-test calls (spec section 7, AI), each with a zod schema for what the page reads. */

export const HealthSchema = z.object({
  status: z.string(),
  connected: z.boolean(),
  keyConfigured: z.boolean().optional(),
  chain: z.array(z.string()).default([]),
  model: z.string().nullable().optional(),
  fallbackModel: z.string().nullable().optional(),
  aiEnabled: z.boolean().optional(),
  error: z.string().optional(),
  ms: z.number().optional(),
}).passthrough();
export type Health = z.infer<typeof HealthSchema>;

const AttemptSchema = z.object({ model: z.string(), outcome: z.string(), reason: z.string().optional(), ms: z.number().optional() });
export const CategorizationSchema = z.object({
  predictedCategory: z.string(),
  predictedCategoryId: z.string().nullable().optional(),
  confidence: z.number(),
  model: z.string().nullable(),
  source: z.string(),
  attempts: z.array(AttemptSchema).default([]),
  categoriesConsidered: z.number().optional(),
}).passthrough();
export type CategorizationResult = z.infer<typeof CategorizationSchema>;

export const OcrSchema = z.object({
  ocrText: z.string(),
  receiptData: z.object({ filename: z.string(), fileSize: z.number(), fileType: z.string() }),
  ocrConfidence: z.number().optional(),
  source: z.string().optional(),
  ms: z.number().optional(),
}).passthrough();
export type OcrResult = z.infer<typeof OcrSchema>;

export const llmApi = {
  health: async () => HealthSchema.parse((await api.get('/ai/llm/health')).data),
  categorize: async (body: { description: string; amount: number; companyId: string | null }) =>
    CategorizationSchema.parse((await api.post('/ai/llm/test-categorization', { description: body.description, amount: body.amount, ...(body.companyId ? { companyId: body.companyId } : {}) })).data),
  ocr: async (file: File) => {
    const form = new FormData();
    form.append('receipt', file);
    return OcrSchema.parse((await api.post('/ai/llm/test-ocr', form)).data);
  },
};

/** Spec section 9, AI confidence badge: above 0.7 high, above 0.4 medium, otherwise low. */
export function aiConfidence(confidence: number): { label: 'High' | 'Medium' | 'Low'; tone: 'success' | 'warning' | 'danger' } {
  if (confidence > 0.7) return { label: 'High', tone: 'success' };
  if (confidence > 0.4) return { label: 'Medium', tone: 'warning' };
  return { label: 'Low', tone: 'danger' };
}
