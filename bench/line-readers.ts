/**
 * Which reader reads a receipt's field lines best (ADR 0019): on
 * receipts-train, the lines the product would read again for each field (linesToReread, every
 * field asked for so that every receipt counts), scored against the annotated text of the same
 * band (`<id>.boxes.csv`): the page reading's own line, tesseract's line reading as the product
 * does it (line-reread.ts defaults, PSM 7), and PaddleOCR's recognition model on the same crop
 * (paddle-lines.ts, no detection). Character error rate with spaces and without (a reader that
 * loses word gaps still reads amounts and dates right), and the share of lines whose digits all
 * come out right, in order.
 *
 *   node --import tsx bench/line-readers.ts [--limit N] [--examples]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { extractReceiptFields, linesToReread } from '../domain/src/receipts/index';
import { layoutFromOcr } from '../domain/src/receipts/learned/layout';
import type { OcrBox } from '../domain/src/receipts/types';
import { rereadLines, wordBoxesOn } from '../infra/src/ocr/line-reread';
import { createOcrPool } from '../infra/src/ocr/pool';
import { prepareImage } from '../infra/src/ocr/preprocess';
import { openPaddleLines } from '../infra/src/ocr/paddle-line-host';
import { devOcr } from '../lab/receipts/ocr-cache';
import { fmt, median } from './lib';
import { annotatedSegments, annotatedTextOn, DATA, levenshtein, receiptIds } from '../lab/receipts/score';

const args = process.argv.slice(2);
const argValue = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const limit = Number(argValue('--limit')) || Infinity;
const set = (argValue('--set') ?? 'train') as 'train' | 'dev';
if (set !== 'train') throw new Error('only receipts-train has annotated lines');

const norm = (s: string): string => s.normalize('NFKC').toUpperCase().replace(/[|]/g, ' ').replace(/\s+/g, ' ').trim();
const bare = (s: string): string => norm(s).replace(/ /g, '');
const digits = (s: string): string => s.replace(/[^0-9]/g, '');


interface Score { e: number; n: number; eb: number; nb: number; digitsRight: number; lines: number; ms: number[] }
const blank = (): Score => ({ e: 0, n: 0, eb: 0, nb: 0, digitsRight: 0, lines: 0, ms: [] });
const scores: Record<string, Score> = { page: blank(), tesseract: blank(), paddle: blank(), 'paddle-spaced-by-page': blank(), 'paddle-all-classes': blank() };
const add = (s: Score, read: string, truth: string): void => {
  s.e += levenshtein(norm(read), truth);
  s.n += Math.max(1, truth.length);
  s.eb += levenshtein(bare(read), truth.replace(/ /g, ''));
  s.nb += Math.max(1, truth.replace(/ /g, '').length);
  if (digits(read) === digits(truth)) s.digitsRight++;
  s.lines++;
};

const first = await devOcr(console.log, set);
const pool = createOcrPool({ workers: 1 });
await pool.start();
const paddle = await openPaddleLines();
const paddleAll = await openPaddleLines({ latinOnly: false });
let receipts = 0;
console.log(`line readers on receipts-${set}; load average ${loadavg().map((l) => fmt(l, 2)).join(' ')}`);
const examples: string[] = [];
try {
  for (const id of receiptIds(set).slice(0, limit)) {
    const r = first[id]!;
    const f0 = extractReceiptFields(r.text, r.words);
    const targets = linesToReread(r.text, r.words, f0, {}, { also: ['total', 'date', 'merchant'] });
    if (targets.length === 0) continue;
    const file = readFileSync(join(DATA[set], `${id}.jpg`));
    const page = await prepareImage(file, 'plain');
    const meta = await sharp(page).metadata();
    const orig = await sharp(file).metadata();
    if (meta.width !== orig.width || meta.height !== orig.height) continue;
    receipts++;
    const segments = annotatedSegments(set, id);
    const layout = layoutFromOcr(r.text, r.words);
    const size = { width: meta.width!, height: meta.height! };
    const pageLine = (box: OcrBox): string => layout.lines.find((l) => l.x0 === box.x0 && l.y0 === box.y0 && l.x1 === box.x1 && l.y1 === box.y1)?.text ?? '';
    const boxes = targets.map((t) => t.box);
    const t0 = performance.now();
    const tess = await rereadLines(page, size, boxes, pool);
    scores.tesseract!.ms.push(performance.now() - t0);
    const t1 = performance.now();
    const pad = await paddle.readLines(page, size, boxes);
    scores.paddle!.ms.push(performance.now() - t1);
    const padAll = await paddleAll.readLines(page, size, boxes);
    const spaced = await paddle.readLines(page, size, boxes, boxes.map((b) => wordBoxesOn(r.words ?? [], b)));
    for (const [k, t] of targets.entries()) {
      const h = t.box.y1 - t.box.y0;
      const truth = norm(annotatedTextOn(segments, t.box, t.box.x0 - 3 * h, t.box.x1 + 3 * h));
      if (!truth) continue;
      add(scores.page!, pageLine(t.box), truth);
      const tl = tess.find((l) => l.box === t.box);
      add(scores.tesseract!, tl ? tl.words.map((w) => w.text).join(' ') : pageLine(t.box), truth);
      add(scores.paddle!, pad[k]?.text ?? '', truth);
      add(scores['paddle-all-classes']!, padAll[k]?.text ?? '', truth);
      add(scores['paddle-spaced-by-page']!, spaced[k]?.text ?? '', truth);
      if (examples.length < 40 && digits(pad[k]?.text ?? '') !== digits(tl ? tl.words.map((w) => w.text).join(' ') : '')) {
        examples.push(`${id} truth "${truth}" | tess "${tl?.words.map((w) => w.text).join(' ')}" | paddle "${pad[k]?.text}" (${fmt(pad[k]?.confidence ?? 0, 0)})`);
      }
    }
    process.stdout.write('.');
  }
} finally {
  await pool.close();
  await paddle.close();
  await paddleAll.close();
}
console.log(`\n${receipts} ${set} receipts, field lines read by each reader`);
for (const [name, s] of Object.entries(scores)) {
  console.log(`  ${name.padEnd(20)} lines ${s.lines}  CER ${fmt((100 * s.e) / Math.max(1, s.n), 1)} %  CER without spaces ${fmt((100 * s.eb) / Math.max(1, s.nb), 1)} %  digits right ${fmt((100 * s.digitsRight) / Math.max(1, s.lines), 1)} %  ms per receipt median ${s.ms.length ? fmt(median(s.ms), 0) : '-'}`);
}
if (args.includes('--examples')) for (const e of examples) console.log(`  ${e}`);
