/**
 * A page reader on PP-OCRv5 (mobile detection + recognition, ONNX) run by ONNX Runtime: the
 * page scaled to at most MAX_SIDE px for detection (ppocr-detect.ts), each text box cropped from
 * the page at full resolution and read by the recogniser, decoded over the Latin classes
 * (paddle-lines.ts), split into words placed where their characters were read.
 *
 * The models are files vendored by scripts/install-ocr-models.sh into infra/models/ppocrv5/
 * (`make install`); nothing is fetched at run time. Without them `ppocrFiles` is null and the
 * product reads with tesseract.js alone. One reader holds two sessions (about 150 MB); it runs
 * in a worker thread of its own (ppocr-host.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { OcrBox, OcrResult, OcrWord } from '@paperlink/domain';
import { paddleLineReading } from './paddle-line-host';
import { paddleLineText } from './paddle';
import { allowedClasses, decodeCtc, loadClasses, REC_HEIGHT, toInput } from './paddle-lines';
import type { OrtModule, PaddleLine } from './paddle-lines';
import { boxesFromMap, detectionInput, detectionSize } from './ppocr-detect';

/** The longest side of the page as the detector sees it. */
export const MAX_SIDE = 1500;
/** Boxes lower than this (page pixels) hold no legible text. */
const MIN_BOX_HEIGHT = 6;

export const DEFAULT_MODEL_DIR = join(import.meta.dirname, '..', '..', 'models', 'ppocrv5');

export interface PpocrFiles {
  det: string;
  rec: string;
  keys: string;
}

/** The model files under `dir`, or null when they are not installed. */
export function ppocrFiles(dir: string = DEFAULT_MODEL_DIR): PpocrFiles | null {
  const files = { det: join(dir, 'det.onnx'), rec: join(dir, 'rec.onnx'), keys: join(dir, 'keys.txt') };
  return Object.values(files).every((f) => existsSync(f)) ? files : null;
}

export interface PpocrOptions {
  ort: OrtModule;
  files: PpocrFiles;
  /** ONNX Runtime intra-op threads (default 1: one core per reader). */
  threads?: number;
  maxSide?: number;
}

export interface PpocrReading extends OcrResult {
  words: OcrWord[];
  /** The page's size in the pixels the boxes are in (after EXIF rotation). */
  size: { width: number; height: number };
}

/**
 * How the page's contrast is evened before reading: `none`; `stretch`, grey levels stretched
 * between the page's 1st and 99th percentiles (faint print on a grey scan); `clahe`, contrast
 * evened tile by tile (uneven light on a photo, a thermal print faded at one end).
 */
export type Contrast = 'none' | 'stretch' | 'clahe' | 'auto';

/**
 * `auto` (the product's) stretches a page whose grey levels span less than this between their
 * 1st and 99th percentiles, and reads any other as it is. Chosen on receipts-train: stretching
 * every page read fewer fields than the plain page (train CV 85.7 / 89.0 / 82.4 % against 95.6 /
 * 97.8 / 87.9 %), and the faintest train page spans 54 levels (dev 67), so no train page is
 * stretched; a clear train receipt lightened to 12 levels (spread 9) lost its total and 70 % of
 * its words read plain, none stretched (ADR 0019).
 */
export const FAINT_SPREAD = 32;

export interface PpocrReader {
  read(image: Uint8Array, contrast?: Contrast): Promise<PpocrReading>;
  close(): Promise<void>;
}

