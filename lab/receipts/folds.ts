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

/** The annotated boxes of each receipt (`<id>:boxes`), then its OCR reading where there is one (`<id>:ocr`). */
export function trainExamples(dir: string, labels: readonly TrainLabel[], ocr?: Record<string, Pick<OcrResult, 'text' | 'words'>>): Example[] {
  const examples: Example[] = labels.map((l) => ({ id: `${l.id}:boxes`, label: l, layout: layoutFromBoxesCsv(readFileSync(join(dir, `${l.id}.boxes.csv`), 'utf8')) }));
  if (ocr) {
    for (const l of labels) {
      const r = ocr[l.id];
      if (r) examples.push({ id: `${l.id}:ocr`, label: l, layout: layoutFromOcr(r.text, r.words), text: r.text });
    }
  }
  return examples;
}

/**
 * Trains as the script does (5 merchant-grouped folds, the confident mark held on the OCR readings)
 * and gives each receipt the model of the fold it was held out of.
 */
export function foldModels(dir: string, labels: readonly TrainLabel[], ocr: Record<string, Pick<OcrResult, 'text' | 'words'>>, k = 5): Map<string, ReceiptModel> {
  const examples = trainExamples(dir, labels, ocr);
  const prepared = examples.map(prepare);
  const { model, cv } = trainModel(prepared, k, {}, 'fold models', { holdTo: (id) => id.endsWith(':ocr'), target: 0.97 });
  const folds = foldsByMerchant(examples, k);
  const out = new Map<string, ReceiptModel>();
  examples.forEach((e, i) => {
    const id = e.id.replace(/:(boxes|ocr)$/, '');
    if (out.has(id)) return;
    const weights = cv.models[folds[i]!]!;
    out.set(id, {
      ...weights,
      fields: Object.fromEntries(LEARNED_FIELDS.map((f) => [f, { ...weights.fields[f], calibration: model.fields[f].calibration }])) as ReceiptModel['fields'],
    });
  });
  return out;
}
