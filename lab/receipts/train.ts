/**
 * Training and merchant-grouped cross-validation of the learned extractor
 * (domain/src/receipts/learned/), pure: the caller (scripts/train-receipt-model.ts, the benches,
 * the tests) reads the receipts and passes them in.
 *
 * Folds group receipts by merchant (names that `merchantSimilarity` calls the same shop share
 * a group), so no merchant is in both the training and the testing side of a fold: the figure
 * says how the model does on shops it has never seen. The calibration is fitted on the
 * out-of-fold predictions, the weights on everything.
 */
import { extractRuleFields } from '../../domain/src/receipts/rules';
import { merchantSimilarity, normaliseMerchant } from '../../domain/src/receipts/merchant-similarity';
import type { ExtractOptions } from '../../domain/src/receipts/types';
import { buildCandidates, dateOrder, dateOrderHint } from '../../domain/src/receipts/learned/candidates';
import type { Candidate, Candidates } from '../../domain/src/receipts/learned/candidates';
import type { Layout } from '../../domain/src/receipts/learned/layout';
import { combineFields, CONFIDENT_AT, FIELD_POLICY, LEARNED_FIELDS, pickFields, rawPick } from '../../domain/src/receipts/learned/model';
import type { FieldPolicy, LearnedField, LearnedFields, ReceiptModel } from '../../domain/src/receipts/learned/model';
import { confidence as platt } from '../../domain/src/receipts/learned/ranker';
import type { Calibration, RawPoint } from '../../domain/src/receipts/learned/ranker';
import { fitCalibration, trainRanker } from './fit';
import type { Group, TrainOptions } from './fit';

export interface ReceiptLabel {
  merchant: string;
  /** ISO date. */
  date: string;
  /** Total in currency units (e.g. 26.6). */
  total: number;
}

export interface Example {
  id: string;
  label: ReceiptLabel;
  layout: Layout;
  /** The flat text the rules read (OCR text); default the layout's lines. */
  text?: string;
  options?: ExtractOptions;
  /** A simulated reading (augment.ts): trained on, never tested or calibrated on. */
  trainOnly?: boolean;
  /** The fields the example trains (default all): a simulated total slip teaches the total only. */
  fields?: readonly LearnedField[];
}

export interface Prepared {
  example: Example;
  candidates: Candidates;
  /** The rule-based reading of the same text, for comparison. */
  rules: LearnedFields;
}

export const MERCHANT_MATCH = 0.8;

export function isRight(field: LearnedField, label: ReceiptLabel, value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (field === 'total') return Math.abs((value as number) - Math.round(label.total * 100)) <= 1;
  if (field === 'date') return value === label.date;
  return merchantSimilarity(value as string, label.merchant) >= MERCHANT_MATCH;
}

/** Candidates and the rules' reading, computed once per receipt. */
export function prepare(example: Example): Prepared {
  const text = example.text ?? example.layout.lines.map((l) => l.text).join('\n');
  // As extractReceiptFields does: the receipt's date order decided once for both readers.
  const options = { ...example.options, monthFirst: dateOrder(example.layout.lines, dateOrderHint(example.options ?? {})) === 'month-first' };
  const rules = extractRuleFields(text, undefined, options);
  return {
    example,
    candidates: buildCandidates(example.layout, rules, options),
    rules: {
      total: rules.total ? { value: rules.total.cents, confidence: rules.total.confidence, line: -1 } : null,
      date: rules.date ? { value: rules.date.value, confidence: rules.date.confidence, line: -1 } : null,
      merchant: rules.merchant ? { value: rules.merchant.value, confidence: rules.merchant.confidence, line: -1 } : null,
    },
  };
}

function groupOf(field: LearnedField, p: Prepared): Group {
  const list = p.candidates[field] as ReadonlyArray<Candidate<unknown>>;
  return { features: list.map((c) => c.features), right: list.map((c) => isRight(field, p.example.label, c.value)) };
}

export function valueOf(field: LearnedField, f: LearnedFields): unknown {
  if (field === 'total') return f.total?.value ?? null;
  if (field === 'date') return f.date?.value ?? null;
  return f.merchant?.value ?? null;
}

function confidenceOf(field: LearnedField, f: LearnedFields): number {
  return f[field]?.confidence ?? 0;
}

