/**
 * The language-model port: what the product asks of a language model, independent of who
 * answers (Anthropic's API through infra/src/llm/anthropic.ts, an offline categoriser, or
 * nobody). Adapters live in infra; features (categorisation, the /llm-test page) take this
 * interface.
 *
 * Structured output only: a categorisation answer is one of the company's own category names
 * or NO_CATEGORY, never free text. Adapters constrain the model to that list (a tool whose
 * input schema is an enum) and `checkedCategorization` refuses anything else.
 */

/** The answer when no category of the list fits (or no model could say). */
export const NO_CATEGORY = 'none';

/** At most this many categories go to a model in one request (the enum of its output schema). */
export const MAX_PROMPT_CATEGORIES = 500;
/** A description longer than this is cut before it goes to a model. */
export const MAX_PROMPT_DESCRIPTION = 500;

export interface CategorizeInput {
  /** The transaction's description as the statement shows it. */
  description: string;
  /** Amount in the spec's units (dollars; negative is an expense). */
  amount: number;
  /** The company's category names: the only answers allowed besides NO_CATEGORY. */
  categories: readonly string[];
  /** For learned (per-company) offline models; remote models never see it. */
  companyId?: string;
  /** YYYY-MM-DD, when known. */
  date?: string;
}

/** Which models to try, in order (from the company's settings). Absent: the adapter's defaults. */
export interface ModelChoice {
  primary?: string | null;
  fallback?: string | null;
}

export interface CallOptions {
  signal?: AbortSignal;
  models?: ModelChoice;
}

/** One step of a chain, for the caller to show or log (never carries a key or a prompt). */
export interface ModelAttempt {
  model: string;
  outcome: 'answered' | 'failed' | 'skipped';
  /** A short reason when it failed or was skipped: 'timeout', 'http 529', 'malformed answer', 'no key'. */
  reason?: string;
  ms: number;
}

export interface Categorization {
  /** One of the input's categories (exactly as given), or NO_CATEGORY. */
  category: string;
  /** 0 to 1. */
  confidence: number;
  /** The model that answered; `null` when none could (the chain ended with "no model"). */
  model: string | null;
  /** remote: a hosted model; offline: a local model; none: nothing answered. */
  source: 'remote' | 'offline' | 'none';
  /** Every step tried, in order. */
  attempts: ModelAttempt[];
}

export interface ModelInfo {
  /** The id sent to the API (e.g. 'claude-sonnet-4-5'). */
  name: string;
  displayName?: string;
  createdAt?: string;
  source: 'remote' | 'offline';
}

export interface LanguageModelHealth {
  /** ok: a remote model answered; offline: no key, the offline model is the one in use; degraded: a key is set and the API failed; unavailable: nothing can answer. */
  status: 'ok' | 'offline' | 'degraded' | 'unavailable';
  /** Whether the hosted API answered the check. */
  connected: boolean;
  /** Whether an API key is configured (the key itself is never shown). */
  keyConfigured: boolean;
  /** The chain in order, e.g. ['claude-sonnet-4-5', 'claude-haiku-4-5', 'offline'] or [..., 'no model']. */
  chain: string[];
  /** Why the API check failed, short and without secrets. */
  error?: string;
  ms: number;
}

/** A language model, or a chain of them that answers as one. */
export interface LanguageModel {
  categorize(input: CategorizeInput, options?: CallOptions): Promise<Categorization>;
  health(options?: CallOptions): Promise<LanguageModelHealth>;
  /** Models the caller may choose from (the Models API when a key is set). */
  listModels(options?: { signal?: AbortSignal }): Promise<ModelInfo[]>;
}

/**
 * A local, offline categoriser (learned per company from its own transactions) that the chain
 * ends with when every remote model failed or none is configured. `null`: it has nothing to
 * say (no data for the company yet), and the chain then ends with "no model".
 */
export interface OfflineCategorizer {
  readonly name: string;
  categorize(input: CategorizeInput): Promise<{ category: string; confidence: number } | null>;
}

/** The categories a model may answer with: trimmed, de-duplicated (case-insensitively), capped. */
export function promptCategories(categories: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const c of categories) {
    const name = c.trim();
    const key = name.toLowerCase();
    if (!name || key === NO_CATEGORY || seen.has(key)) continue;
    seen.add(key);
    out.push(name);
    if (out.length >= MAX_PROMPT_CATEGORIES) break;
  }
  return out;
}

/**
 * A model's raw structured answer checked against the list: the category must be one of the
 * list (matched case-insensitively, returned as the list spells it) or NO_CATEGORY, the
 * confidence a number from 0 to 1 (a percentage 1-100 is scaled). Anything else: null (a
 * malformed answer, which the chain treats as a failure of that model).
 */
export function checkedCategorization(raw: unknown, categories: readonly string[]): { category: string; confidence: number } | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as Record<string, unknown>;
  if (typeof r.category !== 'string') return null;
  const wanted = r.category.trim().toLowerCase();
  const category = wanted === NO_CATEGORY ? NO_CATEGORY : categories.find((c) => c.trim().toLowerCase() === wanted);
  if (category === undefined) return null;
  let confidence = typeof r.confidence === 'number' ? r.confidence : typeof r.confidence === 'string' ? Number(r.confidence) : NaN;
  if (!Number.isFinite(confidence) || confidence < 0 || confidence > 100) return null;
  if (confidence > 1) confidence /= 100;
  return { category, confidence: category === NO_CATEGORY ? Math.min(confidence, 1) : confidence };
}
