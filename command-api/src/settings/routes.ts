import { Router } from 'express';
import { z } from 'zod';
import {
  GENERAL_SETTING_KEYS,
  MIN_FILE_SIZE,
  SERVER_MAX_FILE_SIZE,
  settingKeyOf,
  settingsDecider,
  ValidationError,
  type CompanySettings,
  type LanguageModel,
  type ModelSettingKey,
  type RequestContext,
  type SettingKey,
  type SettingValue,
} from '@paperlink/domain';
import type { CommandBus, Plan } from '../core/bus';
import { send } from '../core/http';
import { ctxOf, requireCompany } from '../http/context';

import { settingsStream } from '@paperlink/domain';
export { settingsStream };

export interface SettingView {
  value: SettingValue;
  description: string;
  isDefault?: boolean;
  updatedAt?: string | null;
}

export interface SettingsDeps {
  bus: CommandBus;
  /** The company's settings with defaults (projections' companySettings). */
  settings(companyId: string): Promise<CompanySettings>;
  /** Every setting as the API shows it (projections' companySettingViews). */
  views(companyId: string): Promise<Record<SettingKey, SettingView>>;
  llm: LanguageModel;
}

export const SettingKeyParams = z.object({ key: z.string().min(1).max(100) });
export const SettingBody = z.object({
  value: z.union([z.number(), z.boolean(), z.string().max(200), z.null()]),
  description: z.string().max(1000).optional().nullable(),
});
export const ModelBody = z.object({ model: z.string().max(200).nullable().optional() });

/** The company's chosen models, as the chain takes them. */
export const modelChoice = (s: CompanySettings) => ({ primary: s.llmModel, fallback: s.llmFallbackModel });

/**
 * Advanced settings (spec section 7, Settings): every member may read them (the page shows
 * them read-only); changes are admin-only, validated by the decider, recorded as
 * CompanySettingChanged events. Listing models and testing the connection call the hosted
 * API, so they are admin-only too. No route takes or returns an API key.
 */
export function settingsRouter(deps: SettingsDeps): Router {
  const { bus } = deps;
  const router = Router();
  const member = requireCompany();
  const admin = requireCompany('admin');

  const change = (ctx: RequestContext, key: SettingKey, value: unknown, description?: unknown) => async (): Promise<Plan> => {
    const { after, events, append } = await bus.handle(settingsStream(ctx.companyId!), settingsDecider, { type: 'ChangeSetting', companyId: ctx.companyId!, role: ctx.role!, key, value, ...(description !== undefined ? { description } : {}) });
    // A setting never set shows its default (and its default description).
    const views = await deps.views(ctx.companyId!);
    const stored = key in after.values ? after.values[key]! : views[key].value;
    return { appends: [append], body: { key, value: stored, description: after.descriptions[key] ?? views[key].description, changed: events.length > 0 } };
  };

  router.get('/settings', member, async (_req, res) => {
    const views = await deps.views(ctxOf(res).companyId!);
    const settings = Object.fromEntries(GENERAL_SETTING_KEYS.map((k) => [k, views[k]]));
    res.json({
      settings,
      llm: { model: views.llmModel.value, fallbackModel: views.llmFallbackModel.value },
      limits: { autoMatchThreshold: { min: 0, max: 100 }, maxFileSize: { min: MIN_FILE_SIZE, max: SERVER_MAX_FILE_SIZE } },
    });
  });

  const modelRoutes = (path: string, key: ModelSettingKey, what: string) => {
    router.get(path, member, async (_req, res) => {
      const s = await deps.settings(ctxOf(res).companyId!);
      res.json({ model: s[key] });
    });
    router.put(path, admin, async (req, res) => {
      const b = ModelBody.parse(req.body ?? {});
      const model = b.model?.trim() ?? '';
      if (!model && key === 'llmModel') throw new ValidationError('Choose a model.', [{ field: 'model', message: 'Choose a model' }], 'model_required');
      if (model) await checkKnownModel(deps.llm, model, what);
      await send(req, res, bus, async (ctx) => {
        const plan = await change(ctx, key, model || null)();
        const body = plan.body as { value: SettingValue; changed: boolean };
        return { ...plan, body: { model: body.value, changed: body.changed, message: `${what} updated` } };
      });
    });
  };
  modelRoutes('/settings/llm/model', 'llmModel', 'Language model');
  modelRoutes('/settings/llm/fallback-model', 'llmFallbackModel', 'Fallback language model');

  router.post('/settings/llm/test', admin, async (_req, res) => {
    const s = await deps.settings(ctxOf(res).companyId!);
    const health = await deps.llm.health({ models: modelChoice(s) });
    res.json({
      connected: health.connected,
      status: health.status,
      keyConfigured: health.keyConfigured,
      model: s.llmModel,
      fallbackModel: s.llmFallbackModel,
      chain: health.chain,
      ...(health.error ? { error: health.error } : {}),
      message: health.connected ? 'LLM connection successful' : health.keyConfigured ? 'LLM connection failed' : 'No API key is configured on the server: the offline model is used',
    });
  });

  router.get('/settings/llm/available-models', admin, async (_req, res) => {
    try {
      const models = await deps.llm.listModels();
      res.json({ models: models.map((m) => ({ name: m.name, displayName: m.displayName ?? m.name, source: m.source, ...(m.createdAt ? { createdAt: m.createdAt } : {}) })) });
    } catch {
      res.status(502).json({ error: 'Failed to load available models', code: 'models_unavailable' });
    }
  });

  router.get('/settings/:key', member, async (req, res) => {
    const key = settingKeyOf(SettingKeyParams.parse(req.params).key);
    const views = await deps.views(ctxOf(res).companyId!);
    res.json({ key, ...views[key] });
  });

  router.put('/settings/:key', admin, async (req, res) => {
    const key = settingKeyOf(SettingKeyParams.parse(req.params).key);
    const b = SettingBody.parse(req.body ?? {});
    await send(req, res, bus, (ctx) => change(ctx, key, b.value, b.description ?? undefined)());
  });

  return router;
}

/** When the Models API can be read, a model must be one of its list (or the offline model). */
async function checkKnownModel(llm: LanguageModel, model: string, what: string): Promise<void> {
  let models;
  try {
    models = await llm.listModels();
  } catch {
    return; // the API is down: the name's form is checked by the decider, the chain reports failures later
  }
  // Without a key there is no list to check against: any well-formed name is kept for later.
  if (!models.some((m) => m.source === 'remote')) return;
  if (!models.some((m) => m.name === model)) {
    throw new ValidationError(`${what}: "${model.slice(0, 100)}" is not one of the available models.`, [{ field: 'model', message: 'Not an available model' }], 'unknown_model');
  }
}
