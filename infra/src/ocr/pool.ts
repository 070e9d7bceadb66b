/**
 * The OCR port on tesseract.js: a scheduler over N workers (one per core by default), started
 * on first use and reused for every receipt (a worker costs ~0.3 s and ~200 MB to start).
 *
 * Offline by construction: the language data comes from the installed `@tesseract.js-data/eng`
 * package (a local path, so tesseract.js reads it with fs and never fetches), the wasm core
 * and worker script are required from node_modules, and `cacheMethod: 'none'` stops it from
 * writing `eng.traineddata` into the working directory. A wrong data path would make
 * `createWorker` hang or crash inside the worker thread, so the file is checked first and
 * worker start-up has a time-out.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createScheduler, createWorker } from 'tesseract.js';
import type { Page, Scheduler, Worker } from 'tesseract.js';
import type { OcrEngine, OcrResult, OcrWord } from '@paperlink/domain';
import { createPrepareHost } from './prepare-host';
import type { Prepared, PrepSteps } from './preprocess';

/**
 * `best_int` is the LSTM-only model (2.9 MB, what OEM 1 needs); `full` also carries the legacy
 * engine's data (10.9 MB) and read the dev receipts exactly as well, 20-25 % slower.
 */
export type OcrModel = 'best_int' | 'full';

export interface OcrPoolOptions {
  /** Worker threads; default `os.availableParallelism()`. */
  workers?: number;
  model?: OcrModel;
  /** Folder holding `eng.traineddata.gz`; default the installed `@tesseract.js-data/eng`. */
  langPath?: string;
  /** Give up on a worker that has not started after this long. */
  startTimeoutMs?: number;
  /** Tesseract parameters set on every worker after start (over the defaults: PSM 6, no inverted second reading). */
  parameters?: TesseractParameters;
}

/** Tesseract variables by name (values as strings, as tesseract takes them). */
export type TesseractParameters = Readonly<Record<string, string>>;

/** One reading's settings: tesseract variables for this job only (restored after it). */
export interface RecognizeOptions {
  parameters?: TesseractParameters;
}

export interface OcrPool extends OcrEngine {
  readonly size: number;
  recognize(image: Uint8Array, options?: RecognizeOptions): Promise<OcrResult>;
  /** Prepares an image for reading (preprocess.ts prepareSteps) in a thread of its own. */
  prepare(image: Uint8Array, steps: PrepSteps): Promise<Prepared>;
  /** Starts the workers now instead of on the first receipt (e.g. at process start). */
  start(): Promise<void>;
}

/**
 * Page segmentation "single uniform block". Receipts are one column; automatic layout (3)
 * splits labels from their amounts into separate blocks. On the dev set, with the same
 * extraction: totals 34 of 40 with 6 against 29 with 3 (and 29 with "single column", 4).
 */
const PSM_SINGLE_BLOCK = '6';
/** Set on every worker, under the caller's `parameters` (bench/ocr.ts `--tess tessedit_do_invert=1` measures without). */
const DEFAULT_PARAMETERS: TesseractParameters = { tessedit_do_invert: '0' };
const DEFAULT_START_TIMEOUT_MS = 30_000;
/** tesseract.js's worker script, started at a lower thread priority (see the file). */
const LOW_PRIORITY_WORKER = fileURLToPath(new URL('./tesseract-worker.mjs', import.meta.url));

/** The installed language-data folder for a model. */
export function defaultLangPath(model: OcrModel = 'best_int'): string {
  const pkg = dirname(createRequire(import.meta.url).resolve('@tesseract.js-data/eng/package.json'));
  return join(pkg, model === 'best_int' ? '4.0.0_best_int' : '4.0.0');
}

export function createOcrPool(options: OcrPoolOptions = {}): OcrPool {
  const size = Math.max(1, options.workers ?? availableParallelism());
  const langPath = options.langPath ?? defaultLangPath(options.model);
  const timeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  let started: Promise<{ scheduler: Scheduler; workers: Worker[] }> | undefined;
  const preparation = createPrepareHost();

  const ensure = (): Promise<{ scheduler: Scheduler; workers: Worker[] }> => {
    started ??= startWorkers(size, langPath, timeoutMs, options.parameters ?? {}).catch((error: unknown) => {
      started = undefined; // let the next receipt try again
      throw error;
    });
    return started;
  };

  return {
    size,
    async start() {
      await ensure();
    },
    async recognize(image, recognizeOptions) {
      const { scheduler } = await ensure();
      const result = await scheduler.addJob('recognize', Buffer.from(image.buffer, image.byteOffset, image.byteLength),
        { ...recognizeOptions?.parameters }, { text: true, blocks: true });
      return toOcrResult(result.data);
    },
    prepare(image, steps) {
      return preparation.prepare(image, steps);
    },
    async close() {
      await preparation.close();
      const current = started;
      started = undefined;
      if (!current) return;
      const { workers } = await current.catch(() => ({ workers: [] as Worker[] }));
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

async function startWorkers(size: number, langPath: string, timeoutMs: number, parameters: TesseractParameters): Promise<{ scheduler: Scheduler; workers: Worker[] }> {
  const dataFile = join(langPath, 'eng.traineddata.gz');
  if (!existsSync(dataFile)) {
    throw new Error(`OCR language data not found at ${dataFile}; is @tesseract.js-data/eng installed?`);
  }
  const settled = await Promise.allSettled(Array.from({ length: size }, () => startWorker(langPath, timeoutMs, parameters)));
  const workers = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) {
    await Promise.all(workers.map((w) => w.terminate()));
    throw failure.reason;
  }
  const scheduler = createScheduler();
  for (const w of workers) scheduler.addWorker(w);
  return { scheduler, workers };
}

async function startWorker(langPath: string, timeoutMs: number, parameters: TesseractParameters): Promise<Worker> {
  let lastError: unknown;
  let timedOut = false;
  const creating = createWorker('eng', 1 /* OEM.LSTM_ONLY */, {
    workerPath: LOW_PRIORITY_WORKER,
    langPath,
    gzip: true,
    cacheMethod: 'none',
    errorHandler: (error: unknown) => { lastError = error; },
  });
  // A worker that shows up after the time-out must not leak.
  creating.then((w) => (timedOut ? w.terminate() : undefined), () => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new Error(`OCR worker did not start within ${timeoutMs} ms${lastError ? `: ${String(lastError)}` : ''}`));
    }, timeoutMs);
  });
  try {
    const worker = await Promise.race([creating, timeout]);
    // debug_file silences tesseract's "Estimating resolution" chatter on stderr. tessedit_do_invert
    // 0: a line tesseract is unsure of is not read a second time as white on black (the same fields
    // on train and dev, one more dev merchant, median 11 % and p95 17-18 % faster: ADR 0019).
    await worker.setParameters({ tessedit_pageseg_mode: PSM_SINGLE_BLOCK as never, debug_file: '/dev/null', ...DEFAULT_PARAMETERS, ...parameters });
    return worker;
  } finally {
    clearTimeout(timer);
  }
}

/** Words come from the block tree (requested with `blocks: true`); confidences stay 0..100. */
function toOcrResult(page: Page): OcrResult {
  const words: OcrWord[] = (page.blocks ?? []).flatMap((b) => b.paragraphs.flatMap((p) => p.lines.flatMap((l) =>
    l.words.map((w) => ({ text: w.text, confidence: w.confidence, bbox: { ...w.bbox } })))));
  return { text: page.text, confidence: page.confidence, words };
}
