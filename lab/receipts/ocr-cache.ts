/**
 * The first tesseract.js reading of each receipt of a set (dev or train), as the product takes
 * it (infra/src/ocr/reading.ts FIRST_READING: the preparation chosen in ADR 0019, word boxes in
 * the pixels of the uploaded image), text and words with boxes, cached in
 * bench/.cache/ocr-<set>-raw.json (beside the benches' other caches) so that field extraction
 * can be measured (dev) or trained on OCR output (train) many times without OCR-ing every image
 * each time. The cache is keyed by
 * receipt id and holds the reading's OcrResult as is; delete the file to read again (e.g. after
 * an OCR change). The retry readings (when the first is unsure) are not in it.
 *
 *   node --import tsx lab/receipts/ocr-cache.ts [dev|train] [tesseract|ppocr]   (fills the cache with one worker)
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { OcrResult } from '../../domain/src/receipts/types';
import type { Contrast } from '../../infra/src/ocr/ppocr';
import { BENCH_CACHE, SHARED_DATA } from './paths';

export const DEV_DATA = join(SHARED_DATA, 'receipts-dev');
export const TRAIN_DATA = join(SHARED_DATA, 'receipts-train');

/**
 * `only`: these receipts only (e.g. a test's small subset); `cacheFile`: another cache file than
 * bench/.cache/ocr-<set>-raw.json; `engine: 'ppocr'`: the PP-OCRv5 page reading instead
 * (infra/src/ocr/ppocr.ts, one reader in this thread), cached in bench/.cache/ocr-<set>-ppocr.json.
 */
export async function devOcr(log: (line: string) => void = () => undefined, set: 'dev' | 'train' = 'dev', subset: { only?: readonly string[]; cacheFile?: string; engine?: OcrEngineName } = {}): Promise<Record<string, OcrResult>> {
  const DATA = set === 'dev' ? DEV_DATA : TRAIN_DATA;
  const engine = subset.engine ?? 'tesseract';
  const CACHE_FILE = subset.cacheFile ?? join(BENCH_CACHE, `ocr-${set}-${engine === 'ppocr' ? `ppocr${PPOCR_MAX_SIDE ? `-${PPOCR_MAX_SIDE}` : ''}${PPOCR_CONTRAST !== 'auto' ? `-${PPOCR_CONTRAST}` : ''}` : 'raw'}.json`);
  const cached: Record<string, OcrResult> = existsSync(CACHE_FILE) ? JSON.parse(readFileSync(CACHE_FILE, 'utf8')) as Record<string, OcrResult> : {};
  const ids = (subset.only ? [...subset.only] : readdirSync(DATA).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5))).sort();
  const missing = ids.filter((id) => !cached[id]);
  if (missing.length === 0) return cached;
  if (engine === 'ppocr') return ppocrCache(log, DATA, set, missing, cached, CACHE_FILE);
  log(`OCR of ${missing.length} ${set} receipt(s) for the cache (one tesseract.js worker, the product's first reading)...`);
  const { createOcrPool } = await import('../../infra/src/ocr/pool');
  const { FIRST_READING, readPage } = await import('../../infra/src/ocr/reading');
  const pool = createOcrPool({ workers: 1 });
  try {
    for (const id of missing) {
      cached[id] = (await readPage(readFileSync(join(DATA, `${id}.jpg`)), pool, FIRST_READING)).ocr;
    }
  } finally {
    await pool.close();
  }
  mkdirSync(dirname(CACHE_FILE), { recursive: true });
  writeFileSync(CACHE_FILE, JSON.stringify(cached));
  return cached;
}

export type OcrEngineName = 'tesseract' | 'ppocr';
/** PPOCR_MAX_SIDE=N: the PP-OCRv5 reading with detection at another page size than the product's (cached apart). */
const PPOCR_MAX_SIDE = process.env.PPOCR_MAX_SIDE ? Number(process.env.PPOCR_MAX_SIDE) : undefined;
/**
 * PPOCR_CONTRAST=stretch|clahe|none: the PP-OCRv5 reading of every page with its contrast evened
 * (or never), cached apart; by default the product's `auto` (ppocr.ts `Contrast`).
 */
const PPOCR_CONTRAST = (process.env.PPOCR_CONTRAST ?? 'auto') as Contrast;

async function ppocrCache(log: (line: string) => void, data: string, set: string, missing: readonly string[], cached: Record<string, OcrResult>, file: string): Promise<Record<string, OcrResult>> {
  log(`OCR of ${missing.length} ${set} receipt(s) for the cache (one PP-OCRv5 reader in this thread)...`);
  const { createRequire } = await import('node:module');
  const { createPpocr, ppocrFiles } = await import('../../infra/src/ocr/ppocr');
  const files = ppocrFiles();
  if (!files) throw new Error('PP-OCRv5 models are not installed (scripts/install-ocr-models.sh)');
  const ort = createRequire(import.meta.resolve('../../infra/src/ocr/ppocr.ts'))('onnxruntime-node') as Parameters<typeof createPpocr>[0]['ort'];
  const reader = await createPpocr({ ort, files, ...(PPOCR_MAX_SIDE ? { maxSide: PPOCR_MAX_SIDE } : {}) });
  try {
    for (const id of missing) {
      const { size: _size, ...reading } = await reader.read(readFileSync(join(data, `${id}.jpg`)), PPOCR_CONTRAST);
      cached[id] = reading;
    }
  } finally {
    await reader.close();
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(cached));
  return cached;
}

if (process.argv[1] === import.meta.filename) {
  const set = process.argv[2] === 'train' ? 'train' : 'dev';
  const engine: OcrEngineName = process.argv[3] === 'ppocr' ? 'ppocr' : 'tesseract';
  const all = await devOcr(console.log, set, { engine });
  console.log(`${Object.keys(all).length} ${set} receipts cached`);
}
