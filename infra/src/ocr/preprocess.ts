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
 * - `prepareSteps`: the page in greyscale scaled by a fixed factor, handed to tesseract as an
 *   8-bit PGM: the page scaled 1.5x is the second retry reading.
 *
 * The retry readings (reading.ts RETRY_READINGS: `ink` and the 1.5x page) run only when the
 * first one leaves a field missing or unsure. The preparations measured and not kept (CLAHE,
 * scaling to a capital height, Otsu, ...) are in lab/ocr/ (ADR 0019).
 */
import sharp from 'sharp';
import type { Metadata, Sharp } from 'sharp';

export type OcrVariant = 'plain' | 'ink';

const MAX_WIDTH = 2400;
/** Decode what can be decoded: a receipt with a damaged stripe is still worth reading. */
const LENIENT = { failOn: 'none' } as const;

/** The image's header (size, orientation, alpha), read leniently. */
export function pageMetadata(input: Buffer): Promise<Metadata> {
  return sharp(input, LENIENT).metadata();
}

/** What every preparation starts from: the page upright (EXIF), on white, at most MAX_WIDTH wide. */
export function uprightPage(input: Buffer, meta: Metadata): Sharp {
  const page = sharp(input, LENIENT).rotate().flatten({ background: '#ffffff' });
  return (meta.width ?? 0) > MAX_WIDTH ? page.resize({ width: MAX_WIDTH, withoutEnlargement: true }) : page;
}

/**
 * The image for one OCR reading. `reencode` forces the plain image through sharp, which fills
 * damaged JPEG scan data with grey where tesseract's decoder gives up on the whole file.
 */
export async function prepareImage(image: Uint8Array, variant: OcrVariant, reencode = false): Promise<Buffer> {
  const input = Buffer.from(image.buffer, image.byteOffset, image.byteLength);
  const meta = await pageMetadata(input);
  const needsPlainWork = reencode || (meta.orientation ?? 1) !== 1 || meta.hasAlpha || (meta.width ?? 0) > MAX_WIDTH;
  if (variant === 'plain' && !needsPlainWork) return input;
  const pipeline = uprightPage(input, meta);
  if (variant === 'plain') return pipeline.png({ compressionLevel: 1 }).toBuffer();
  // Greyscale first as its own step: sharp orders the operations of one pipeline itself.
  const grey = await pipeline.greyscale().png({ compressionLevel: 0 }).toBuffer();
  return sharp(grey).blur(2).threshold(225).png({ compressionLevel: 1 }).toBuffer();
}

/** A preparation of the page's pixels, made off the request thread (prepare-host.ts). */
export interface PrepSteps {
  /** A fixed scale factor. */
  scale: number;
}

export interface Prepared {
  image: Buffer;
  width: number;
  height: number;
  scale: number;
}

/** An 8-bit greyscale PGM (P5): no compression to spend time on, and leptonica reads it. */
export function toPgm(data: Uint8Array, width: number, height: number): Buffer {
  const header = Buffer.from(`P5\n${width} ${height}\n255\n`, 'ascii');
  return Buffer.concat([header, Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
}

/** The page upright and in greyscale, as raw 8-bit pixels. */
export async function greyPage(image: Uint8Array): Promise<{ data: Buffer; width: number; height: number }> {
  const input = Buffer.from(image.buffer, image.byteOffset, image.byteLength);
  const grey = await uprightPage(input, await pageMetadata(input)).greyscale().raw().toBuffer({ resolveWithObject: true });
  return { data: grey.data, width: grey.info.width, height: grey.info.height };
}

export async function prepareSteps(image: Uint8Array, steps: PrepSteps): Promise<Prepared> {
  const page = await greyPage(image);
  const { scale } = steps;
  let pipeline = sharp(page.data, { raw: { width: page.width, height: page.height, channels: 1 } });
  if (scale !== 1) pipeline = pipeline.resize({ width: Math.round(page.width * scale), kernel: 'cubic' });
  const out = await pipeline.greyscale().raw().toBuffer({ resolveWithObject: true });
  if (out.info.channels !== 1) throw new Error(`expected one channel, got ${out.info.channels}`);
  return { image: toPgm(out.data, out.info.width, out.info.height), width: out.info.width, height: out.info.height, scale };
}
