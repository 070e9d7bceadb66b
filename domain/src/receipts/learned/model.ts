/**
 * The learned extractor: candidates with features (candidates.ts), ranked by per-field
 * weights, with a calibrated confidence per field. The weights and calibration live in
 * weights.json, written by `node --import tsx scripts/train-receipt-model.ts`.
 */
import type { ReceiptFields } from '../types';
import { buildCandidates } from './candidates';
import type { Candidate, Candidates } from './candidates';
import type { Layout } from './layout';
import { confidence, rank } from './ranker';
import type { Calibration, RawPoint, Ranked, Weights } from './ranker';

/**
 * A field whose calibrated confidence is at least this is marked confident: on cross-validated
 * train receipts (boxes and OCR) such fields were right at least 97 % of the time (see the
 * training script's report). Below it, a person should check the field first.
 */
export const CONFIDENT_AT = 0.95;

export type LearnedField = 'total' | 'date' | 'merchant';
export const LEARNED_FIELDS: readonly LearnedField[] = ['total', 'date', 'merchant'];

export interface FieldModel {
  weights: Weights;
  calibration: Calibration;
}

export interface ReceiptModel {
  version: 1;
  /** What it was trained on, for the record. */
  trainedOn: string;
  fields: Record<LearnedField, FieldModel>;
}

/** Total in cents, ISO date, merchant name; `line` is the layout line read (-1 when unknown). */
export interface LearnedFields {
  total: Picked<number> | null;
  date: Picked<string> | null;
  merchant: Picked<string> | null;
}

export interface LearnedOptions {
  monthFirst?: boolean;
  locale?: string;
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

/**
 * Which reading each field takes in `extractReceiptFields`, chosen by measurement (the training
 * script prints all three on cross-validation and dev): 'learned' the ranker's pick, 'rules'
 * the rule-based pick, 'fallback' the ranker's pick when it is confident, else the rules'.
 */
export type FieldPolicy = 'learned' | 'rules' | 'fallback';

/** The policy `extractReceiptFields` uses per field (see the training script's figures). */
export const FIELD_POLICY: Record<LearnedField, FieldPolicy> = { total: 'fallback', date: 'fallback', merchant: 'fallback' };

export interface Picked<T> {
  value: T;
  confidence: number;
  line: number;
}

/** One field by policy; the confidence is the calibrated one when the ranker agrees or is used. */
export function combineField<T>(policy: FieldPolicy, learned: Picked<T> | null, rules: Picked<T> | null, same: (a: T, b: T) => boolean,
  prefer: (learned: T, rules: T) => boolean = () => false): Picked<T> | null {
  if (policy === 'learned') return learned ?? rules;
  if (policy === 'fallback' && learned && learned.confidence >= CONFIDENT_AT) return learned;
  if (!rules) return learned;
  // Where `prefer` says the ranker's reading is the better kind (a registered name over a plain
  // line): the ranker's, still marked doubtful since the two readers differ.
  if (policy === 'fallback' && learned && prefer(learned.value, rules.value)) {
    return { ...learned, confidence: Math.min(learned.confidence, CONFIDENT_AT - 0.01) };
  }
  // The rules' value: calibrated confidence when the ranker picked the same, else at most
  // just under the confident mark (the two readers disagree, so a person should look).
  if (learned && same(learned.value, rules.value)) return { ...rules, confidence: learned.confidence, line: learned.line };
  return { ...rules, confidence: Math.min(rules.confidence, learned ? Math.min(CONFIDENT_AT - 0.01, 1 - learned.confidence) : CONFIDENT_AT - 0.01) };
}

/** All three fields by policy. */
export function combineFields(learned: LearnedFields, rules: LearnedFields, policy: Record<LearnedField, FieldPolicy> = FIELD_POLICY): LearnedFields {
  return {
    total: combineField(policy.total, learned.total, rules.total, (a, b) => Math.abs(a - b) <= 1),
    date: combineField(policy.date, learned.date, rules.date, (a, b) => a === b),
    merchant: combineField(policy.merchant, learned.merchant, rules.merchant, (a, b) => a.toUpperCase() === b.toUpperCase(), legalOverPlain),
  };
}

const LEGAL_END = /\b(SDN\.?\s?BHD|BHD|BERHAD|S\/B|PTE\.?\s?LTD|LTD|LIMITED|LLC|LLP|INC|CORP(ORATION)?|GMBH|PLC|PTY)\.?$/;

/**
 * The ranker's merchant is taken over the rules' when it is a registered name (ending in its
 * legal suffix) and the rules' is not: the rules cut a name wrapped over three lines short
 * ("AIK HUAT HARDWARE ENTERPRISE (SETIA" for "… (SETIA ALAM) SDN BHD") or took a handwritten
 * or stamped line above the printed name. Measured on merchant-grouped cross-validation on
 * train (ADR 0026, "ranking gap"): one receipt more on OCR text and one on annotated text,
 * none lost.
 */
export function legalOverPlain(learned: string, rules: string): boolean {
  const norm = (s: string): string => s.toUpperCase().replace(/\s+/g, ' ').trim();
  const [l, r] = [norm(learned), norm(rules)];
  return r.length >= 3 && LEGAL_END.test(l) && !LEGAL_END.test(r);
}

/** The winner of a field before calibration, as calibration sees it. */
export function rawPick<T>(model: ReceiptModel, field: LearnedField, candidates: Candidates): { ranked: Ranked<T>; point: RawPoint } | null {
  const list = candidates[field] as unknown as ReadonlyArray<Candidate<T>>;
  const ranked = rank(model.fields[field].weights, list, (v) => String(v).toUpperCase());
  if (!ranked) return null;
  const rule = ranked.candidate.features.rule === 1 ? candidates.ruleConfidence[field] : 0;
  return { ranked, point: { p: ranked.p, margin: ranked.margin, rule, doubt: ranked.candidate.features.ocrDoubt ?? 0 } };
}

/** Ranks prepared candidates (tests and the training script reuse the same candidates). */
export function pickFields(model: ReceiptModel, candidates: Candidates): LearnedFields {
  const one = <T>(field: LearnedField): Picked<T> | null => {
    const r = rawPick<T>(model, field, candidates);
    if (!r) return null;
    return { value: r.ranked.value, confidence: round2(confidence(model.fields[field].calibration, r.point)), line: r.ranked.candidate.line };
  };
  return { total: one<number>('total'), date: one<string>('date'), merchant: one<string>('merchant') };
}

/** Fields of one receipt; `rules` are the rule-based reading of the same text (a feature). */
export function extractLearned(model: ReceiptModel, layout: Layout, rules: ReceiptFields | null, options: LearnedOptions = {}): LearnedFields {
  return pickFields(model, buildCandidates(layout, rules, options));
}
