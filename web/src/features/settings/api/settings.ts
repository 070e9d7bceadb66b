import { z } from 'zod';
import { api } from '../../../lib/api-client';
import { tokenStorage } from '../../../lib/storage';

/** The settings calls of spec section 7, each with a zod schema for what the screen reads. */

const SettingSchema = z.object({
  value: z.union([z.number(), z.boolean(), z.string(), z.null()]),
  description: z.string(),
  isDefault: z.boolean().optional(),
  updatedAt: z.string().nullable().optional(),
}).passthrough();
export type Setting = z.infer<typeof SettingSchema>;

export const GENERAL_KEYS = ['autoMatchThreshold', 'maxFileSize'] as const;
export const FLAG_KEYS = ['aiEnabled', 'autoCategorization', 'duplicateDetection'] as const;
export type SettingKey = (typeof GENERAL_KEYS)[number] | (typeof FLAG_KEYS)[number];

export const SettingsSchema = z.object({
  settings: z.record(z.string(), SettingSchema),
  llm: z.object({ model: z.string().nullable(), fallbackModel: z.string().nullable() }).optional(),
  limits: z.object({ maxFileSize: z.object({ min: z.number(), max: z.number() }) }).passthrough().optional(),
});
export type SettingsAnswer = z.infer<typeof SettingsSchema>;

const ModelSchema = z.object({ model: z.string().nullable() });
const ModelsSchema = z.object({ models: z.array(z.object({ name: z.string(), displayName: z.string().optional(), source: z.string().optional() }).passthrough()) });
export type ModelEntry = z.infer<typeof ModelsSchema>['models'][number];

export const ConnectionSchema = z.object({
  connected: z.boolean(),
  status: z.string().optional(),
  keyConfigured: z.boolean().optional(),
  chain: z.array(z.string()).optional(),
  error: z.string().optional(),
  message: z.string().optional(),
}).passthrough();
export type Connection = z.infer<typeof ConnectionSchema>;

export const settingsApi = {
  all: async () => SettingsSchema.parse((await api.get('/settings')).data),
  model: async () => ModelSchema.parse((await api.get('/settings/llm/model')).data).model,
  fallbackModel: async () => ModelSchema.parse((await api.get('/settings/llm/fallback-model')).data).model,
  availableModels: async () => ModelsSchema.parse((await api.get('/settings/llm/available-models')).data).models,
  setModel: async (model: string) => (await api.put('/settings/llm/model', { model })).data as { model: string; message?: string },
  setFallbackModel: async (model: string | null) => (await api.put('/settings/llm/fallback-model', { model })).data as { model: string | null; message?: string },
  testConnection: async () => ConnectionSchema.parse((await api.post('/settings/llm/test')).data),
  update: async (key: SettingKey, value: number | boolean) => (await api.put(`/settings/${key}`, { value })).data as { key: string; value: unknown },
};

/** Query keys carry the company: a company switch never shows the previous company's settings. */
export const settingsKeys = {
  all: () => ['settings', tokenStorage.companyId() ?? 'none'] as const,
  list: () => [...settingsKeys.all(), 'list'] as const,
  model: () => [...settingsKeys.all(), 'model'] as const,
  fallback: () => [...settingsKeys.all(), 'fallback'] as const,
  models: () => [...settingsKeys.all(), 'available-models'] as const,
  connection: () => [...settingsKeys.all(), 'connection'] as const,
};

export const MB = 1024 * 1024;
export const formatBytes = (n: number) => (n >= MB ? `${(n / MB).toFixed(n % MB === 0 ? 0 : 1)}MB` : `${Math.round(n / 1024)}KB`);
