/**
 * Image preparation for OCR, measured on the 40 dev receipts (bench/ocr.ts):
 *
 * - `plain`: only what every image needs: EXIF rotation applied (phone photos), transparency
 *   flattened onto white, and very large photos scaled down to 2,400 px wide (OCR time grows
 *   with pixels, accuracy does not). Greyscale, normalise, upscaling and adaptive thresholds
 *   all did worse than tesseract's own binarisation on the dev set (total 27-32 of 40 against
 *   34), so the first reading uses the image as it is.
 * - `ink`: blur then a high threshold, which joins dot-matrix dots and darkens faded thermal
 *   print. Worse on clean receipts, but it reads dates and totals the plain pass loses.
 * - `contrast`: local contrast equalisation (CLAHE) for uneven lighting and grey paper.
 * - `prepareSteps`: greyscale steps one by one (scaling to an estimated capital height or by a
 *   fixed factor, contrast stretch, median, Otsu), handed to tesseract as an 8-bit PGM;
 *   measured on receipts-train with bench/ocr-prep.ts (ADR 0019, amendment): none beat the
 *   plain page as the first reading; the page scaled 1.5x is the second retry reading.
 *
 * The retry readings (reading.ts RETRY_READINGS: `ink` and the 1.5x page) run only when the
 * first one leaves a field missing or unsure.
 */
import sharp from 'sharp';

export type OcrVariant = 'plain' | 'ink' | 'contrast';

const MAX_WIDTH = 2400;
/** Decode what can be decoded: a receipt with a damaged stripe is still worth reading. */
const LENIENT = { failOn: 'none' } as const;

/**
 * The image for one OCR reading. `reencode` forces the plain image through sharp, which fills
 * damaged JPEG scan data with grey where tesseract's decoder gives up on the whole file.
 */
export async function prepareImage(image: Uint8Array, variant: OcrVariant, reencode = false): Promise<Buffer> {
  const input = Buffer.from(image.buffer, image.byteOffset, image.byteLength);
  const meta = await sharp(input, LENIENT).metadata();
  const needsPlainWork = reencode || (meta.orientation ?? 1) !== 1 || meta.hasAlpha || (meta.width ?? 0) > MAX_WIDTH;
  if (variant === 'plain' && !needsPlainWork) return input;
  let pipeline = sharp(input, LENIENT).rotate().flatten({ background: '#ffffff' });
  if ((meta.width ?? 0) > MAX_WIDTH) pipeline = pipeline.resize({ width: MAX_WIDTH, withoutEnlargement: true });
  if (variant === 'plain') return pipeline.png({ compressionLevel: 1 }).toBuffer();
  // Greyscale first as its own step: sharp orders the operations of one pipeline itself.
  const grey = await pipeline.greyscale().png({ compressionLevel: 0 }).toBuffer();
  const second = variant === 'ink' ? sharp(grey).blur(2).threshold(225) : sharp(grey).clahe({ width: 64, height: 64, maxSlope: 3 });
  return second.png({ compressionLevel: 1 }).toBuffer();
}

/** A preparation built from steps, for measuring them one by one (bench/ocr-prep.ts). */
export interface PrepSteps {
  /** Scale the page so its capitals are about this many pixels tall (estimated, text-size.ts). */
  capitalPx?: number;
  /** A fixed scale factor (instead of `capitalPx`). */
  scale?: number;
  /** Only scale up (default), or also down. */
  downscale?: boolean;
  /** Largest scale factor. */
  maxScale?: number;
  /** Stretch contrast to the full range (1st..99th percentile). */
  normalise?: boolean;
  /** Median filter of this size (3, 5) against speckle. */
  median?: number;
  /** Unsharp mask after scaling. */
  sharpen?: boolean;
  /** Binarise with Otsu's threshold ourselves instead of leaving it to tesseract. */
  otsu?: boolean;
  /** Remove a dark scanner border around the paper. */
  trim?: boolean;
  /**
   * When the page needs no scaling, hand it over as the `plain` preparation does (the file as
   * it is), so that pages whose print is already large enough read exactly as before.
   */
  plainUnlessScaled?: boolean;
}

export interface Prepared {
  image: Buffer;
  width: number;
  height: number;
  /** Estimated capital height of the page before scaling, px (null: could not tell). */
  capitalPx: number | null;
  scale: number;
  /** The `plain` preparation was used (no scaling needed, `plainUnlessScaled`). */
  plain?: boolean;
}

/** Below this the estimate is broken print (faded thermal, dot matrix) rather than small type. */
const MIN_CAPITAL_PX = 8;

/** An 8-bit greyscale PGM (P5): no compression to spend time on, and leptonica reads it. */
export function toPgm(data: Uint8Array, width: number, height: number): Buffer {
  const header = Buffer.from(`P5\n${width} ${height}\n255\n`, 'ascii');
  return Buffer.concat([header, Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
}

export async function prepareSteps(image: Uint8Array, steps: PrepSteps): Promise<Prepared> {
  const { capitalHeight, otsuLevel } = await import('./text-size');
  const input = Buffer.from(image.buffer, image.byteOffset, image.byteLength);
  const meta = await sharp(input, LENIENT).metadata();
  let base = sharp(input, LENIENT).rotate().flatten({ background: '#ffffff' });
  if ((meta.width ?? 0) > MAX_WIDTH) base = base.resize({ width: MAX_WIDTH, withoutEnlargement: true });
  const grey = await base.greyscale().raw().toBuffer({ resolveWithObject: true });
  let { data } = grey;
  let { width, height } = grey.info;
  const estimate = steps.capitalPx ? capitalHeight({ data, width, height }) : null;
  const capital = estimate !== null && estimate >= MIN_CAPITAL_PX ? estimate : null;
  let scale = steps.scale ?? 1;
  if (steps.capitalPx && capital) {
    scale = Math.min(steps.maxScale ?? 3, steps.capitalPx / capital);
    if (!steps.downscale && scale < 1) scale = 1;
    if (Math.abs(scale - 1) < 0.1) scale = 1;
    if (width * scale > 4000) scale = 4000 / width;
  }
  if (scale === 1 && steps.plainUnlessScaled) {
    const image = await prepareImage(input, 'plain');
    return { image, width, height, capitalPx: capital, scale, plain: true };
  }
  let pipeline = sharp(data, { raw: { width, height, channels: 1 } });
  if (steps.trim) pipeline = pipeline.trim({ threshold: 40 });
  if (steps.normalise) pipeline = pipeline.normalise({ lower: 1, upper: 99 });
  if (steps.median) pipeline = pipeline.median(steps.median);
  if (scale !== 1) pipeline = pipeline.resize({ width: Math.round(width * scale), kernel: 'cubic' });
  if (steps.sharpen) pipeline = pipeline.sharpen({ sigma: 1 });
  const out = await pipeline.greyscale().raw().toBuffer({ resolveWithObject: true });
  data = out.data;
  width = out.info.width;
  height = out.info.height;
  if (out.info.channels !== 1) throw new Error(`expected one channel, got ${out.info.channels}`);
  if (steps.otsu) {
    const level = otsuLevel(data);
    for (let i = 0; i < data.length; i++) data[i] = data[i]! > level ? 255 : 0;
  }
  return { image: toPgm(data, width, height), width, height, capitalPx: capital, scale };
}
