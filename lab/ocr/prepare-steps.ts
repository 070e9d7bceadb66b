/**
 * The image preparations measured for tesseract.js and not kept by the product (ADR 0019): local
 * contrast equalisation (CLAHE), and greyscale steps one by one (scaling to an estimated capital
 * height or by a fixed factor, contrast stretch, median, Otsu, trim), handed to tesseract as an
 * 8-bit PGM. On receipts-train none beat the plain page as the first reading, and the
 * `ink` + 1.5x pair replaced `ink` + CLAHE as the retry readings. The product keeps `plain`,
 * `ink` and the fixed scale (infra/src/ocr/preprocess.ts); these start from the same upright
 * page, so a step measured here is the product's when it is moved there.
 */
import sharp from 'sharp';
import { greyPage, pageMetadata, prepareImage, toPgm, uprightPage } from '../../infra/src/ocr/preprocess';
import { capitalHeight, otsuLevel } from './text-size';

export interface LabSteps {
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

export interface LabPrepared {
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

/** Local contrast equalisation (CLAHE) for uneven lighting and grey paper, as a PNG. */
export async function prepareContrast(image: Uint8Array): Promise<Buffer> {
  const input = Buffer.from(image.buffer, image.byteOffset, image.byteLength);
  // Greyscale first as its own step: sharp orders the operations of one pipeline itself.
  const grey = await uprightPage(input, await pageMetadata(input)).greyscale().png({ compressionLevel: 0 }).toBuffer();
  return sharp(grey).clahe({ width: 64, height: 64, maxSlope: 3 }).png({ compressionLevel: 1 }).toBuffer();
}

export async function prepareLabSteps(image: Uint8Array, steps: LabSteps): Promise<LabPrepared> {
  const input = Buffer.from(image.buffer, image.byteOffset, image.byteLength);
  let { data, width, height } = await greyPage(input);
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
    const plain = await prepareImage(input, 'plain');
    return { image: plain, width, height, capitalPx: capital, scale, plain: true };
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