export async function createPpocr(options: PpocrOptions): Promise<PpocrReader> {
  const sessionOptions = { intraOpNumThreads: Math.max(1, options.threads ?? 1), interOpNumThreads: 1, graphOptimizationLevel: 'all', enableCpuMemArena: false, enableMemPattern: false };
  const det = await options.ort.InferenceSession.create(options.files.det, sessionOptions);
  const rec = await options.ort.InferenceSession.create(options.files.rec, sessionOptions);
  const latin = latinGroups(loadClasses(options.files.keys));
  const maxSide = options.maxSide ?? MAX_SIDE;

  const detect = async (page: RawPage): Promise<OcrBox[]> => {
    const size = detectionSize(page.width, page.height, maxSide);
    const small = await sharp(page.bgr, { raw: { width: page.width, height: page.height, channels: 3 } })
      .resize(size.width, size.height, { fit: 'fill' }).raw().toBuffer();
    // `small` is BGR; detectionInput takes RGB and swaps, so swap back by reading it as such.
    const input = detectionInput(swapRB(small), size.width, size.height);
    const out = await det.run({ [det.inputNames[0]!]: new options.ort.Tensor('float32', input, [1, 3, size.height, size.width]) });
    const map = out[det.outputNames[0]!]!;
    const sx = page.width / size.width;
    const sy = page.height / size.height;
    return boxesFromMap(map.data as Float32Array, size.width, size.height)
      .map((b) => ({ x0: Math.floor(b.x0 * sx), y0: Math.floor(b.y0 * sy), x1: Math.ceil(b.x1 * sx), y1: Math.ceil(b.y1 * sy) }))
      .filter((b) => b.y1 - b.y0 >= MIN_BOX_HEIGHT && b.x1 > b.x0);
  };

  const recognise = async (page: RawPage, box: OcrBox): Promise<PaddleLine> => {
    const width = box.x1 - box.x0;
    const height = box.y1 - box.y0;
    const data = new Uint8Array(width * height * 3);
    for (let y = 0; y < height; y++) {
      const from = ((box.y0 + y) * page.width + box.x0) * 3;
      data.set(page.bgr.subarray(from, from + width * 3), y * width * 3);
    }
    const { tensor, width: w } = toInput({ data, width, height, channels: 3 });
    const out = await rec.run({ [rec.inputNames[0]!]: new options.ort.Tensor('float32', tensor, [1, 3, REC_HEIGHT, w]) });
    const probs = out[rec.outputNames[0]!]!;
    const [, steps, n] = probs.dims as [number, number, number];
    return decodeCtc(groupProbs(probs.data as Float32Array, steps, n, latin), steps, latin.classes.length, latin.classes, latin.allowed, false);
  };

  return {
    async read(image, contrast = 'auto') {
      const page = await rawPage(image, contrast);
      const words: OcrWord[] = [];
      for (const box of await detect(page)) {
        const line = await recognise(page, box);
        const text = paddleLineText(line.text);
        if (text === '') continue;
        words.push(...paddleLineReading({ ...line, text, crop: box }, box).words);
      }
      const confidence = words.length > 0 ? words.reduce((s, w) => s + w.confidence, 0) / words.length : 0;
      return { text: textOf(words), confidence, words, size: { width: page.width, height: page.height } };
    },
    async close() {
      await det.release?.();
      await rec.release?.();
    },
  };
}

/**
 * The recogniser's classes folded onto the Latin characters they stand for: the model's 18,385
 * classes hold the same letter several times (`l`, full-width `ｌ`, roman numeral `ⅼ`), and a
 * letter whose probability is split between its forms lost to a digit that has one (`Leve1`).
 * `of[k]` is class k's group (0: CTC blank; -1: not Latin), `classes[g]` the group's character.
 */
export interface LatinGroups {
  of: Int32Array;
  classes: string[];
  allowed: Uint8Array;
}

export function latinGroups(modelClasses: readonly string[]): LatinGroups {
  const allowed = allowedClasses(modelClasses, true);
  const index = new Map<string, number>();
  const classes = [''];
  const of = new Int32Array(modelClasses.length).fill(-1);
  of[0] = 0;
  modelClasses.forEach((c, k) => {
    if (k === 0 || !allowed[k]) return;
    const char = c.normalize('NFKC');
    let g = index.get(char);
    if (g === undefined) {
      g = classes.length;
      classes.push(char);
      index.set(char, g);
    }
    of[k] = g;
  });
  return { of, classes, allowed: new Uint8Array(classes.length).fill(1) };
}

