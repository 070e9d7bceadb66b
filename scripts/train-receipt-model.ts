/**
 * Columns: rules = today's rule-based extraction alone; learned = the ranker's pick; rules+ =
 * the rules, the ranker where the rules find nothing; fallback = the ranker when confident,
 * else the rules; wired = the policy extractReceiptFields uses (FIELD_POLICY in model.ts).
 *
 * Trains the learned receipt-field ranker on ../shared/data/receipts-train and prints
 * merchant-grouped cross-validation next to today's rules on the same inputs, then the dev
 * figure on cached OCR output (bench/.cache/ocr-dev-raw.json, filled on first use).
 * Deterministic: the same inputs give the same weights byte for byte.
 *
 *   node --import tsx scripts/train-receipt-model.ts [--write] [--out FILE] [--folds 5]
 *        [--limit N] [--boxes-only] [--no-dev]
 *
 *   --write       write domain/src/receipts/learned/weights.json (or --out FILE)
 *   --limit N     only the first N train receipts (by id), e.g. for a quick test
 *   --boxes-only  train on the annotated boxes only; by default the train receipts' own
 *                 tesseract.js reading (bench/.cache/ocr-train-raw.json, filled on first
 *                 use) is added, so the model and its confidence also see OCR slips
 *   --no-dev      skip the dev figure (no OCR needed)
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { layoutFromBoxesCsv, layoutFromOcr } from '../domain/src/receipts/learned/layout';
import { CONFIDENT_AT, FIELD_POLICY, LEARNED_FIELDS, pickFields } from '../domain/src/receipts/learned/model';
import type { LearnedFields } from '../domain/src/receipts/learned/model';
import { policyReport, prepare, trainModel } from '../domain/src/receipts/learned/train';
import type { Example, Prepared, ReceiptLabel } from '../domain/src/receipts/learned/train';

const ROOT = join(import.meta.dirname, '..');
const TRAIN = join(ROOT, '..', 'shared', 'data', 'receipts-train');
const DEV = join(ROOT, '..', 'shared', 'data', 'receipts-dev');
const WEIGHTS = join(ROOT, 'domain', 'src', 'receipts', 'learned', 'weights.json');

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const folds = Number(arg('--folds') ?? 5);
const limit = arg('--limit') === undefined ? Infinity : Number(arg('--limit'));
const out = arg('--out') ?? (args.includes('--write') ? WEIGHTS : undefined);
const withOcr = !args.includes('--boxes-only');
const withDev = !args.includes('--no-dev');

type Label = ReceiptLabel & { id: string };

function labels(dir: string): Label[] {
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Label);
}

async function ocrOf(set: 'dev' | 'train'): Promise<Record<string, { text: string; words?: Array<{ text: string; confidence: number; bbox?: { x0: number; y0: number; x1: number; y1: number } }> }>> {
  const { devOcr } = await import('../bench/dev-ocr-cache');
  return devOcr((line) => console.log(line), set);
}

const pct = (n: number, d: number): string => (d === 0 ? '   -   ' : `${(100 * n / d).toFixed(1).padStart(5)} %`);

type Row = { label: ReceiptLabel; learned: LearnedFields; rules: LearnedFields };

function printReport(title: string, rows: readonly Row[]): void {
  const r = policyReport(rows);
  const n = rows.length;
  console.log(`  ${title} (${n} receipts)`);
  console.log(`    ${'field'.padEnd(9)} ${'rules'.padStart(8)} ${'learned'.padStart(8)} ${'rules+'.padStart(8)} ${'fallback'.padStart(8)}   wired   confident: right / coverage`);
  for (const f of LEARNED_FIELDS) {
    const x = r[f];
    console.log(`    ${f.padEnd(9)} ${pct(x.right.rulesAlone, n)} ${pct(x.right.learned, n)} ${pct(x.right.rules, n)} ${pct(x.right.fallback, n)}   ${FIELD_POLICY[f].padEnd(8)}  ${pct(x.confidentRight, x.confident)} / ${pct(x.confident, n)}`);
  }
  const c = LEARNED_FIELDS.reduce((s, f) => s + r[f].confident, 0);
  const cr = LEARNED_FIELDS.reduce((s, f) => s + r[f].confidentRight, 0);
  console.log(`    wired fields marked confident (>= ${CONFIDENT_AT}): ${pct(cr, c)} right (${cr}/${c}), coverage ${pct(c, n * LEARNED_FIELDS.length)}`);
}

const trainLabels = labels(TRAIN).slice(0, limit);
const examples: Example[] = trainLabels.map((l) => ({
  id: `${l.id}:boxes`,
  label: l,
  layout: layoutFromBoxesCsv(readFileSync(join(TRAIN, `${l.id}.boxes.csv`), 'utf8')),
}));
if (withOcr) {
  const ocr = await ocrOf('train');
  for (const l of trainLabels) {
    const r = ocr[l.id];
    if (r) examples.push({ id: `${l.id}:ocr`, label: l, layout: layoutFromOcr(r.text, r.words), text: r.text });
  }
}
const prepared: Prepared[] = examples.map(prepare);
// The confident mark is held on the OCR readings when there are some: that is what the model reads at run time.
const { model, cv } = trainModel(prepared, folds, {}, `receipts-train: ${trainLabels.length} receipts, ${withOcr ? 'annotated boxes + tesseract.js OCR' : 'annotated boxes'}`,
  { holdTo: withOcr ? (id) => id.endsWith(':ocr') : undefined, target: 0.97 });

console.log(`Receipt field model: ${model.trainedOn}; ${folds}-fold cross-validation grouped by merchant`);
const byId = new Map(prepared.map((p) => [p.example.id, p]));
const cvRows = (source: string): Row[] => cv.oof.filter((o) => o.id.endsWith(source))
  .map((o) => ({ label: byId.get(o.id)!.example.label, learned: o.fields, rules: byId.get(o.id)!.rules }));
printReport('cross-validation on train, all inputs', cvRows(''));
if (withOcr) {
  printReport('cross-validation on train, annotated boxes', cvRows(':boxes'));
  printReport('cross-validation on train, tesseract.js OCR', cvRows(':ocr'));
}

if (withDev) {
  const ocr = await ocrOf('dev');
  const dev = labels(DEV).flatMap((l) => (ocr[l.id] ? [prepare({ id: l.id, label: l, layout: layoutFromOcr(ocr[l.id]!.text, ocr[l.id]!.words), text: ocr[l.id]!.text })] : []));
  printReport('dev, tesseract.js OCR (first plain reading), never trained on', dev.map((p) => ({ label: p.example.label, learned: pickFields(model, p.candidates), rules: p.rules })));
}

if (out) {
  writeFileSync(out, `${JSON.stringify(model, null, 2)}\n`);
  console.log(`  wrote ${out}`);
}
