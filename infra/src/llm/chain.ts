import {
  DEFAULT_LLM_FALLBACK_MODEL,
  DEFAULT_LLM_MODEL,
  NO_CATEGORY,
  checkedCategorization,
  promptCategories,
  type CallOptions,
  type CategorizeInput,
  type Categorization,
  type LanguageModel,
  type LanguageModelHealth,
  type ModelAttempt,
  type ModelInfo,
  type OfflineCategorizer,
} from '@paperlink/domain';
import { AnthropicModels, failureReason, isAbort, type AnthropicClientOptions } from './anthropic';

/** The name the chain's last step has when no offline categoriser is plugged in. */
export const NO_MODEL = 'no model';
const MODELS_CACHE_MS = 5 * 60_000;
/** Every member may ask for health: the API is asked at most this often per process. */
const PING_CACHE_MS = 15_000;

export interface ModelChainOptions {
  /** From the environment (ANTHROPIC_API_KEY). Absent: no hosted model is tried. */
  apiKey?: string;
  baseURL?: string;
  timeoutMs?: number;
  maxRetries?: number;
  /**
   * What one categorisation may spend on hosted models, retries included (default 25 s, under
   * the web client's 30 s): once spent, the chain goes straight to the offline model.
   */
  budgetMs?: number;
  /** Used when a call names no models (the company's settings do). */
  defaults?: { primary: string; fallback: string | null };
  /** The last resort, local and offline. Absent: the chain ends with "no model". */
  offline?: OfflineCategorizer;
  now?: () => number;
}

/**
 * The language model as the product sees it: the primary hosted model, then the fallback,
 * then the offline categoriser, then "no model" (an explicit answer of 'none' from nobody,
 * with every attempt listed). A caller's abort stops the chain at once.
 */
export class ModelChain implements LanguageModel {
  private readonly remote: AnthropicModels | null;
  private readonly defaults: { primary: string; fallback: string | null };
  private readonly now: () => number;
  private modelsCache: { at: number; models: ModelInfo[] } | null = null;
  private pingCache: { at: number; error: string | null } | null = null;

  constructor(private readonly options: ModelChainOptions = {}) {
    const key = options.apiKey?.trim();
    const client: AnthropicClientOptions | null = key
      ? { apiKey: key, ...(options.baseURL ? { baseURL: options.baseURL } : {}), ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}), ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}) }
      : null;
    this.remote = client ? new AnthropicModels(client) : null;
    this.defaults = options.defaults ?? { primary: DEFAULT_LLM_MODEL, fallback: DEFAULT_LLM_FALLBACK_MODEL };
    this.now = options.now ?? Date.now;
  }

  get keyConfigured(): boolean {
    return this.remote !== null;
  }

  /** The hosted models to try, in order, without repeats. */
  private remoteModels(options?: CallOptions): string[] {
    const primary = options?.models?.primary || this.defaults.primary;
    const fallback = options?.models && 'fallback' in options.models ? options.models.fallback : this.defaults.fallback;
    // The offline model chosen as primary or fallback is not a hosted one: it answers last anyway.
    const offline = this.options.offline?.name;
    return [primary, ...(fallback && fallback !== primary ? [fallback] : [])].filter((m) => m !== offline);
  }

  chain(options?: CallOptions): string[] {
    return [...this.remoteModels(options), this.options.offline ? this.options.offline.name : NO_MODEL];
  }

  async categorize(input: CategorizeInput, options?: CallOptions): Promise<Categorization> {
    const categories = promptCategories(input.categories);
    const attempts: ModelAttempt[] = [];
    if (categories.length === 0) {
      return { category: NO_CATEGORY, confidence: 0, model: null, source: 'none', attempts: [{ model: NO_MODEL, outcome: 'skipped', reason: 'the company has no categories', ms: 0 }] };
    }
    const signal = options?.signal;
    const budget = this.remote ? AbortSignal.timeout(this.options.budgetMs ?? 25_000) : null;
    const remoteSignal = budget ? (signal ? AbortSignal.any([signal, budget]) : budget) : undefined;
    for (const model of this.remoteModels(options)) {
      if (!this.remote) {
        attempts.push({ model, outcome: 'skipped', reason: 'no API key configured', ms: 0 });
        continue;
      }
      if (budget?.aborted) {
        attempts.push({ model, outcome: 'skipped', reason: 'out of time', ms: 0 });
        continue;
      }
      const t = this.now();
      try {
        const answer = await this.remote.categorize(model, input, categories, remoteSignal);
        attempts.push({ model, outcome: 'answered', ms: this.now() - t });
        return { ...answer, model, source: 'remote', attempts };
      } catch (error) {
        if (signal?.aborted) throw error;
        if (budget?.aborted) {
          attempts.push({ model, outcome: 'failed', reason: 'out of time', ms: this.now() - t });
          continue;
        }
        if (isAbort(error)) throw error;
        attempts.push({ model, outcome: 'failed', reason: failureReason(error), ms: this.now() - t });
      }
    }
    const offline = this.options.offline;
    if (offline) {
      const t = this.now();
      try {
        const raw = await offline.categorize({ ...input, categories });
        const answer = raw ? checkedCategorization(raw, categories) : null;
        if (answer) {
          attempts.push({ model: offline.name, outcome: 'answered', ms: this.now() - t });
          return { ...answer, model: offline.name, source: 'offline', attempts };
        }
        attempts.push({ model: offline.name, outcome: 'skipped', reason: raw ? 'malformed answer' : 'nothing learned for this company yet', ms: this.now() - t });
      } catch (error) {
        if (signal?.aborted) throw error;
        attempts.push({ model: offline.name, outcome: 'failed', reason: 'offline model failed', ms: this.now() - t });
      }
    }
    attempts.push({ model: NO_MODEL, outcome: 'skipped', reason: 'no model could answer', ms: 0 });
    return { category: NO_CATEGORY, confidence: 0, model: null, source: 'none', attempts };
  }

  async health(options?: CallOptions): Promise<LanguageModelHealth> {
    const t = this.now();
    const chain = this.chain(options);
    if (!this.remote) {
      return { status: this.options.offline ? 'offline' : 'unavailable', connected: false, keyConfigured: false, chain, ms: 0 };
    }
    if (!this.pingCache || this.now() - this.pingCache.at >= PING_CACHE_MS) {
      try {
        await this.remote.ping(options?.signal);
        this.pingCache = { at: this.now(), error: null };
      } catch (error) {
        if (options?.signal?.aborted) throw error;
        this.pingCache = { at: this.now(), error: failureReason(error) };
      }
    }
    const { error } = this.pingCache;
    return error === null
      ? { status: 'ok', connected: true, keyConfigured: true, chain, ms: this.now() - t }
      : { status: 'degraded', connected: false, keyConfigured: true, chain, error, ms: this.now() - t };
  }

  async listModels(options?: { signal?: AbortSignal }): Promise<ModelInfo[]> {
    const offline: ModelInfo[] = this.options.offline ? [{ name: this.options.offline.name, displayName: 'Offline (built-in)', source: 'offline' }] : [];
    if (!this.remote) return offline;
    if (this.modelsCache && this.now() - this.modelsCache.at < MODELS_CACHE_MS) return [...this.modelsCache.models, ...offline];
    const listed = await this.remote.list(200, options?.signal);
    const models: ModelInfo[] = listed.map((m) => ({ name: m.id, displayName: m.displayName, ...(m.createdAt ? { createdAt: m.createdAt } : {}), source: 'remote' }));
    this.modelsCache = { at: this.now(), models };
    return [...models, ...offline];
  }
}
