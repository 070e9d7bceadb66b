/**
 * Receipt reading, train's merchant-grouped cross-validation and dev side by side, per field,
 * with the number of receipts: from the summaries bench/ocr.ts wrote in this `make bench`
 * (bench/.cache/ocr-summary-<set>-<reader>.json). Train CV: each train receipt read with the
 * ranker of the fold it was held out of; dev: never trained or tuned on. Every reader that has
 * a summary is shown (`ppocr`: the product, PP-OCRv5 first and tesseract.js the second opinion;
 * `tesseract`: tesseract.js alone, `bench/ocr.ts --primary off`).
 *
 *   node --import tsx bench/ocr-summary.ts
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fmt } from './lib';

interface Summary { set: string; reader: string; n: number; total: number; date: number; merchant: number; medianSeconds: number; p95Seconds: number; cpuMedian?: number; cpuP95?: number; load: number; at: string }

const CACHE = join(import.meta.dirname, '.cache');
const GOALS = { total: 95, date: 97, merchant: 90 };
const load = (set: string, reader: string): Summary | null => {
  const file = join(CACHE, `ocr-summary-${set}-${reader}.json`);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) as Summary : null;
};
const cell = (s: Summary | null, k: 'total' | 'date' | 'merchant'): string => (s ? `${fmt((100 * s[k]) / s.n, 1)} % (${s[k]}/${s.n})` : '-');
let shown = 0;
for (const reader of ['ppocr', 'tesseract']) {
  const cv = load('train-cv', reader);
  const dev = load('dev', reader);
  if (!cv && !dev) continue;
  shown++;
  console.log(`  reader: ${reader === 'ppocr' ? 'PP-OCRv5, tesseract.js second opinion (the product)' : 'tesseract.js alone'}`);
  console.log(`    ${'field'.padEnd(10)} ${'train, merchant-grouped CV'.padEnd(28)} ${'dev (never tuned on)'.padEnd(24)} goal (unseen merchants)`);
  for (const k of ['total', 'date', 'merchant'] as const) console.log(`    ${k.padEnd(10)} ${cell(cv, k).padEnd(28)} ${cell(dev, k).padEnd(24)} >= ${GOALS[k]} %`);
  const t = (s: Summary | null): string => (s ? `${fmt(s.medianSeconds, 2)} / ${fmt(s.p95Seconds, 2)} s (load ${fmt(s.load, 1)})` : '-');
  console.log(`    ${'median/p95'.padEnd(10)} ${t(cv).padEnd(28)} ${t(dev).padEnd(24)} <= 2 / 5 s per receipt per worker`);
  // CPU time of every thread over a receipt (one worker): what a busy machine inflates less.
  const c = (s: Summary | null): string => (s?.cpuMedian !== undefined ? `${fmt(s.cpuMedian, 2)} / ${fmt(s.cpuP95 ?? 0, 2)} s CPU` : '-');
  console.log(`    ${'cpu'.padEnd(10)} ${c(cv).padEnd(28)} ${c(dev).padEnd(24)}`);
}
if (shown === 0) {
  console.error('no summaries: run bench/ocr.ts (dev) and bench/ocr.ts --set train --cv first');
  process.exit(1);
}
