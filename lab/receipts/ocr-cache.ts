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
 *   node --import tsx lab/receipts/ocr-cache.ts [dev|train]   (fills the cache with one worker)
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { OcrResult } from '../../domain/src/receipts/types';
import { BENCH_CACHE, SHARED_DATA } from './paths';

export const DEV_DATA = join(SHARED_DATA, 'receipts-dev');
export const TRAIN_DATA = join(SHARED_DATA, 'receipts-train');

/**
 * `only`: these receipts only (e.g. a test's small subset); `cacheFile`: another cache file than
 * bench/.cache/ocr-<set>-raw.json.
 */
export async function devOcr(log: (line: string) => void = () => undefined, set: 'dev' | 'train' = 'dev', subset: { only?: readonly string[]; cacheFile?: string } = {}): Promise<Record<string, OcrResult>> {
  const DATA = set === 'dev' ? DEV_DATA : TRAIN_DATA;
  const CACHE_FILE = subset.cacheFile ?? join(BENCH_CACHE, `ocr-${set}-raw.json`);
  const cached: Record<string, OcrResult> = existsSync(CACHE_FILE) ? JSON.parse(readFileSync(CACHE_FILE, 'utf8')) as Record<string, OcrResult> : {};
  const ids = (subset.only ? [...subset.only] : readdirSync(DATA).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5))).sort();
  const missing = ids.filter((id) => !cached[id]);
  if (missing.length === 0) return cached;
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

if (process.argv[1] === import.meta.filename) {
  const set = process.argv[2] === 'train' ? 'train' : 'dev';
  const all = await devOcr(console.log, set);
  console.log(`${Object.keys(all).length} ${set} receipts cached`);
}
