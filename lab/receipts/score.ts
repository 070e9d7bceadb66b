/**
 * How an OCR reading of a receipt is scored against the data sets, shared by the OCR benches
 * (bench/ocr-engines.ts, bench/ocr-prep.ts, bench/line-*.ts) and scripts/digit-confusions.ts:
 *
 *   - text (receipts-train, which has annotated lines): character error rate of the page, OCR
 *     lines against the annotated lines of `<id>.boxes.csv`, both grouped into visual lines the
 *     same way (learned/layout.ts groupSegments) and joined with newlines; NFKC, spaces
 *     collapsed, case ignored (the SROIE transcripts are upper case whatever the print); and
 *     the share of annotated lines found verbatim.
 *   - fields: the product's extractor (extractReceiptFields) on the reading, judged like
 *     bench/ocr.ts (total within 0.01, exact date, merchant similarity >= 0.8).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBankStatement } from '../../domain/src/csv/index';
import { extractReceiptFields, merchantSimilarity } from '../../domain/src/receipts/index';
import type { DatePeriod } from '../../domain/src/receipts/index';
import { groupSegments, layoutFromBoxesCsv } from '../../domain/src/receipts/learned/layout';
import type { Segment } from '../../domain/src/receipts/learned/layout';
import type { OcrBox, OcrResult } from '../../domain/src/receipts/types';
import { SHARED_DATA } from './paths';

export const DATA = {
  train: join(SHARED_DATA, 'receipts-train'),
  dev: join(SHARED_DATA, 'receipts-dev'),
};
export type SetName = keyof typeof DATA;
const BANK_CSV = join(SHARED_DATA, 'bank-csv');

/**
 * The company's period for a set of receipts, as the product takes it (the first and last posting
 * day of the company's card lines): the statements in bank-csv whose truth file names any of these
 * receipts (the card lines that belong to them, with the other lines mixed in). Undefined when no
 * statement names them. Only the statements' dates are used, never the receipts' labels.
 */
export function statementPeriod(ids: readonly string[]): DatePeriod | undefined {
  if (!existsSync(BANK_CSV)) return undefined;
  const wanted = new Set(ids);
  const days: string[] = [];
  for (const f of readdirSync(BANK_CSV).filter((n) => n.endsWith('.truth.json')).sort()) {
    const truth = JSON.parse(readFileSync(join(BANK_CSV, f), 'utf8')) as { receipt_to_transaction?: Record<string, unknown> };
    if (!Object.keys(truth.receipt_to_transaction ?? {}).some((id) => wanted.has(id))) continue;
    const csv = join(BANK_CSV, f.replace(/\.truth\.json$/, '.csv'));
    if (existsSync(csv)) for (const r of parseBankStatement(readFileSync(csv)).rows) days.push(r.date);
  }
  days.sort();
  return days.length > 0 ? { from: days[0]!, to: days[days.length - 1]! } : undefined;
}
export const MERCHANT_THRESHOLD = 0.8;

export interface Label {
  id: string;
  merchant: string;
  date: string;
  total: number;
}

export interface TextScore {
  cer: number;
  linesFound: number;
}

export interface FieldsRight {
  total: boolean;
  date: boolean;
  merchant: boolean;
}

/** Receipt ids of a set, in id order. */
export function receiptIds(set: SetName): string[] {
  return readdirSync(DATA[set]).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
}

export function label(set: SetName, id: string): Label {
  return JSON.parse(readFileSync(join(DATA[set], `${id}.json`), 'utf8')) as Label;
}

export function normalise(text: string): string {
  return text.normalize('NFKC').split('\n').map((l) => l.replace(/\s+/g, ' ').trim()).filter(Boolean).join('\n');
}

export function levenshtein(a: string, b: string): number {
  let prev = new Int32Array(b.length + 1).map((_, j) => j);
  let cur = new Int32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ca === b.charCodeAt(j - 1) ? 0 : 1));
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/** OCR lines grouped into visual lines like annotated boxes are (words or lines with boxes). */
export function ocrLines(ocr: OcrResult): string[] {
  const words = ocr.words ?? [];
  if (words.length > 0 && words.every((w) => w.bbox)) {
    return groupSegments(words.map((w) => ({ text: w.text, ...w.bbox! }))).map((l) => l.text);
  }
  return ocr.text.split('\n');
}

/** Character error rate and verbatim lines of a train receipt's reading; null without annotated lines. */
export function textScore(id: string, ocr: OcrResult): TextScore | null {
  const boxes = join(DATA.train, `${id}.boxes.csv`);
  if (!existsSync(boxes)) return null;
  const truth = normalise(layoutFromBoxesCsv(readFileSync(boxes, 'utf8')).lines.map((l) => l.text).join('\n'));
  const read = normalise(ocrLines(ocr).join('\n'));
  const readLines = new Set(read.toUpperCase().split('\n'));
  const truthLines = truth.toUpperCase().split('\n');
  return {
    cer: levenshtein(read.toUpperCase(), truth.toUpperCase()) / Math.max(1, truth.length),
    linesFound: truthLines.filter((l) => readLines.has(l)).length / Math.max(1, truthLines.length),
  };
}

export function judgeFields(l: Label, f: ReturnType<typeof extractReceiptFields>): FieldsRight {
  return {
    total: f.total !== null && Math.abs(f.total.cents - Math.round(l.total * 100)) <= 1,
    date: f.date?.value === l.date,
    merchant: f.merchant !== null && merchantSimilarity(f.merchant.value, l.merchant) >= MERCHANT_THRESHOLD,
  };
}

/** The product's extractor (today's weights) on one reading, judged against the labels. */
export function fieldsRight(set: SetName, id: string, ocr: OcrResult): FieldsRight {
  return judgeFields(label(set, id), extractReceiptFields(ocr.text, ocr.words));
}

export const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
export const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN);

/** The annotated text boxes of a train receipt (`<id>.boxes.csv`), each as its bounding box. */
export function annotatedSegments(set: SetName, id: string): Segment[] {
  const segments: Segment[] = [];
  for (const raw of readFileSync(join(DATA[set], `${id}.boxes.csv`), 'utf8').split(/\r?\n/)) {
    const m = /^(\d+),(\d+),(\d+),(\d+),(\d+),(\d+),(\d+),(\d+),(.*)$/.exec(raw.trim());
    if (!m) continue;
    const xs = [m[1], m[3], m[5], m[7]].map(Number);
    const ys = [m[2], m[4], m[6], m[8]].map(Number);
    segments.push({ text: m[9]!, x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) });
  }
  return segments;
}

/** The annotated text of a line's band: segments whose centre lies on the box, between x0 and x1, as lines. */
export function annotatedTextOn(segments: readonly Segment[], box: OcrBox, x0: number, x1: number): string {
  const on = segments.filter((s) => {
    const cy = (s.y0 + s.y1) / 2;
    const cx = (s.x0 + s.x1) / 2;
    return cy >= box.y0 && cy <= box.y1 && cx >= x0 && cx <= x1;
  });
  return groupSegments(on).map((l) => l.text).join(' ');
}
