/**
 * A pool worker's entry: plain JavaScript, so it starts the same way under `node --import tsx`,
 * the tsx CLI and vitest (the pool starts it without the parent's loader flags). It registers
 * tsx in this thread, then loads the TypeScript worker loop.
 *
 * A worker that will read PDFs (`workerData.pdfjs`, WorkerPool) loads pdfjs-dist first, before
 * tsx is registered: through tsx's hooks its legacy build (1 MB, and its 2 MB worker module run in
 * this thread) is transformed again with inline source maps that Node keeps, and a thread that
 * had read one small PDF stood at 439 MB resident against 146 MB loaded this way (ADR 0029).
 * infra/src/ocr/pdf.ts imports the same URL later and gets these modules from the cache; the
 * worker module is handed over as `globalThis.pdfjsWorker`, pdfjs's way of running its worker
 * side in the same thread without importing it again.
 */
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

if (workerData?.pdfjs) {
  // pdfjs's legacy build replaces these with slower core-js polyfills; put back (see pdf.ts).
  const push = Array.prototype.push;
  const { stringify, parse } = JSON;
  try {
    globalThis.pdfjsWorker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    await import('pdfjs-dist/legacy/build/pdf.mjs');
  } finally {
    Array.prototype.push = push;
    JSON.stringify = stringify;
    JSON.parse = parse;
  }
}

register();
await import('./worker.ts');
