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
 *        [--limit N] [--boxes-only] [--no-dev] [--augment] [--errors]
 *
 *   --write       write domain/src/receipts/learned/weights.json (or --out FILE)
 *   --limit N     only the first N train receipts (by id), e.g. for a quick test
 *   --boxes-only  train on the annotated boxes only; by default the train receipts' own
 *                 tesseract.js reading (bench/.cache/ocr-train-raw.json, filled on first
 *                 use) is added, so the model and its confidence also see OCR slips
 *   --engine E    which OCR readings of train are trained on beside the boxes: tesseract, ppocr
 *                 (PP-OCRv5, bench/.cache/ocr-train-ppocr.json) or both (default); the dev figure
 *                 is printed for each engine trained on
 *   --no-dev      skip the dev figure (no OCR needed)
 *   --augment     add train-only copies of the annotated receipts whose printed total is lost
 *                 or misread (lab/receipts/augment.ts); off by default: it changed no answer on
 *                 cross-validation (ADR 0026, "ranking gap")
 *   --errors      list, for the out-of-fold readings (annotated text, then tesseract.js), each field whose right value was among the candidates but not wired: the
 *                 chosen and the right candidate, their scores and the features that differ
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isOcrExample, trainExamples } from '../lab/receipts/folds';
import { slipTotal } from '../lab/receipts/augment';
import { layoutFromOcr } from '../domain/src/receipts/learned/layout';
import type { Candidate } from '../domain/src/receipts/learned/candidates';
import { combineFields, CONFIDENT_AT, FIELD_POLICY, LEARNED_FIELDS, pickFields } from '../domain/src/receipts/learned/model';
import type { LearnedFields } from '../domain/src/receipts/learned/model';
import { score } from '../domain/src/receipts/learned/ranker';
import { isRight, policyReport, prepare, trainModel, valueOf } from '../lab/receipts/train';
import type { Example, Prepared, ReceiptLabel } from '../lab/receipts/train';

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
const withErrors = args.includes('--errors');
const augment = args.includes('--augment');
const engine = arg('--engine') ?? 'both';
if (!['tesseract', 'ppocr', 'both'].includes(engine)) throw new Error(`--engine ${engine}: tesseract, ppocr or both`);
const engines = (['tesseract', 'ppocr'] as const).filter((e) => withOcr && (engine === 'both' || engine === e));
const SOURCE = { tesseract: ':ocr', ppocr: ':ppocr' } as const;
const ENGINE_NAME = { tesseract: 'tesseract.js', ppocr: 'PP-OCRv5' } as const;

type Label = ReceiptLabel & { id: string };

function labels(dir: string): Label[] {
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Label);
}

