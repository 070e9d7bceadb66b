/**
 * A company's categoriser: payee memory first (what this company filed this merchant under,
 * corrected by feedback), the linear model for merchants it has not met, and the category's
 * name as the last resort when there is no history at all. Every answer carries a calibrated
 * confidence: the model's temperature is fitted on merchant-grouped cross-validation, so its
 * confidence is honest for merchants it has never seen; the memory's is a Dirichlet posterior
 * with the model's answer as the prior.
 */
import { conceptsOfCategoryName } from './lexicon';
import { lineFeatures, type LineInput } from './features';
import { compile, logits, probabilities, trainLinear, type Example, type LinearModel, type ScoringModel } from './model';

export interface CategoryRef {
  id: string;
  name: string;
}

export interface LabelledLine extends LineInput {
  categoryId: string;
}

/** Counts per category for one merchant key; `rejected` counts "No" answers per category. */
export interface PayeeEntry {
  counts: Record<string, number>;
  rejected: Record<string, number>;
}
export type PayeeMemory = Record<string, PayeeEntry>;

export interface CategorizerModel {
  linear: LinearModel | null;
  /** Number of lines it was trained on. */
  trainedOn: number;
  /** Out-of-fold figures from the calibration (null when too little history). */
  calibration: { folds: number; accuracy: number; accuracyUnknown: number; temperature: number; temperatureUnknown: number } | null;
}

export interface Prediction {
  categoryId: string | null;
  confidence: number;
  source: 'memory' | 'model' | 'name' | 'none';
  merchantKey: string;
  alternatives: { categoryId: string; probability: number }[];
}

/** Weight of one feedback answer in the payee memory, against one categorised line. */
export const FEEDBACK_WEIGHT = 3;
/** Strength of the model's answer as the memory's prior, in lines. */
const PRIOR_STRENGTH = 1.5;
/** Each "No" for a category on a merchant keeps this share of its probability. */
const REJECT_FACTOR = 0.15;
/** At most this many lines per merchant go into training (the most recent ones win). */
const PER_MERCHANT_CAP = 20;
/** Lines one training takes at most (a company with thousands of merchants keeps 3 of each). */
const EXAMPLE_BUDGET = 4000;
/** Calibration needs a few thousand out-of-fold answers, not all of a big company's lines. */
const CALIBRATION_LINES = 2000;
/** The sharpest a calibration may make the model. */
export const MIN_TEMPERATURE = 0.3;

export function emptyEntry(): PayeeEntry {
  return { counts: {}, rejected: {} };
}

/** Adds (or with a negative weight removes) one categorised line to a memory entry. */
export function countInEntry(entry: PayeeEntry, categoryId: string, weight: number): PayeeEntry {
  const next = (entry.counts[categoryId] ?? 0) + weight;
  const counts = { ...entry.counts };
  if (next > 1e-9) counts[categoryId] = next;
  else delete counts[categoryId];
  return { counts, rejected: entry.rejected };
}

/**
 * A feedback answer: "Yes" (actual equals predicted) strengthens the category; "No" with the
 * right category moves the merchant there and marks the predicted one as wrong; "No" without
 * one only marks it.
 */
export function feedbackInEntry(entry: PayeeEntry, predictedCategoryId: string | null, actualCategoryId: string | null): PayeeEntry {
  let next = entry;
  if (actualCategoryId !== null) next = countInEntry(next, actualCategoryId, FEEDBACK_WEIGHT);
  if (predictedCategoryId !== null && predictedCategoryId !== actualCategoryId) {
    next = { counts: next.counts, rejected: { ...next.rejected, [predictedCategoryId]: (next.rejected[predictedCategoryId] ?? 0) + 1 } };
  }
  return next;
}

export function buildMemory(lines: readonly LabelledLine[]): PayeeMemory {
  const memory: PayeeMemory = {};
  for (const line of lines) {
    const key = lineFeatures(line).merchantKey;
    memory[key] = countInEntry(memory[key] ?? emptyEntry(), line.categoryId, 1);
  }
  return memory;
}

