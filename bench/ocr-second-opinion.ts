/**
 * When tesseract.js is asked for a second opinion on a PP-OCRv5 reading (infra/src/ocr/
 * read-primary.ts SECOND_OPINION_BELOW), from the cached first readings of both engines
 * (bench/.cache/ocr-<set>-ppocr.json and ocr-<set>-raw.json, filled with one worker on first
 * use): each receipt's fields from PP-OCRv5 alone, tesseract.js alone, and the two voted
 * (combineReadings) when a field of PP-OCRv5's is under a threshold, with how many receipts asked.
 * Train: each receipt extracted by the ranker of the merchant-grouped fold it was held out of
 * (where the threshold is chosen); dev: the committed ranker, never tuned on. No company period
 * (the pipeline's date check is not in these figures).
 *
 *   node --import tsx bench/ocr-second-opinion.ts [--sets train,dev]
 * (PPOCR_CONTRAST=stretch|clahe: PP-OCRv5 readings of the page with its contrast evened instead.)
 * `--third stretch|clahe`: also a third reading, PP-OCRv5 on the page with its contrast evened,
 * voted in where the two readings' vote still needs another (combine.ts needsAnotherReading).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { combineReadings, extractReceiptFields, merchantSimilarity, needsAnotherReading } from '../domain/src/receipts/index';
import type { ReceiptModel } from '../domain/src/receipts/learned/model';
import type { OcrResult, ReceiptFields } from '../domain/src/receipts/types';
import { foldModels } from '../lab/receipts/folds';
import { DEV_DATA, devOcr, TRAIN_DATA } from '../lab/receipts/ocr-cache';
import { fmt } from './lib';

const args = process.argv.slice(2);
const sets = (args.includes('--sets') ? args[args.indexOf('--sets') + 1]! : 'train,dev').split(',') as Array<'train' | 'dev'>;
const FIELDS = ['total', 'date', 'merchant'] as const;
const third = args.includes('--third') ? args[args.indexOf('--third') + 1] : undefined;

interface Label { id: string; merchant: string; date: string; total: number }

const below = (f: ReceiptFields, at: number): boolean => FIELDS.some((k) => (f[k]?.confidence ?? 0) < at);
const right = (l: Label, f: ReceiptFields): [boolean, boolean, boolean] => [
  f.total !== null && Math.abs(f.total.cents - Math.round(l.total * 100)) <= 1,
  f.date?.value === l.date,
  f.merchant !== null && merchantSimilarity(f.merchant.value, l.merchant) >= 0.8,
];

for (const set of sets) {
  const dir = set === 'dev' ? DEV_DATA : TRAIN_DATA;
  const labels = readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Label);
  const pp: Record<string, OcrResult> = await devOcr(console.log, set, { engine: 'ppocr' });
  const tess: Record<string, OcrResult> = await devOcr(console.log, set);
  const folds: Map<string, ReceiptModel> | undefined = set === 'train'
    ? foldModels(dir, labels, await devOcr(() => undefined, 'train'), 5, await devOcr(() => undefined, 'train', { engine: 'ppocr' }))
    : undefined;
  const evened: Record<string, OcrResult> | undefined = third
    ? await devOcr(console.log, set, { engine: 'ppocr', cacheFile: join(import.meta.dirname, '.cache', `ocr-${set}-ppocr-${third}.json`) })
    : undefined;
  const rows = labels.map((l) => {
    const model = folds?.get(l.id);
    const read = (r: OcrResult): ReceiptFields => (model ? extractReceiptFields(r.text, r.words, {}, model) : extractReceiptFields(r.text, r.words));
    return { l, p: read(pp[l.id]!), t: read(tess[l.id]!), e: evened ? read(evened[l.id]!) : null };
  });
  const policies: Array<[string, (p: ReceiptFields) => boolean]> = [
    ['PP-OCRv5 alone', () => false],
    ...[0.5, 0.6, 0.8, 0.9, 0.95].map((at): [string, (p: ReceiptFields) => boolean] => [`vote when a field < ${at}`, (p) => below(p, at)]),
    ['vote on every receipt', () => true],
  ];
  console.log(`  ${set} (${labels.length} receipts${folds ? ', each by its held-out fold\'s ranker' : ', committed ranker'}): total / date / merchant right, receipts that asked tesseract`);
  const show = (name: string, fields: (r: typeof rows[number]) => ReceiptFields, asked: number): void => {
    const n = [0, 1, 2].map((k) => rows.filter((r) => right(r.l, fields(r))[k]).length);
    console.log(`    ${name.padEnd(26)} ${n.map((x) => `${fmt((100 * x) / rows.length, 1).padStart(5)} %`).join(' / ')}   ${asked}`);
  };
  show('tesseract.js alone', (r) => r.t, rows.length);
  for (const [name, ask] of policies) show(name, (r) => (ask(r.p) ? combineReadings([r.p, r.t]) : r.p), rows.filter((r) => ask(r.p)).length);
  if (evened) {
    const two = (r: typeof rows[number]): ReceiptFields => (below(r.p, 0.9) ? combineReadings([r.p, r.t]) : r.p);
    const asks = (r: typeof rows[number]): boolean => needsAnotherReading(two(r));
    show(`< 0.9, then ${third} if needed`, (r) => (asks(r) ? combineReadings([r.p, r.t, r.e!]) : two(r)), rows.filter(asks).length);
    show(`${third} alone`, (r) => r.e!, 0);
  }
}
