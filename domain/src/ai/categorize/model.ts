/**
 * A multinomial logistic regression over sparse features, with one shared weight for "the
 * line's concept is what this category's name says" (a conditional-logit term that lets a
 * company's category named "Fuel & Gas" catch a fuel brand its history never showed).
 * Trained full batch with Adam and L2; serialisable as plain JSON (it travels from a worker).
 */
import { conceptsOfCategoryName, type Concept } from './lexicon';

export interface LinearModel {
  classes: string[];
  vocabulary: string[];
  /** weights[j * classes.length + k]: feature j, class k. */
  weights: number[];
  bias: number[];
  /** Weight of the name-concept agreement term. */
  nameBeta: number;
  /** Concepts each class's name speaks of. */
  classConcepts: Concept[][];
  /** Softmax temperature (calibration) for lines whose merchant general knowledge names; 1 until fitted. */
  temperature: number;
  /** The same for lines it does not name. */
  temperatureUnknown: number;
}

export interface Example {
  features: Map<string, number>;
  concepts: readonly Concept[];
  label: string;
  weight: number;
}

export interface TrainOptions {
  epochs?: number;
  l2?: number;
  learningRate?: number;
}

interface Encoded {
  idx: Int32Array;
  val: Float64Array;
  match: Uint8Array;
  label: number;
  weight: number;
}

function nameMatches(concepts: readonly Concept[], classConcepts: readonly Concept[][]): Uint8Array {
  const m = new Uint8Array(classConcepts.length);
  classConcepts.forEach((cc, k) => {
    m[k] = concepts.some((c) => cc.includes(c)) ? 1 : 0;
  });
  return m;
}

export function trainLinear(examples: readonly Example[], classNames: ReadonlyMap<string, string>, options: TrainOptions = {}): LinearModel {
  // Every category of the company is a class, with or without lines: one its history never
  // used can still be answered through the name term (a fuel brand -> the category named Fuel).
  const classes = [...new Set([...examples.map((e) => e.label), ...classNames.keys()])].sort();
  const K = classes.length;
  const classIndex = new Map(classes.map((c, i) => [c, i]));
  const classConcepts = classes.map((c) => conceptsOfCategoryName(classNames.get(c) ?? ''));
  const vocabIndex = new Map<string, number>();
  const vocabulary: string[] = [];
  const enc: Encoded[] = examples.map((e) => {
    const idx: number[] = [];
    const val: number[] = [];
    for (const [name, v] of e.features) {
      let j = vocabIndex.get(name);
      if (j === undefined) {
        j = vocabulary.length;
        vocabIndex.set(name, j);
        vocabulary.push(name);
      }
      idx.push(j);
      val.push(v);
    }
    return { idx: Int32Array.from(idx), val: Float64Array.from(val), match: nameMatches(e.concepts, classConcepts), label: classIndex.get(e.label) ?? 0, weight: e.weight };
  });
  const V = vocabulary.length;
  const W = new Float64Array(V * K);
  const b = new Float64Array(K);
  let beta = 0;
  const epochs = options.epochs ?? 120;
  const l2 = options.l2 ?? 0.01;
  const lr = options.learningRate ?? 0.1;
  const totalWeight = enc.reduce((s, e) => s + e.weight, 0) || 1;
  // Adam state.
  const mW = new Float64Array(V * K), vW = new Float64Array(V * K);
  const mb = new Float64Array(K), vb = new Float64Array(K);
  let mBeta = 0, vBeta = 0;
  const gW = new Float64Array(V * K), gb = new Float64Array(K);
  const scores = new Float64Array(K);
  const b1 = 0.9, b2 = 0.999, eps = 1e-8;
  // Hot loops: typed-array reads are in bounds by construction (indexes come from the encoding).
  for (let t = 1; t <= epochs && K > 1; t++) {
    gW.fill(0);
    gb.fill(0);
    let gBeta = 0;
    for (const e of enc) {
      const { idx, val, match } = e;
      const nnz = idx.length;
      for (let k = 0; k < K; k++) scores[k] = b[k]! + beta * match[k]!;
      for (let n = 0; n < nnz; n++) {
        const base = idx[n]! * K;
        const x = val[n]!;
        for (let k = 0; k < K; k++) scores[k] = scores[k]! + x * W[base + k]!;
      }
      softmaxInPlace(scores);
      const w = e.weight / totalWeight;
      let expMatch = 0;
      for (let k = 0; k < K; k++) {
        const p = scores[k]!;
        const d = (p - (k === e.label ? 1 : 0)) * w;
        gb[k] = gb[k]! + d;
        expMatch += p * match[k]!;
        if (d === 0) continue;
        for (let n = 0; n < nnz; n++) {
          const j = idx[n]! * K + k;
          gW[j] = gW[j]! + d * val[n]!;
        }
      }
      gBeta += (expMatch - match[e.label]!) * w;
    }
    const c1 = 1 - Math.pow(b1, t), c2 = 1 - Math.pow(b2, t);
    const size = V * K;
    for (let j = 0; j < size; j++) {
      const g = gW[j]! + l2 * W[j]!;
      const m = (mW[j] = b1 * mW[j]! + (1 - b1) * g);
      const v = (vW[j] = b2 * vW[j]! + (1 - b2) * g * g);
      W[j] = W[j]! - (lr * (m / c1)) / (Math.sqrt(v / c2) + eps);
    }
    for (let k = 0; k < K; k++) {
      const g = gb[k]! + l2 * b[k]!;
      const m = (mb[k] = b1 * mb[k]! + (1 - b1) * g);
      const v = (vb[k] = b2 * vb[k]! + (1 - b2) * g * g);
      b[k] = b[k]! - (lr * (m / c1)) / (Math.sqrt(v / c2) + eps);
    }
    mBeta = b1 * mBeta + (1 - b1) * gBeta;
    vBeta = b2 * vBeta + (1 - b2) * gBeta * gBeta;
    beta -= (lr * (mBeta / c1)) / (Math.sqrt(vBeta / c2) + eps);
  }
  return { classes, vocabulary, weights: Array.from(W), bias: Array.from(b), nameBeta: beta, classConcepts, temperature: 1, temperatureUnknown: 1 };
}

