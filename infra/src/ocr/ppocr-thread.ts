/**
 * A PP-OCRv5 reader thread (ppocr.ts): opens the models on its first page and keeps them, reads
 * one page at a time. Messages: `{ id, image, contrast }` in, `{ id, reading }` or `{ id, error }` out.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { createPpocr, ppocrFiles } from './ppocr';
import type { Contrast, PpocrReader } from './ppocr';
import type { OrtModule } from './paddle-lines';

interface Request {
  id: number;
  image: Uint8Array;
  contrast?: Contrast;
}

const options = (workerData ?? {}) as { dir?: string; maxSide?: number };
let reader: Promise<PpocrReader> | undefined;

function open(): Promise<PpocrReader> {
  const files = ppocrFiles(options.dir);
  if (!files) return Promise.reject(new Error('PP-OCRv5 models are not installed (scripts/install-ocr-models.sh)'));
  const ort = createRequire(import.meta.url)('onnxruntime-node') as OrtModule;
  return createPpocr({ ort, files, ...(options.maxSide ? { maxSide: options.maxSide } : {}) });
}

parentPort!.on('message', (req: Request) => {
  reader ??= open().catch((error: unknown) => {
    reader = undefined;
    throw error;
  });
  reader.then((r) => r.read(req.image, req.contrast)).then(
    (reading) => parentPort!.postMessage({ id: req.id, reading }),
    (error: unknown) => parentPort!.postMessage({ id: req.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