function examplesOf(lines: readonly LabelledLine[]): Example[] {
  const featured = lines.map((l) => ({ line: l, f: lineFeatures(l) }));
  const byKey = new Map<string, number>();
  for (const x of featured) byKey.set(x.f.merchantKey, (byKey.get(x.f.merchantKey) ?? 0) + 1);
  // Keep the last lines of each merchant (fewer when there are many merchants: the training
  // stays within EXAMPLE_BUDGET lines); weigh merchants, not lines, so that the model learns what
  // merchants of a kind share rather than the busiest merchant's words.
  const cap = Math.max(3, Math.min(PER_MERCHANT_CAP, Math.floor(EXAMPLE_BUDGET / Math.max(1, byKey.size))));
  const seen = new Map<string, number>();
  const out: Example[] = [];
  for (let i = featured.length - 1; i >= 0; i--) {
    const x = featured[i];
    if (x === undefined) continue;
    const n = (seen.get(x.f.merchantKey) ?? 0) + 1;
    seen.set(x.f.merchantKey, n);
    if (n > cap) continue;
    const total = Math.min(cap, byKey.get(x.f.merchantKey) ?? 1);
    out.push({ features: x.f.features, concepts: x.f.concepts, label: x.line.categoryId, weight: 1 / Math.sqrt(total) });
  }
  return out;
}

/** A stable fold for a merchant key (FNV-1a), so CV groups never split a merchant. */
export function foldOf(key: string, folds: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % folds;
}

export interface OutOfFold {
  line: LabelledLine;
  merchantKey: string;
  /** Whether general knowledge names a kind for the merchant (the line has concepts). */
  known: boolean;
  scores: Float64Array | null;
  /** Scores as if general knowledge knew nothing of the merchant (concepts removed). */
  bareScores: Float64Array | null;
  classes: string[];
}

/** Features without what general knowledge says of the merchant. */
function bare(features: ReadonlyMap<string, number>): Map<string, number> {
  return new Map([...features].filter(([name]) => !name.startsWith('k:')));
}

/** Merchant-grouped cross-validation: each line scored by a model that never saw its merchant. */
export function groupedOutOfFold(lines: readonly LabelledLine[], categories: readonly CategoryRef[], folds = 5): OutOfFold[] {
  const names = new Map(categories.map((c) => [c.id, c.name]));
  const keys = lines.map((l) => lineFeatures(l).merchantKey);
  const out: OutOfFold[] = [];
  for (let f = 0; f < folds; f++) {
    const train = lines.filter((_, i) => foldOf(keys[i] ?? '', folds) !== f);
    const test = lines.map((l, i) => ({ l, i })).filter(({ i }) => foldOf(keys[i] ?? '', folds) === f);
    if (test.length === 0) continue;
    const model = train.length > 0 ? compile(trainLinear(examplesOf(train), names)) : null;
    for (const { l, i } of test) {
      const lf = lineFeatures(l);
      out.push({
        line: l,
        merchantKey: keys[i] ?? '',
        known: lf.concepts.length > 0,
        scores: model ? logits(model, lf.features, lf.concepts) : null,
        bareScores: model ? logits(model, bare(lf.features), []) : null,
        classes: model ? model.model.classes : [],
      });
    }
  }
  return out;
}

/**
 * The temperature that minimises the out-of-fold negative log-likelihood (grid search), never
 * below MIN_TEMPERATURE: a cross-validation without a single mistake would otherwise make every
 * answer certain.
 */
export function fitTemperature(oof: readonly OutOfFold[], which: 'scores' | 'bareScores' = 'scores'): number {
  let best = 1;
  let bestLoss = Infinity;
  for (let t = MIN_TEMPERATURE; t <= 4.001; t += t < 1 ? 0.025 : 0.1) {
    let loss = 0;
    for (const x of oof) {
      const o = { line: x.line, classes: x.classes, scores: x[which] };
      if (o.scores === null) continue;
      const k = o.classes.indexOf(o.line.categoryId);
      let max = -Infinity;
      for (const v of o.scores) max = Math.max(max, v / t);
      let sum = 0;
      for (const v of o.scores) sum += Math.exp(v / t - max);
      // A class the fold never trained on is as wrong as the least likely one.
      const own = k < 0 ? Math.min(...o.scores) / t : (o.scores[k] ?? 0) / t;
      loss -= own - max - Math.log(sum);
    }
    if (loss < bestLoss) {
      bestLoss = loss;
      best = t;
    }
  }
  return Math.round(best * 100) / 100;
}

