/**
 * A small ranker of our own: a linear score per candidate (weights over named features) and a
 * softmax over a receipt's candidates, i.e. a conditional logit model. The weights are fitted
 * offline (lab/receipts/fit.ts: full-batch gradient ascent on the log-probability of the right
 * candidates with an L2 penalty, deterministic) and committed in weights.json.
 *
 * Confidence is calibrated apart from the ranking (Platt scaling): a logistic curve over the
 * winner's softmax probability and its margin over the runner-up, fitted on cross-validated
 * predictions, so that a confidence of 0.9 is right about 9 times in 10.
 */
import type { Candidate, Features } from './candidates';

export type Weights = Record<string, number>;

export interface Calibration {
  /** confidence = sigmoid(a * logit(p) + b * margin + d * ruleConfidence + e * ocrDoubt + c) */
  a: number;
  b: number;
  c: number;
  d?: number;
  e?: number;
}

/**
 * What calibration looks at: the winner's probability, its margin, the rules' own confidence
 * when they chose the same value (else 0), and OCR's doubt about the winner's line (0..1; 0
 * for annotated or plain text).
 */
export interface RawPoint {
  p: number;
  margin: number;
  rule: number;
  doubt?: number;
}

export function score(weights: Weights, f: Features): number {
  let s = 0;
  for (const k of Object.keys(f)) s += (weights[k] ?? 0) * f[k]!;
  return s;
}

export function softmax(xs: readonly number[]): number[] {
  const m = Math.max(...xs);
  const e = xs.map((x) => Math.exp(x - m));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / z);
}

export interface Ranked<T> {
  value: T;
  candidate: Candidate<T>;
  /** Softmax probability mass of all candidates with this value. */
  p: number;
  /** p minus the next value's p. */
  margin: number;
}

/** The best value: candidates of equal value pool their probability. */
export function rank<T>(weights: Weights, candidates: ReadonlyArray<Candidate<T>>, key: (v: T) => string = String): Ranked<T> | null {
  if (candidates.length === 0) return null;
  const p = softmax(candidates.map((c) => score(weights, c.features)));
  const byValue = new Map<string, { p: number; best: number }>();
  candidates.forEach((c, i) => {
    const k = key(c.value);
    const e = byValue.get(k);
    if (!e) byValue.set(k, { p: p[i]!, best: i });
    else {
      e.p += p[i]!;
      if (p[i]! > p[e.best]!) e.best = i;
    }
  });
  const sorted = [...byValue.values()].sort((a, b) => b.p - a.p || a.best - b.best);
  const top = sorted[0]!;
  const candidate = candidates[top.best]!;
  return { value: candidate.value, candidate, p: top.p, margin: top.p - (sorted[1]?.p ?? 0) };
}

export const logit = (p: number): number => Math.log(Math.max(1e-6, p) / Math.max(1e-6, 1 - p));
export const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

export function confidence(cal: Calibration, pt: RawPoint): number {
  return sigmoid(cal.a * logit(Math.min(pt.p, 1 - 1e-6)) + cal.b * pt.margin + (cal.d ?? 0) * pt.rule + (cal.e ?? 0) * (pt.doubt ?? 0) + cal.c);
}