async function ocrOf(set: 'dev' | 'train', which: 'tesseract' | 'ppocr' = 'tesseract'): Promise<Record<string, { text: string; words?: Array<{ text: string; confidence: number; bbox?: { x0: number; y0: number; x1: number; y1: number } }> }>> {
  const { devOcr } = await import('../lab/receipts/ocr-cache');
  return devOcr((line) => console.log(line), set, { engine: which });
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
const examples: Example[] = trainExamples(TRAIN, trainLabels, engines.includes('tesseract') ? await ocrOf('train') : undefined, engines.includes('ppocr') ? await ocrOf('train', 'ppocr') : undefined);
if (augment) {
  // Train-only copies of the annotated receipts with the printed total lost or misread (augment.ts).
  for (const e of examples.filter((x) => x.id.endsWith(':boxes'))) {
    for (const slip of ['lost', 'misread'] as const) {
      const layout = slipTotal(e.layout, Math.round(e.label.total * 100), slip);
      if (layout) examples.push({ id: `${e.id.replace(/:boxes$/, '')}:${slip}`, label: e.label, layout, trainOnly: true, fields: ['total'] });
    }
  }
}
const prepared: Prepared[] = examples.map(prepare);
// The confident mark is held on the OCR readings when there are some: that is what the model reads at run time.
const { model, cv } = trainModel(prepared, folds, {}, `receipts-train: ${trainLabels.length} receipts, annotated boxes${engines.map((e) => ` + ${ENGINE_NAME[e]} OCR`).join('')}${augment ? ' + simulated total slips' : ''}`,
  { holdTo: withOcr ? isOcrExample : undefined, target: 0.97 });

console.log(`Receipt field model: ${model.trainedOn}; ${folds}-fold cross-validation grouped by merchant`);
const byId = new Map(prepared.map((p) => [p.example.id, p]));
const cvRows = (source: string): Row[] => cv.oof.filter((o) => o.id.endsWith(source))
  .map((o) => ({ label: byId.get(o.id)!.example.label, learned: o.fields, rules: byId.get(o.id)!.rules }));
printReport('cross-validation on train, all inputs', cvRows(''));
if (withOcr) {
  printReport('cross-validation on train, annotated boxes', cvRows(':boxes'));
  for (const e of engines) printReport(`cross-validation on train, ${ENGINE_NAME[e]} OCR`, cvRows(SOURCE[e]));
}

if (withErrors) {
  // Ranking errors, not OCR's: the right value is a candidate, the wired reading is not it.
  const show = (v: unknown): string => JSON.stringify(v);
  for (const source of [':boxes', ...engines.map((e) => SOURCE[e])]) for (const field of LEARNED_FIELDS) {
    console.log(`\n  ${field}: right candidate present but not wired (out-of-fold, ${source.slice(1)})`);
    let present = 0;
    let lost = 0;
    for (const o of cv.oof.filter((x) => x.id.endsWith(source))) {
      const p = byId.get(o.id)!;
      const label = p.example.label;
      const list = p.candidates[field] as ReadonlyArray<Candidate<unknown>>;
      if (!list.some((c) => isRight(field, label, c.value))) continue;
      present++;
      const wired = combineFields(o.fields, p.rules);
      if (isRight(field, label, valueOf(field, wired))) continue;
      lost++;
      const w = cv.models[o.fold]!.fields[field].weights;
      const scored = list.map((c) => ({ c, s: score(w, c.features) })).sort((a, b) => b.s - a.s);
      const top = scored[0]!;
      const right = scored.find((x) => isRight(field, label, x.c.value))!;
      const line = (c: Candidate<unknown>): string => (c.line >= 0 ? p.example.layout.lines[c.line]!.text : '(no line)');
      console.log(`  - ${o.id}: wired ${show(valueOf(field, wired))} (learned ${show(valueOf(field, o.fields))} conf ${o.fields[field]?.confidence ?? '-'}, rules ${show(valueOf(field, p.rules))}), right ${show(field === 'total' ? Math.round(label.total * 100) : field === 'date' ? label.date : label.merchant)}`);
      console.log(`      top   ${top.s.toFixed(2).padStart(6)} ${show(top.c.value)} line ${top.c.line}: ${show(line(top.c))}`);
      console.log(`      right ${right.s.toFixed(2).padStart(6)} ${show(right.c.value)} line ${right.c.line}: ${show(line(right.c))} (rank ${scored.indexOf(right) + 1}/${scored.length})`);
      const keys = [...new Set([...Object.keys(top.c.features), ...Object.keys(right.c.features)])].sort();
      const diff = keys.filter((k) => (top.c.features[k] ?? 0) !== (right.c.features[k] ?? 0))
        .map((k) => `${k} ${(top.c.features[k] ?? 0).toFixed(2)}/${(right.c.features[k] ?? 0).toFixed(2)} (w ${(w[k] ?? 0).toFixed(2)})`);
      console.log(`      top/right: ${diff.join(', ')}`);
    }
    console.log(`  ${field}: right value among the candidates of ${present}, wired reading misses ${lost} of them`);
    // Where the ranker and the rules disagree: who is right, and how sure the ranker was.
    for (const o of cv.oof.filter((x) => x.id.endsWith(source))) {
      const p = byId.get(o.id)!;
      const l = valueOf(field, o.fields);
      const r = valueOf(field, p.rules);
      if (String(l).toUpperCase() === String(r).toUpperCase()) continue;
      const lr = isRight(field, p.example.label, l);
      const rr = isRight(field, p.example.label, r);
      console.log(`    disagree ${o.id}: learned ${lr ? 'RIGHT' : 'wrong'} ${show(l)} conf ${o.fields[field]?.confidence ?? '-'}; rules ${rr ? 'RIGHT' : 'wrong'} ${show(r)}`);
    }
  }
}

if (withDev) {
  for (const e of engines.length > 0 ? engines : ['tesseract' as const]) {
    const ocr = await ocrOf('dev', e);
    const dev = labels(DEV).flatMap((l) => (ocr[l.id] ? [prepare({ id: l.id, label: l, layout: layoutFromOcr(ocr[l.id]!.text, ocr[l.id]!.words), text: ocr[l.id]!.text })] : []));
    printReport(`dev, ${ENGINE_NAME[e]} OCR (first reading), never trained on`, dev.map((p) => ({ label: p.example.label, learned: pickFields(model, p.candidates), rules: p.rules })));
  }
}

if (out) {
  writeFileSync(out, `${JSON.stringify(model, null, 2)}\n`);
  console.log(`  wrote ${out}`);
}