/** Fits weights for every field (calibration left neutral). */
export function fitWeights(prepared: readonly Prepared[], options: TrainOptions = {}, trainedOn = ''): ReceiptModel {
  const fields = Object.fromEntries(LEARNED_FIELDS.map((field) => [field, {
    weights: trainRanker(prepared.filter((p) => p.example.fields?.includes(field) ?? true).map((p) => groupOf(field, p)), options),
    calibration: { a: 1, b: 0, c: 0 },
  }])) as ReceiptModel['fields'];
  return { version: 1, trainedOn, fields };
}

/** Merchant groups: receipts whose merchants read as the same shop share a key. */
export function merchantGroups(examples: readonly Example[]): string[] {
  const keys: string[] = [];
  const seen: string[] = [];
  for (const e of examples) {
    const found = seen.find((s) => merchantSimilarity(s, e.label.merchant) >= MERCHANT_MATCH);
    const key = found ?? e.label.merchant;
    if (!found) seen.push(e.label.merchant);
    keys.push(normaliseMerchant(key));
  }
  return keys;
}

/** Fold of each receipt: merchant groups sorted by name and dealt round-robin. */
export function foldsByMerchant(examples: readonly Example[], k: number): number[] {
  const keys = merchantGroups(examples);
  const order = [...new Set(keys)].sort();
  return keys.map((key) => order.indexOf(key) % k);
}

export interface FieldReport {
  right: number;
  rulesRight: number;
  confident: number;
  confidentRight: number;
}

export interface CvReport {
  n: number;
  folds: number;
  fields: Record<LearnedField, FieldReport>;
  /** Out-of-fold predictions, per receipt, with the fields' raw probability and margin. */
  oof: Array<{ id: string; fold: number; fields: LearnedFields; points: Record<LearnedField, (RawPoint & { right: boolean }) | null> }>;
  /** The weights each fold was ranked with (index = fold), for error analysis. */
  models: ReceiptModel[];
}

function emptyReport(): Record<LearnedField, FieldReport> {
  return {
    total: { right: 0, rulesRight: 0, confident: 0, confidentRight: 0 },
    date: { right: 0, rulesRight: 0, confident: 0, confidentRight: 0 },
    merchant: { right: 0, rulesRight: 0, confident: 0, confidentRight: 0 },
  };
}

/**
 * Merchant-grouped k-fold cross-validation: each fold's receipts are ranked by weights fitted
 * on the other folds. Confidence counts use the calibration fitted on all out-of-fold points
 * (the calibration has three numbers; its own optimism is small next to the weights').
 */
export function crossValidate(prepared: readonly Prepared[], k = 5, options: TrainOptions = {}): CvReport {
  const folds = foldsByMerchant(prepared.map((p) => p.example), k);
  const oof: CvReport['oof'] = [];
  const models: ReceiptModel[] = [];
  for (let fold = 0; fold < k; fold++) {
    const train = prepared.filter((_, i) => folds[i] !== fold);
    const test = prepared.filter((p, i) => folds[i] === fold && !p.example.trainOnly);
    const model = fitWeights(train, options);
    models.push(model);
    if (test.length === 0) continue;
    for (const p of test) {
      const fields = pickFields(model, p.candidates);
      const points = Object.fromEntries(LEARNED_FIELDS.map((field) => {
        const r = rawPick(model, field, p.candidates)?.point ?? null;
        return [field, r ? { ...r, right: isRight(field, p.example.label, valueOf(field, fields)) } : null];
      })) as CvReport['oof'][number]['points'];
      oof.push({ id: p.example.id, fold, fields, points });
    }
  }
  return { n: prepared.length, folds: k, fields: emptyReport(), oof, models };
}

/** How the confidence is fitted: which out-of-fold receipts must meet the confident share, and the share. */
export interface CalibrateOptions {
  /** Receipts whose out-of-fold fields must be right at least `target` of the time when marked confident (default all). */
  holdTo?: (id: string) => boolean;
  /** Default 0.97, the product's mark. */
  target?: number;
}

/**
 * Lowers a field's calibration intercept in steps of 0.1 until the out-of-fold points that
 * `holdTo` selects and that it marks confident are right at least `target` of the time, keeping
 * as many marked as possible. Platt scaling is right on average; the confident mark sits in its
 * tail, where a few receipts decide, so the tail is held to the target on what the model will
 * see. When no shift reaches the target with any point still marked (wrong readings the model
 * is as sure of as of right ones: a year OCR misread everywhere on the receipt), the fitted
 * calibration stays: marking nothing would only hide that.
 */
