/**
 * Fitting of the receipt-field ranker (domain/src/receipts/learned/ranker.ts), offline: the
 * weights by full-batch gradient ascent on the log-probability of the right candidates with an
 * L2 penalty (zero start, fixed steps, fixed order: the same data always gives the same
 * weights), and the Platt calibration of its confidence on cross-validated predictions.
 */
import { logit, score, sigmoid, softmax } from '../../domain/src/receipts/learned/ranker';
import type { Calibration, RawPoint, Weights } from '../../domain/src/receipts/learned/ranker';
import type { Features } from '../../domain/src/receipts/learned/candidates';

/** One receipt's candidates for a field and which of them are right (any of equal value). */
export interface Group {
  features: Features[];
  right: boolean[];
}

export interface TrainOptions {
  l2?: number;
  steps?: number;
  rate?: number;
}

/** Fits the weights; groups without any right candidate teach nothing and are skipped. */
export function trainRanker(groups: readonly Group[], options: TrainOptions = {}): Weights {
  const l2 = options.l2 ?? 0.05;
  const steps = options.steps ?? 400;
  const rate = options.rate ?? 0.5;
  const usable = groups.filter((g) => g.right.some(Boolean) && g.features.length > 0);
  const names = [...new Set(usable.flatMap((g) => g.features.flatMap((f) => Object.keys(f))))].sort();
  const w: Weights = Object.fromEntries(names.map((n) => [n, 0]));
  if (usable.length === 0) return w;
  for (let step = 0; step < steps; step++) {
    const grad: Record<string, number> = Object.fromEntries(names.map((n) => [n, -l2 * w[n]!]));
    for (const g of usable) {
      const p = softmax(g.features.map((f) => score(w, f)));
      const rightMass = g.right.reduce((s, r, i) => s + (r ? p[i]! : 0), 0);
      // d log(sum of right p) / d w = E[f | right] - E[f]
      g.features.forEach((f, i) => {
        const coef = (g.right[i] ? p[i]! / rightMass : 0) - p[i]!;
        if (coef === 0) return;
        for (const k of Object.keys(f)) grad[k]! += (coef * f[k]!) / usable.length;
      });
    }
    for (const n of names) w[n]! += rate * grad[n]!;
  }
  for (const n of names) w[n] = Math.round(w[n]! * 1e4) / 1e4;
  return w;
}

/** Platt scaling on (winner probability, margin, rules' confidence, right?), with a little L2. */
export function fitCalibration(points: ReadonlyArray<RawPoint & { right: boolean }>): Calibration {
  let a = 1;
  let b = 0;
  let c = 0;
  let d = 0;
  let e = 0;
  if (points.length === 0) return { a, b, c, d, e };
  const n = points.length;
  for (let step = 0; step < 3000; step++) {
    let ga = -0.01 * (a - 1);
    let gb = -0.01 * b;
    let gc = 0;
    let gd = -0.01 * d;
    let ge = -0.01 * e;
    for (const pt of points) {
      const x = logit(Math.min(pt.p, 1 - 1e-6));
      const doubt = pt.doubt ?? 0;
      const q = sigmoid(a * x + b * pt.margin + d * pt.rule + e * doubt + c);
      const err = (pt.right ? 1 : 0) - q;
      ga += (err * x) / n;
      gb += (err * pt.margin) / n;
      gc += err / n;
      gd += (err * pt.rule) / n;
      ge += (err * doubt) / n;
    }
    a += 0.5 * ga;
    b += 0.5 * gb;
    c += 0.5 * gc;
    d += 0.5 * gd;
    e += 0.5 * ge;
  }
  const r = (x: number): number => Math.round(x * 1e4) / 1e4;
  return { a: r(a), b: r(b), c: r(c), d: r(d), e: r(e) };
}
