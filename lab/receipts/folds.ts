/**
 * The receipt-field ranker's training examples (receipts-train: each receipt's annotated boxes
 * and, when given, its cached first tesseract.js reading), shared by scripts/train-receipt-model.ts
 * and bench/ocr.ts `--cv`; and the fold models of a merchant-grouped cross-validation, each with
 * the committed model's calibration (fitted on out-of-fold points already), so that the whole
 * reading pipeline can be run on each train receipt with a ranker that never saw its merchant.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { layoutFromBoxesCsv, layoutFromOcr } from '../../domain/src/receipts/learned/layout';
import { LEARNED_FIELDS } from '../../domain/src/receipts/learned/model';
import type { ReceiptModel } from '../../domain/src/receipts/learned/model';
import type { OcrResult } from '../../domain/src/receipts/types';
import { foldsByMerchant, prepare, trainModel } from './train';
import type { Example, ReceiptLabel } from './train';

export type TrainLabel = ReceiptLabel & { id: string };

type Readings = Record<string, Pick<OcrResult, 'text' | 'words'>>;

/** An example's id is the receipt's and its source: annotated boxes, tesseract.js, PP-OCRv5. */
export const SOURCE_SUFFIX = /:(boxes|ocr|ppocr)$/;
/** The OCR readings' examples: those the confident mark is held on (what the model reads at run time). */
export const isOcrExample = (id: string): boolean => id.endsWith(':ocr') || id.endsWith(':ppocr');

/**
 * The annotated boxes of each receipt (`<id>:boxes`), then its tesseract.js reading where there
 * is one (`<id>:ocr`), then its PP-OCRv5 reading (`<id>:ppocr`).
 */
export function trainExamples(dir: string, labels: readonly TrainLabel[], ocr?: Readings, ppocr?: Readings): Example[] {
  const examples: Example[] = labels.map((l) => ({ id: `${l.id}:boxes`, label: l, layout: layoutFromBoxesCsv(readFileSync(join(dir, `${l.id}.boxes.csv`), 'utf8')) }));
  for (const [suffix, readings] of [['ocr', ocr], ['ppocr', ppocr]] as const) {
    if (!readings) continue;
    for (const l of labels) {
      const r = readings[l.id];
      if (r) examples.push({ id: `${l.id}:${suffix}`, label: l, layout: layoutFromOcr(r.text, r.words), text: r.text });
    }
  }
  return examples;
}

/**
 * Trains as the script does (5 merchant-grouped folds, the confident mark held on the OCR readings)
 * and gives each receipt the model of the fold it was held out of.
 */
export function foldModels(dir: string, labels: readonly TrainLabel[], ocr: Readings | undefined, k = 5, ppocr?: Readings): Map<string, ReceiptModel> {
  const examples = trainExamples(dir, labels, ocr, ppocr);
  const prepared = examples.map(prepare);
  const { model, cv } = trainModel(prepared, k, {}, 'fold models', { holdTo: isOcrExample, target: 0.97 });
  const folds = foldsByMerchant(examples, k);
  const out = new Map<string, ReceiptModel>();
  examples.forEach((e, i) => {
    const id = e.id.replace(SOURCE_SUFFIX, '');
    if (out.has(id)) return;
    const weights = cv.models[folds[i]!]!;
    out.set(id, {
      ...weights,
      fields: Object.fromEntries(LEARNED_FIELDS.map((f) => [f, { ...weights.fields[f], calibration: model.fields[f].calibration }])) as ReceiptModel['fields'],
    });
  });
  return out;
}