function softmaxInPlace(s: Float64Array): void {
  let max = -Infinity;
  for (let k = 0; k < s.length; k++) if (s[k]! > max) max = s[k]!;
  let sum = 0;
  for (let k = 0; k < s.length; k++) {
    const e = Math.exp(s[k]! - max);
    s[k] = e;
    sum += e;
  }
  for (let k = 0; k < s.length; k++) s[k] = s[k]! / sum;
}

/** A compiled model: the vocabulary as a map, kept beside the JSON form. */
export interface ScoringModel {
  model: LinearModel;
  index: Map<string, number>;
}

export function compile(model: LinearModel): ScoringModel {
  return { model, index: new Map(model.vocabulary.map((v, i) => [v, i])) };
}

/** Raw class scores (logits) of a line. */
export function logits(sm: ScoringModel, features: ReadonlyMap<string, number>, concepts: readonly Concept[]): Float64Array {
  const { model } = sm;
  const K = model.classes.length;
  const s = new Float64Array(K);
  const match = nameMatches(concepts, model.classConcepts);
  for (let k = 0; k < K; k++) s[k] = (model.bias[k] ?? 0) + model.nameBeta * (match[k] ?? 0);
  for (const [name, x] of features) {
    const j = sm.index.get(name);
    if (j === undefined) continue;
    for (let k = 0; k < K; k++) s[k] = (s[k] ?? 0) + x * (model.weights[j * K + k] ?? 0);
  }
  return s;
}

/** Probabilities at a temperature. */
export function probabilities(scores: Float64Array, temperature: number): Float64Array {
  const s = scores.map((v) => v / temperature);
  softmaxInPlace(s);
  return s;
}
