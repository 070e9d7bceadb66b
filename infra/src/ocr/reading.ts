/**
 * One OCR reading of one page image with a given preparation: the image prepared (preprocess.ts),
 * read by the engine with the preparation's tesseract settings, and the words' boxes mapped back
 * to the pixels of the page as it was uploaded (after EXIF rotation), so that positions and
 * heights mean the same whatever scaling the preparation chose.
 */
import type { OcrEngine, OcrResult, OcrWord, ReceiptFields } from '@paperlink/domain';
import type { RecognizeOptions, TesseractParameters } from './pool';
import { prepareImage, prepareSteps } from './preprocess';
import type { OcrVariant, Prepared, PrepSteps } from './preprocess';

/**
 * An engine that may take per-reading settings (the tesseract pool does; others ignore them)
 * and may prepare images off the calling thread (the pool does; otherwise they are prepared
 * here, which is for tools and tests: the pixel loops take 50-150 ms a page).
 */
export interface OcrReader extends OcrEngine {
  recognize(image: Uint8Array, options?: RecognizeOptions): Promise<OcrResult>;
  prepare?(image: Uint8Array, steps: PrepSteps): Promise<Prepared>;
}

export interface OcrPreparation {
  /** A named preparation of preprocess.ts, or steps of prepareSteps. */
  image: OcrVariant | PrepSteps;
  /** Tesseract settings for this reading only. */
  parameters?: TesseractParameters;
}

export interface PageReading {
  ocr: OcrResult & { words: OcrWord[] };
  /** Size of the page in the pixels the boxes are given in. */
  size?: { width: number; height: number };
  /** The page image as read, when the boxes are in its pixels (named preparations): for re-reading its lines. */
  image?: Uint8Array;
}

/**
 * Preparations for bench/ocr-prep.ts (ADR 0019 lists the ones measured and their figures; grey,
 * adaptive, dpi300, cap24, cap36, cap30-otsu and cap30-norm were defined but not read this
 * time). `base` is the product's first reading.
 */
export const OCR_PREPARATIONS: Readonly<Record<string, OcrPreparation>> = {
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

/** The image could not be decoded for preparation (as opposed to the engine failing to read it). */
export class PreparationError extends Error {}

const preparing = <T>(work: Promise<T>): Promise<T> => work.catch((error: unknown) => {
  throw new PreparationError(error instanceof Error ? error.message : String(error));
});

/**
 * One reading of one page. `reencode`: the page decoded and re-encoded by sharp, plain (for a
 * JPEG whose damaged scan data tesseract's decoder refuses).
 */
/** The first reading of every page (chosen on receipts-train, ADR 0019). */
export const FIRST_READING: OcrPreparation = { image: 'plain' };
/**
 * The readings voted with the first when it is doubtful (combine.ts): `ink` (blur and a high
 * threshold: joins dot-matrix dots, darkens faded thermal print; it reads the two faded train
 * receipts tesseract otherwise reads nothing of) and the page scaled by 1.5 in greyscale (other
 * character shapes for the LSTM: different slips). On receipts-train they fix
 * as many fields as `ink` + `contrast` (CLAHE), the earlier pair, within one receipt, and its
 * reading took about two thirds of CLAHE's time on the same receipts (ADR 0019).
 */
export const RETRY_READINGS: readonly OcrPreparation[] = [{ image: 'ink' }, { image: { scale: 1.5 } }];

export async function readPage(image: Uint8Array, ocr: OcrReader, preparation: OcrPreparation, reencode = false): Promise<PageReading> {
  const options = preparation.parameters ? { parameters: preparation.parameters } : undefined;
  if (typeof preparation.image === 'string' || reencode) {
    const prepared = await preparing(prepareImage(image, typeof preparation.image === 'string' ? preparation.image : 'plain', reencode));
    const result = await ocr.recognize(prepared, options);
    const size = await sizeOf(prepared);
    return { ocr: { ...result, words: result.words ?? [] }, ...(size ? { size } : {}), image: prepared };
  }
  const prepared = await preparing(ocr.prepare ? ocr.prepare(image, preparation.image) : prepareSteps(image, preparation.image));
  const result = await ocr.recognize(prepared.image, options);
  const s = prepared.scale;
  const words = (result.words ?? []).map((w) => (w.bbox && s !== 1
    ? { ...w, bbox: { x0: round1(w.bbox.x0 / s), y0: round1(w.bbox.y0 / s), x1: round1(w.bbox.x1 / s), y1: round1(w.bbox.y1 / s) } }
    : w));
  return {
    ocr: { ...result, words },
    size: { width: Math.round(prepared.width / s), height: Math.round(prepared.height / s) },
  };
}

const round1 = (v: number): number => Math.round(v * 10) / 10;

/** Pixel size of an encoded image (header only). */
async function sizeOf(image: Uint8Array): Promise<{ width: number; height: number } | undefined> {
  const { default: sharp } = await import('sharp');
  const meta = await sharp(image).metadata().catch(() => undefined);
  return meta?.width && meta.height ? { width: meta.width, height: meta.height } : undefined;
}

/** For the bench: one preparation's reading of a one-page image. */
export async function readWithPreparation(image: Uint8Array, ocr: OcrReader, preparation: OcrPreparation): Promise<{ ocr: OcrResult; passes: number }> {
  const r = await readPage(image, ocr, preparation);
  return { ocr: r.ocr, passes: 1 };
}

/**
 * A measured alternative trigger for the retry readings, not used by the product (ADR 0019):
 * a digit-bearing word under this tesseract confidence (0..100) on the total's or date's line.
 * A misread digit (2018 read as 2013) leaves the extractor sure of a wrong value while
 * tesseract was unsure of the characters; but on receipts-train it read 27 of 91 receipts
 * again instead of 7 for one more right total, and a receipt read three times costs the
 * median time. bench/ocr-prep.ts --pipeline base+ink,x15@30 measures it.
 */
export const DOUBTFUL_WORD_CONFIDENCE = 30;

/**
 * Whether the words the total or date were read from are doubtful: the field has no box (not
 * read from words), or a word with a digit overlapping its line's box has a confidence below
 * `threshold`.
 */
export function doubtfulFieldWords(fields: Pick<ReceiptFields, 'boxes' | 'total' | 'date'>, words: readonly OcrWord[], threshold = DOUBTFUL_WORD_CONFIDENCE): boolean {
  return doubtfulWordFields(fields, words, threshold).length > 0;
}

/** The fields (total, date) whose words are doubtful in the sense of `doubtfulFieldWords`. */
export function doubtfulWordFields(fields: Pick<ReceiptFields, 'boxes' | 'total' | 'date'>, words: readonly OcrWord[], threshold = DOUBTFUL_WORD_CONFIDENCE): Array<'total' | 'date'> {
  const out: Array<'total' | 'date'> = [];
  for (const field of ['total', 'date'] as const) {
    if (!fields[field]) continue;
    const b = fields.boxes?.[field];
    if (!b) {
      out.push(field);
      continue;
    }
    const on = words.filter((w) => w.bbox && /\d/.test(w.text) && w.bbox.y0 < b.y1 && w.bbox.y1 > b.y0 && w.bbox.x0 < b.x1 && w.bbox.x1 > b.x0);
    if (on.length === 0 || on.some((w) => w.confidence < threshold)) out.push(field);
  }
  return out;
}