/** Per time step, each group's probability: the sum of its classes'. */
export function groupProbs(probs: Float32Array, steps: number, n: number, groups: LatinGroups): Float32Array {
  const g = groups.classes.length;
  const out = new Float32Array(steps * g);
  for (let t = 0; t < steps; t++) {
    for (let k = 0; k < n; k++) {
      const to = groups.of[k]!;
      if (to >= 0) out[t * g + to]! += probs[t * n + k]!;
    }
  }
  return out;
}

interface RawPage {
  bgr: Uint8Array;
  width: number;
  height: number;
}

/** The page upright (EXIF), on white, its contrast evened as asked, as BGR pixels (PaddleOCR's channel order). */
async function rawPage(image: Uint8Array, asked: Contrast): Promise<RawPage> {
  const page = sharp(image, { failOn: 'none' }).rotate().flatten({ background: '#ffffff' }).removeAlpha();
  const contrast = asked === 'auto' ? (await greySpread(image) < FAINT_SPREAD ? 'stretch' : 'none') : asked;
  if (contrast !== 'none') {
    const evened = contrast === 'stretch' ? page.greyscale().normalise({ lower: 1, upper: 99 }) : page.greyscale().clahe({ width: 32, height: 32, maxSlope: 3 });
    const { data, info } = await evened.toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
    // One grey level in all three channels.
    const bgr = new Uint8Array(data.length * 3);
    for (let i = 0; i < data.length; i++) bgr[3 * i] = bgr[3 * i + 1] = bgr[3 * i + 2] = data[i]!;
    return { bgr, width: info.width, height: info.height };
  }
  const { data, info } = await page.toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`expected three channels, got ${info.channels}`);
  return { bgr: swapRB(data), width: info.width, height: info.height };
}

/** How many grey levels the page spans between its 1st and 99th percentiles (on a copy 400 px wide). */
export async function greySpread(image: Uint8Array): Promise<number> {
  const { data } = await sharp(image, { failOn: 'none' }).rotate().flatten({ background: '#ffffff' }).greyscale()
    .resize({ width: 400, withoutEnlargement: true }).raw().toBuffer({ resolveWithObject: true });
  const histogram = new Array<number>(256).fill(0);
  for (const v of data) histogram[v]!++;
  const at = (share: number, from: number, step: 1 | -1): number => {
    let seen = 0;
    for (let v = from; v >= 0 && v <= 255; v += step) {
      seen += histogram[v]!;
      if (seen >= share * data.length) return v;
    }
    return from;
  };
  return at(0.01, 255, -1) - at(0.01, 0, 1);
}

function swapRB(pixels: Uint8Array): Uint8Array {
  const out = new Uint8Array(pixels.length);
  for (let i = 0; i < pixels.length; i += 3) {
    out[i] = pixels[i + 2]!;
    out[i + 1] = pixels[i + 1]!;
    out[i + 2] = pixels[i]!;
  }
  return out;
}

/**
 * The words as lines of text, as a person reads them: a word joins the line whose vertical
 * middle falls within its height, lines top to bottom, words left to right.
 */
export function textOf(words: readonly OcrWord[]): string {
  const lines: Array<{ y0: number; y1: number; words: OcrWord[] }> = [];
  for (const w of words) {
    const b = w.bbox!;
    const mid = (b.y0 + b.y1) / 2;
    const line = lines.find((l) => mid >= l.y0 && mid <= l.y1 && (l.y0 + l.y1) / 2 >= b.y0 && (l.y0 + l.y1) / 2 <= b.y1);
    if (line) line.words.push(w);
    else lines.push({ y0: b.y0, y1: b.y1, words: [w] });
  }
  return lines
    .sort((a, b) => a.y0 + a.y1 - (b.y0 + b.y1))
    .map((l) => l.words.sort((a, b) => a.bbox!.x0 - b.bbox!.x0).map((w) => w.text).join(' '))
    .join('\n');
}
