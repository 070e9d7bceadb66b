/**
 * One OCR reading of one page image with a given preparation: the image prepared (preprocess.ts),
 * read by the engine with the preparation's tesseract settings, and the words' boxes mapped back
 * to the pixels of the page as it was uploaded (after EXIF rotation), so that positions and
 * heights mean the same whatever scaling the preparation chose.
 */
import type { OcrEngine, OcrResult, OcrWord } from '@paperlink/domain';
import type { RecognizeOptions, TesseractParameters } from './pool';
import { prepareImage, prepareSteps } from './preprocess';
import type { OcrVariant, Prepared, PrepSteps } from './preprocess';

/**
 * An engine that may take per-reading settings (the tesseract pool does; others ignore them)
 * and may prepare images off the calling thread (the pool does; otherwise they are prepared
 * here, which is for tools and tests).
 */
export interface OcrReader extends OcrEngine {
  recognize(image: Uint8Array, options?: RecognizeOptions): Promise<OcrResult>;
  prepare?(image: Uint8Array, steps: PrepSteps): Promise<Prepared>;
}

/** The product's readings: FIRST_READING and RETRY_READINGS (the others measured: lab/ocr/preparations.ts). */
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

/** The image could not be decoded for preparation (as opposed to the engine failing to read it). */
export class PreparationError extends Error {}

const preparing = <T>(work: Promise<T>): Promise<T> => work.catch((error: unknown) => {
  throw new PreparationError(error instanceof Error ? error.message : String(error));
});

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

/**
 * One reading of one page. `reencode`: the page decoded and re-encoded by sharp, plain (for a
 * JPEG whose damaged scan data tesseract's decoder refuses).
 */
export async function readPage(image: Uint8Array, ocr: OcrReader, preparation: OcrPreparation, reencode = false): Promise<PageReading> {
  const options = preparation.parameters ? { parameters: preparation.parameters } : undefined;
  if (typeof preparation.image === 'string' || reencode) {
    const prepared = await preparing(prepareImage(image, typeof preparation.image === 'string' ? preparation.image : 'plain', reencode));
    const result = await ocr.recognize(prepared, options);
    const size = await sizeOf(prepared);
    return { ocr: { ...result, words: result.words ?? [] }, ...(size ? { size } : {}), image: prepared };
  }
  const prepared = await preparing(ocr.prepare ? ocr.prepare(image, preparation.image) : prepareSteps(image, preparation.image));
  return inPagePixels(await ocr.recognize(prepared.image, options), prepared);
}

/** The engine's reading of a prepared page, its boxes and size in the pixels of the page as uploaded. */
export function inPagePixels(result: OcrResult, prepared: Pick<Prepared, 'width' | 'height' | 'scale'>): PageReading {
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