/** Trains the linear model on a company's categorised lines and calibrates it by grouped CV. */
export function trainCategorizer(lines: readonly LabelledLine[], categories: readonly CategoryRef[]): CategorizerModel {
  const names = new Map(categories.map((c) => [c.id, c.name]));
  const labels = new Set(lines.map((l) => l.categoryId));
  if (lines.length === 0 || labels.size < 2) return { linear: null, trainedOn: lines.length, calibration: null };
  const linear = trainLinear(examplesOf(lines), names);
  const merchants = new Set(lines.map((l) => lineFeatures(l).merchantKey));
  if (merchants.size < 5) return { linear, trainedOn: lines.length, calibration: null };
  const folds = Math.min(5, merchants.size);
  // A big company calibrates on a share of its merchants (whole merchants, chosen by hash).
  const buckets = 97;
  const share = Math.min(buckets, Math.ceil((buckets * CALIBRATION_LINES) / lines.length));
  const sample = share >= buckets ? lines : lines.filter((l) => foldOf(lineFeatures(l).merchantKey, buckets) < share);
  const oof = groupedOutOfFold(sample, categories, folds);
  // Two calibrations: lines whose merchant general knowledge names, and lines it does not
  // (estimated by removing the concepts from every held-out line).
  const known = oof.filter((o) => o.known);
  const temperature = known.length > 0 ? fitTemperature(known) : 1;
  const temperatureUnknown = fitTemperature(oof, 'bareScores');
  const accuracy = (pick: (o: OutOfFold) => Float64Array | null): number => {
    const right = oof.filter((o) => {
      const scores = pick(o);
      return scores !== null && o.classes[argmax(scores)] === o.line.categoryId;
    }).length;
    return oof.length > 0 ? right / oof.length : 0;
  };
  return {
    linear: { ...linear, temperature, temperatureUnknown },
    trainedOn: lines.length,
    calibration: { folds, accuracy: accuracy((o) => o.scores), accuracyUnknown: accuracy((o) => o.bareScores), temperature, temperatureUnknown },
  };
}

function argmax(xs: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if ((xs[i] ?? -Infinity) > (xs[best] ?? -Infinity)) best = i;
  return best;
}

const compiled = new WeakMap<LinearModel, ScoringModel>();
function scoring(model: LinearModel): ScoringModel {
  let sm = compiled.get(model);
  if (!sm) {
    sm = compile(model);
    compiled.set(model, sm);
  }
  return sm;
}

/**
 * Predicts a line's category among the company's current categories (a deleted category is
 * never answered).
 */
export function predictCategory(
  line: LineInput,
  ctx: { model: CategorizerModel | null; memory: PayeeMemory; categories: readonly CategoryRef[] },
): Prediction {
  const lf = lineFeatures(line);
  const live = new Set(ctx.categories.map((c) => c.id));
  const prior = new Map<string, number>();
  const linear = ctx.model?.linear ?? null;
  if (linear) {
    const p = probabilities(logits(scoring(linear), lf.features, lf.concepts), lf.concepts.length > 0 ? linear.temperature : linear.temperatureUnknown);
    linear.classes.forEach((c, k) => {
      if (live.has(c)) prior.set(c, p[k] ?? 0);
    });
  }
  let source: Prediction['source'] = linear ? 'model' : 'none';
  if (prior.size === 0) {
    // No model: the categories whose names speak of the merchant's concept share the mass.
    const named = ctx.categories.filter((c) => conceptsOfCategoryName(c.name).some((k) => lf.concepts.includes(k)));
    for (const c of named) prior.set(c.id, 0.5 / named.length);
    if (named.length > 0) source = 'name';
  }
  const entry = ctx.memory[lf.merchantKey];
  let dist = prior;
  if (entry) {
    const n = Object.entries(entry.counts).filter(([c]) => live.has(c)).reduce((s, [, v]) => s + v, 0);
    if (n > 0) {
      const priorTotal = [...prior.values()].reduce((s, v) => s + v, 0);
      dist = new Map();
      for (const c of live) {
        const q = priorTotal > 0 ? (prior.get(c) ?? 0) / priorTotal : 1 / live.size;
        const v = ((entry.counts[c] ?? 0) + PRIOR_STRENGTH * q) / (n + PRIOR_STRENGTH);
        if (v > 0) dist.set(c, v);
      }
      source = 'memory';
    }
    const rejected = Object.entries(entry.rejected).filter(([c]) => dist.has(c));
    if (rejected.length > 0) {
      const before = [...dist.values()].reduce((s, v) => s + v, 0);
      const next = new Map(dist);
      for (const [c, r] of rejected) next.set(c, (next.get(c) ?? 0) * Math.pow(REJECT_FACTOR, r));
      const after = [...next.values()].reduce((s, v) => s + v, 0);
      dist = new Map([...next].map(([c, v]) => [c, after > 0 ? (v * before) / after : 0]));
    }
  }
  const ranked = [...dist].sort((a, b) => b[1] - a[1]);
  const top = ranked[0];
  if (top === undefined || top[1] <= 0) return { categoryId: null, confidence: 0, source: 'none', merchantKey: lf.merchantKey, alternatives: [] };
  return {
    categoryId: top[0],
    confidence: Math.min(1, Math.max(0, top[1])),
    source,
    merchantKey: lf.merchantKey,
    alternatives: ranked.slice(0, 3).map(([categoryId, probability]) => ({ categoryId, probability: Math.round(probability * 1000) / 1000 })),
  };
}
