/**
 * The tesseract.js preparations measured by bench/ocr-prep.ts (ADR 0019 lists the ones measured
 * and their figures; grey, adaptive, dpi300, cap24, cap36, cap30-otsu and cap30-norm were defined
 * but not read the last time). `base` is the product's first reading, `ink` and `x15` its retry
 * readings (infra/src/ocr/reading.ts FIRST_READING, RETRY_READINGS).
 */
import type { OcrResult } from '../../domain/src/receipts/types';
import type { TesseractParameters } from '../../infra/src/ocr/pool';
import { inPagePixels, readPage } from '../../infra/src/ocr/reading';
import type { OcrReader } from '../../infra/src/ocr/reading';
import { prepareContrast, prepareLabSteps } from './prepare-steps';
import type { LabSteps } from './prepare-steps';

export interface LabPreparation {
  /** A named preparation (the product's `plain` and `ink`, or CLAHE), or steps of prepareLabSteps. */
  image: 'plain' | 'ink' | 'contrast' | LabSteps;
  /** Tesseract settings for this reading only. */
  parameters?: TesseractParameters;
}

export const OCR_PREPARATIONS: Readonly<Record<string, LabPreparation>> = {
  base: { image: 'plain' },
  grey: { image: {} },
  psm4: { image: 'plain', parameters: { tessedit_pageseg_mode: '4' } },
  sauvola: { image: 'plain', parameters: { thresholding_method: '2' } },
  adaptive: { image: 'plain', parameters: { thresholding_method: '1' } },
  dpi300: { image: 'plain', parameters: { user_defined_dpi: '300' } },
  cap24: { image: { capitalPx: 24 } },
  cap30: { image: { capitalPx: 30 } },
  cap36: { image: { capitalPx: 36 } },
  'cap30-otsu': { image: { capitalPx: 30, otsu: true } },
  up22: { image: { capitalPx: 22, maxScale: 2.5, plainUnlessScaled: true } },
  up26: { image: { capitalPx: 26, maxScale: 2.5, plainUnlessScaled: true } },
  ink: { image: 'ink' },
  contrast: { image: 'contrast' },
  x15: { image: { scale: 1.5 } },
  up22m: { image: { capitalPx: 22, maxScale: 2.5, plainUnlessScaled: true, median: 3 } },
  'cap30-norm': { image: { capitalPx: 30, normalise: true } },
};

/**
 * One preparation's reading of a one-page image, word boxes in the page's pixels. The steps are
 * prepared on this thread (the product's pool prepares its own in a thread of its own): a bench
 * reads one receipt at a time, so the time per receipt is the same.
 */
export async function readWithPreparation(image: Uint8Array, ocr: OcrReader, preparation: LabPreparation): Promise<{ ocr: OcrResult; passes: number }> {
  const options = preparation.parameters ? { parameters: preparation.parameters } : undefined;
  if (preparation.image === 'plain' || preparation.image === 'ink') {
    const r = await readPage(image, ocr, { image: preparation.image, ...(preparation.parameters ? { parameters: preparation.parameters } : {}) });
    return { ocr: r.ocr, passes: 1 };
  }
  if (preparation.image === 'contrast') {
    const result = await ocr.recognize(await prepareContrast(image), options);
    return { ocr: { ...result, words: result.words ?? [] }, passes: 1 };
  }
  const prepared = await prepareLabSteps(image, preparation.image);
  return { ocr: inPagePixels(await ocr.recognize(prepared.image, options), prepared).ocr, passes: 1 };
}
