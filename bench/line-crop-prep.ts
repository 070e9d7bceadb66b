/**
 * How a cropped line should be prepared and read (ADR 0019, "targeted second reading"),
 * measured on receipts-train only, on the lines the product would read again (linesToReread on
 * the first reading): character error rate of the line against the annotated text of the same
 * band (`<id>.boxes.csv` segments whose centre lies on the line), for the page reading's own
 * line and for each crop preparation. Pages whose prepared size differs from the file's (scaled
 * down or rotated) are skipped (the annotated boxes are in the file's pixels).
 *
 *   node --import tsx bench/line-crop-prep.ts [--limit N] [--variants a,b]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { extractReceiptFields, linesToReread } from '../domain/src/receipts/index';
import { layoutFromOcr } from '../domain/src/receipts/learned/layout';
import type { OcrBox } from '../domain/src/receipts/types';
import { rereadLines } from '../infra/src/ocr/line-reread';
import type { LineRereadOptions } from '../infra/src/ocr/line-reread';
import { createOcrPool } from '../infra/src/ocr/pool';
import { prepareImage } from '../infra/src/ocr/preprocess';
import { devOcr } from '../lab/receipts/ocr-cache';
import { fmt, median } from './lib';
import { annotatedSegments, annotatedTextOn, DATA, levenshtein, receiptIds } from '../lab/receipts/score';

const args = process.argv.slice(2);
const argValue = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const limit = Number(argValue('--limit')) || Infinity;

export const CROP_VARIANTS: Record<string, LineRereadOptions> = {
  'band44': { sideMargin: 'page', marginY: 0.3 },
  'narrow44': { sideMargin: 3, marginY: 0.3 },
  'narrow-x1': { sideMargin: 3, marginY: 0.3, linePx: 1 },
  'narrow32': { sideMargin: 3, marginY: 0.3, linePx: 32 },
  'narrow60': { sideMargin: 3, marginY: 0.3, linePx: 60 },
  'narrow-colour-x1': { sideMargin: 3, marginY: 0.3, linePx: 1, colour: true },
  'narrow44-m6': { sideMargin: 3, marginY: 0.6 },
  'narrow44-psm13': { sideMargin: 3, marginY: 0.3, recognize: { parameters: { tessedit_pageseg_mode: '13' } } },
  'narrow44-psm6': { sideMargin: 3, marginY: 0.3, recognize: { parameters: { tessedit_pageseg_mode: '6' } } },
  'band-x1': { sideMargin: 'page', marginY: 0.3, linePx: 1 },
  'narrow44-m1': { sideMargin: 3, marginY: 0.1 },
  'narrow44-m0': { sideMargin: 3, marginY: 0 },
  'narrow44-m1-dpi': { sideMargin: 3, marginY: 0.1, recognize: { parameters: { tessedit_pageseg_mode: '7', user_defined_dpi: '300' } } },
  'narrow-x1-m1': { sideMargin: 3, marginY: 0.1, linePx: 1 },
};
const names = (argValue('--variants') ?? Object.keys(CROP_VARIANTS).join(',')).split(',');

const norm = (s: string): string => s.normalize('NFKC').toUpperCase().replace(/[|]/g, ' ').replace(/\s+/g, ' ').trim();


const first = await devOcr(console.log, 'train');
const pool = createOcrPool({ workers: 1 });
await pool.start();
const errs: Record<string, { e: number; n: number; better: number; worse: number; ms: number[] }> = {};
for (const n of ['page', ...names]) errs[n] = { e: 0, n: 0, better: 0, worse: 0, ms: [] };
let receipts = 0;
console.log(`line crop preparations on receipts-train; load average ${loadavg().map((l) => fmt(l, 2)).join(' ')}`);
try {
  for (const id of receiptIds('train').slice(0, limit)) {
    const r = first[id]!;
    const f0 = extractReceiptFields(r.text, r.words);
    const targets = linesToReread(r.text, r.words, f0);
    if (targets.length === 0) continue;
    const file = readFileSync(join(DATA.train, `${id}.jpg`));
    const page = await prepareImage(file, 'plain');
    const meta = await sharp(page).metadata();
    const orig = await sharp(file).metadata();
    if (meta.width !== orig.width || meta.height !== orig.height) continue;
    receipts++;
    const segments = annotatedSegments('train', id);
    const layout = layoutFromOcr(r.text, r.words);
    const size = { width: meta.width!, height: meta.height! };
    const pageLine = (box: OcrBox): string => layout.lines.find((l) => l.x0 === box.x0 && l.y0 === box.y0 && l.x1 === box.x1 && l.y1 === box.y1)?.text ?? '';
    const pageErr: number[] = [];
    const truths: string[] = [];
    for (const t of targets) {
      const h = t.box.y1 - t.box.y0;
      const truth = norm(annotatedTextOn(segments, t.box, t.box.x0 - 3 * h, t.box.x1 + 3 * h));
      truths.push(truth);
      const e = levenshtein(norm(pageLine(t.box)), truth);
      pageErr.push(e);
      errs.page!.e += e;
      errs.page!.n += Math.max(1, truth.length);
    }
    for (const name of names) {
      const v = CROP_VARIANTS[name]!;
      const t0 = performance.now();
      const lines = await rereadLines(page, size, targets.map((t) => t.box), pool, v);
      errs[name]!.ms.push(performance.now() - t0);
      lines.forEach((l, i) => {
        const k = targets.findIndex((t) => t.box === l.box);
        const truth = truths[k]!;
        // A band of the page's width also holds what the annotations have beside the line.
        const widened = v.sideMargin === 'page' ? norm(annotatedTextOn(segments, l.box, 0, size.width)) : truth;
        const e = levenshtein(norm(l.words.map((w) => w.text).join(' ')), widened);
        errs[name]!.e += e;
        errs[name]!.n += Math.max(1, widened.length);
        if (v.sideMargin !== 'page') {
          if (e < pageErr[k]!) errs[name]!.better++;
          if (e > pageErr[k]!) errs[name]!.worse++;
        }
        void i;
      });
    }
    process.stdout.write('.');
  }
} finally {
  await pool.close();
}
console.log(`\n${receipts} train receipts with lines to read again`);
for (const [name, e] of Object.entries(errs)) {
  console.log(`  ${name.padEnd(20)} line CER ${fmt((100 * e.e) / Math.max(1, e.n), 1)} %  lines better/worse than the page ${e.better}/${e.worse}  ms per receipt median ${e.ms.length ? fmt(median(e.ms), 0) : '-'}`);
}