export function tightenCalibration(cal: Calibration, points: ReadonlyArray<RawPoint & { right: boolean }>, target: number): Calibration {
  for (let step = 0; step <= 60; step++) {
    const out = { ...cal, c: Math.round((cal.c - 0.1 * step) * 1e4) / 1e4 };
    const marked = points.filter((pt) => Math.round(platt(out, pt) * 100) / 100 >= CONFIDENT_AT);
    if (marked.length === 0) break;
    if (marked.filter((pt) => pt.right).length >= target * marked.length) return out;
  }
  return { ...cal };
}

/** Trains the committed model: calibration from cross-validation, weights from all receipts. */
export function trainModel(prepared: readonly Prepared[], k = 5, options: TrainOptions = {}, trainedOn = '', calibrate: CalibrateOptions = {}): { model: ReceiptModel; cv: CvReport } {
  const cv = crossValidate(prepared, k, options);
  const model = fitWeights(prepared, options, trainedOn);
  const holdTo = calibrate.holdTo ?? (() => true);
  for (const field of LEARNED_FIELDS) {
    const points = cv.oof.flatMap((o) => (o.points[field] ? [o.points[field]] : []));
    const held = cv.oof.filter((o) => holdTo(o.id)).flatMap((o) => (o.points[field] ? [o.points[field]] : []));
    model.fields[field].calibration = tightenCalibration(fitCalibration(points), held, calibrate.target ?? 0.97);
  }
  // Report with the fitted calibration applied to the out-of-fold points.
  const report = emptyReport();
  const byId = new Map(prepared.map((p) => [p.example.id, p]));
  for (const o of cv.oof) {
    const p = byId.get(o.id)!;
    for (const field of LEARNED_FIELDS) {
      const r = report[field];
      const right = isRight(field, p.example.label, valueOf(field, o.fields));
      if (right) r.right++;
      if (isRight(field, p.example.label, valueOf(field, p.rules))) r.rulesRight++;
      const pt = o.points[field];
      if (pt) {
        const conf = Math.round(platt(model.fields[field].calibration, pt) * 100) / 100;
        o.fields[field]!.confidence = conf;
        if (conf >= CONFIDENT_AT) {
          r.confident++;
          if (right) r.confidentRight++;
        }
      }
    }
  }
  cv.fields = report;
  return { model, cv };
}

/** Accuracy and confidence counts of a model on prepared receipts (e.g. dev from OCR). */
export function evaluate(model: ReceiptModel, prepared: readonly Prepared[]): Record<LearnedField, FieldReport> {
  const report = emptyReport();
  for (const p of prepared) {
    const fields = pickFields(model, p.candidates);
    for (const field of LEARNED_FIELDS) {
      const r = report[field];
      const right = isRight(field, p.example.label, valueOf(field, fields));
      if (right) r.right++;
      if (isRight(field, p.example.label, valueOf(field, p.rules))) r.rulesRight++;
      if (confidenceOf(field, fields) >= CONFIDENT_AT) {
        r.confident++;
        if (right) r.confidentRight++;
      }
    }
  }
  return report;
}

export interface PolicyRow {
  n: number;
  /** Right answers per policy, and of the rules alone (no fallback to the ranker when they find nothing). */
  right: Record<FieldPolicy | 'rulesAlone', number>;
  /** With the policy in FIELD_POLICY: fields marked confident, and how many of them are right. */
  confident: number;
  confidentRight: number;
}

/** Accuracy of each policy per field, and the confident share of the wired policy. */
export function policyReport(rows: ReadonlyArray<{ label: ReceiptLabel; learned: LearnedFields; rules: LearnedFields }>): Record<LearnedField, PolicyRow> {
  const out = {} as Record<LearnedField, PolicyRow>;
  for (const field of LEARNED_FIELDS) {
    const row: PolicyRow = { n: rows.length, right: { learned: 0, rules: 0, fallback: 0, rulesAlone: 0 }, confident: 0, confidentRight: 0 };
    for (const r of rows) {
      if (isRight(field, r.label, valueOf(field, r.rules))) row.right.rulesAlone++;
      for (const policy of ['learned', 'rules', 'fallback'] as const) {
        const picked = combineFields(r.learned, r.rules, { total: policy, date: policy, merchant: policy });
        const right = isRight(field, r.label, valueOf(field, picked));
        if (right) row.right[policy]++;
        if (policy === FIELD_POLICY[field] && (picked[field]?.confidence ?? 0) >= CONFIDENT_AT) {
          row.confident++;
          if (right) row.confidentRight++;
        }
      }
    }
    out[field] = row;
  }
  return out;
}
