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
 *
 * The two extra readings run only when the first one leaves a field missing or unsure.
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
