/**
 * Image preparations and tesseract settings for tesseract.js, compared on the same receipts
 * (ADR 0019): each variant reads receipts-train (tuning) and, when asked, receipts-dev
 * (confirming) with one worker, in its own child process; readings are cached per variant in
 * bench/.cache/ocr-prep-<variant>.json (delete to read again), so a run resumes and the
 * report can be printed again without reading.
 *
 * Figures per variant (scoring in lab/receipts/score.ts):
 *   - train text: character error rate against the annotated lines, verbatim lines;
 *   - fields with today's extractor (extractReceiptFields and the committed weights) on train
 *     and dev. The committed ranker was trained on train's `base` readings, which flatters
 *     `base` on train; so also
 *   - train fields by merchant-grouped cross-validation of the ranker retrained on the
 *     annotated boxes + this variant's train readings (what retraining on it would give), and
 *     dev fields of that retrained model;
 *   - seconds per receipt for one worker (preparation + reading), median and p95, with the
 *     load average while it read.
 *
 *   node --import tsx bench/ocr-prep.ts [--variants a,b] [--sets train,dev] [--every K] [--limit N] [--ids FILE] [--report] [--no-cv]
 *        [--pipeline first+retry1,retry2@confidence ...]
 *
 * `--pipeline base+ink,x15@30`: the product's reading put together from the cached readings
 * (read-receipt.ts): the first reading's fields, and when they are doubtful (needsAnotherReading,
 * or a digit word under that tesseract confidence on the total's or date's line:
 * lab/ocr/doubtful-words.ts doubtfulFieldWords; @0 for the first test only) the retry readings' fields voted
 * with them (combineReadings); seconds per receipt = the cached times of the readings taken.
 * Retry readings are only needed for the receipts that are doubtful (`--ids`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { OcrResult } from '../domain/src/receipts/types';
import { OCR_PREPARATIONS, readWithPreparation } from '../lab/ocr/preparations';
import type { LabPreparation } from '../lab/ocr/preparations';
import { prepareLabSteps } from '../lab/ocr/prepare-steps';
import { fmt, median, percentile, row } from './lib';
import { DATA, fieldsRight, judgeFields, label, mean, pct, receiptIds, textScore } from '../lab/receipts/score';
import type { FieldsRight, SetName } from '../lab/receipts/score';

const CACHE_DIR = join(import.meta.dirname, '.cache');

interface Reading {
  set: SetName;
  ocr: OcrResult;
  ms: number;
  load: number;
  /** Readings taken (a second one when the first was doubtful). */
  passes?: number;
  /** Copied from `base` (the page went through unchanged). */
  reused?: boolean;
}

interface VariantCache {
  readings: Record<string, Reading>;
}

/**
 * Without arguments (`make bench`): the kept first reading against the best-scoring scaling on
 * train, then the product's readings put together from whatever retry readings are cached.
 */
const DEFAULT_ARGS = ['--variants', 'base,up22', '--sets', 'train', '--no-cv'];
const DEFAULT_PIPELINES = ['base+ink,contrast@0', 'base+ink,x15@0', 'base+ink,x15@30'];
const args = process.argv.length > 2 ? process.argv.slice(2) : DEFAULT_ARGS;
const byDefault = process.argv.length <= 2;
const argValue = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const variantNames = (argValue('--variants') ?? Object.keys(OCR_PREPARATIONS).join(',')).split(',').filter(Boolean);
const sets = (argValue('--sets') ?? 'train').split(',') as SetName[];
const limit = Number(argValue('--limit')) || Infinity;
/** Every k-th receipt of each set only (a quicker screening on a busy machine). */
const every = Number(argValue('--every')) || 1;
/** Only the receipts listed in this file (one id a line), e.g. those whose first reading is doubtful. */
const only = argValue('--ids') ? new Set(readFileSync(argValue('--ids')!, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean)) : undefined;
const pick = (ids: readonly string[]): string[] => ids.filter((id, i) => i % every === 0 && (!only || only.has(id))).slice(0, limit);

function cacheFile(variant: string): string {
  return join(CACHE_DIR, `ocr-prep-${variant}.json`);
}

function loadCache(variant: string): VariantCache {
  const file = cacheFile(variant);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) as VariantCache : { readings: {} };
}

function preparation(name: string): LabPreparation {
  const p = OCR_PREPARATIONS[name];
  if (!p) throw new Error(`unknown variant ${name}; known: ${Object.keys(OCR_PREPARATIONS).join(', ')}`);
  return p;
}

/** Child process: reads the receipts of `sets` missing from the variant's cache, saving after each. */
async function readVariant(name: string): Promise<void> {
  const prep = preparation(name);
  const cache = loadCache(name);
  const missing = sets.flatMap((set) => pick(receiptIds(set)).map((id) => ({ set, id }))).filter((r) => !cache.readings[r.id]);
  if (missing.length === 0) return;
  const { createOcrPool } = await import('../infra/src/ocr/pool');
  const pool = createOcrPool({ workers: 1 });
  await pool.start();
  mkdirSync(CACHE_DIR, { recursive: true });
  try {
    const base = loadCache('base');
    for (const r of missing) {
      // A preparation that hands most pages over as they are reads those exactly like `base`:
      // its cached reading is taken (time: the base reading's plus the preparation's check).
      if (typeof prep.image !== 'string' && prep.image.plainUnlessScaled && base.readings[r.id] && !prep.parameters) {
        const t0 = performance.now();
        const p = await prepareLabSteps(readFileSync(join(DATA[r.set], `${r.id}.jpg`)), prep.image);
        if (p.plain) {
          cache.readings[r.id] = { ...base.readings[r.id]!, ms: base.readings[r.id]!.ms + performance.now() - t0, reused: true };
          writeFileSync(cacheFile(name), JSON.stringify(cache));
          process.stdout.write(',');
          continue;
        }
      }
      const t = performance.now();
      const reading = await readWithPreparation(readFileSync(join(DATA[r.set], `${r.id}.jpg`)), pool, prep);
      cache.readings[r.id] = { set: r.set, ocr: reading.ocr, ms: performance.now() - t, load: loadavg()[0]!, passes: reading.passes };
      writeFileSync(cacheFile(name), JSON.stringify(cache));
      process.stdout.write('.');
    }
  } finally {
    await pool.close();
    process.stdout.write('\n');
  }
}

interface CvFigures {
  train: FieldsRight[];
  dev: FieldsRight[];
}

/** The ranker retrained on the boxes + this variant's train readings: grouped CV on train, and dev. */
async function crossValidated(cache: VariantCache): Promise<CvFigures | null> {
  const { layoutFromBoxesCsv, layoutFromOcr } = await import('../domain/src/receipts/learned/layout');
  const { pickFields, combineFields } = await import('../domain/src/receipts/learned/model');
  const { prepare, trainModel, isRight, valueOf } = await import('../lab/receipts/train');
  type Example = Parameters<typeof prepare>[0];
  const trainIds = pick(receiptIds('train')).filter((id) => cache.readings[id]);
  if (trainIds.length < 20) return null;
  const examples: Example[] = trainIds.map((id) => ({ id: `${id}:boxes`, label: label('train', id), layout: layoutFromBoxesCsv(readFileSync(join(DATA.train, `${id}.boxes.csv`), 'utf8')) }));
  for (const id of trainIds) {
    const ocr = cache.readings[id]!.ocr;
    examples.push({ id: `${id}:ocr`, label: label('train', id), layout: layoutFromOcr(ocr.text, ocr.words), text: ocr.text });
  }
  const prepared = examples.map(prepare);
  const { model, cv } = trainModel(prepared, 5, {});
  const byId = new Map(prepared.map((p) => [p.example.id, p]));
  const judge = (p: (typeof prepared)[number], learned: ReturnType<typeof pickFields>): FieldsRight => {
    const fields = combineFields(learned, p.rules);
    return {
      total: isRight('total', p.example.label, valueOf('total', fields)),
      date: isRight('date', p.example.label, valueOf('date', fields)),
      merchant: isRight('merchant', p.example.label, valueOf('merchant', fields)),
    };
  };
  const train = cv.oof.filter((o) => o.id.endsWith(':ocr')).map((o) => judge(byId.get(o.id)!, o.fields));
  const devIds = sets.includes('dev') ? pick(receiptIds('dev')).filter((id) => cache.readings[id]) : [];
  const dev = devIds.map((id) => {
    const ocr = cache.readings[id]!.ocr;
    const p = prepare({ id, label: label('dev', id), layout: layoutFromOcr(ocr.text, ocr.words), text: ocr.text });
    return judge(p, pickFields(model, p.candidates));
  });
  return { train, dev };
}

function shares(judged: readonly FieldsRight[]): string {
  const s = (k: keyof FieldsRight): string => pct(judged.filter((j) => j[k]).length / judged.length);
  return `${s('total')} / ${s('date')} / ${s('merchant')}`;
}

async function report(name: string): Promise<void> {
  const cache = loadCache(name);
  const wanted = new Set(sets.flatMap((set) => pick(receiptIds(set))));
  const readings = Object.entries(cache.readings).filter(([id]) => wanted.has(id));
  if (readings.length === 0) {
    console.log(`${name}: nothing read`);
    return;
  }
  const train = readings.filter(([, r]) => r.set === 'train');
  const dev = readings.filter(([, r]) => r.set === 'dev');
  console.log(`${name}: ${train.length} train + ${dev.length} dev receipts read`);
  const texts = train.flatMap(([id, r]) => { const s = textScore(id, r.ocr); return s ? [s] : []; });
  if (texts.length) {
    row('  train text: character error rate / lines verbatim', `${pct(mean(texts.map((t) => t.cer)))} / ${pct(mean(texts.map((t) => t.linesFound)))}`);
  }
  for (const [set, rs] of [['train', train], ['dev', dev]] as const) {
    if (rs.length === 0) continue;
    row(`  ${set} fields, today's extractor: total / date / merchant`, shares(rs.map(([id, r]) => fieldsRight(set, id, r.ocr))));
  }
  if (!args.includes('--no-cv')) {
    const cv = await crossValidated(cache);
    if (cv) {
      row('  train fields, ranker retrained, grouped 5-fold CV', shares(cv.train));
      if (cv.dev.length) row('  dev fields, ranker retrained on train', shares(cv.dev));
    }
  }
  for (const [set, rs] of [['train', train], ['dev', dev]] as const) {
    if (rs.length === 0) continue;
    const seconds = rs.map(([, r]) => r.ms / 1000);
    const passes = rs.reduce((n, [, r]) => n + (r.passes ?? 1), 0) / rs.length;
    row(`  ${set} s/receipt, one worker: median / p95`, `${fmt(median(seconds), 2)} / ${fmt(percentile(seconds, 95), 2)}`,
      `readings/receipt ${fmt(passes, 2)}; load average while reading ${fmt(median(rs.map(([, r]) => r.load)), 1)}`);
  }
}

/** The product's reading from cached readings (see the header). */
async function pipeline(spec: string): Promise<void> {
  const { combineReadings, extractReceiptFields, needsAnotherReading } = await import('../domain/src/receipts/index');
  const { doubtfulFieldWords } = await import('../lab/ocr/doubtful-words');
  const [, firstName, retryList, threshold] = /^([^+@]+)\+?([^@]*)@?(\d*)$/.exec(spec) ?? [];
  if (!firstName) throw new Error(`--pipeline ${spec}: want first+retry1,retry2@confidence`);
  const first = loadCache(firstName);
  const retries = (retryList ?? '').split(',').filter(Boolean).map(loadCache);
  const th = Number(threshold || 0);
  console.log(`pipeline ${spec}: first reading ${firstName}, retries [${retryList}], word confidence ${th || 'not used'}`);
  for (const set of sets) {
    const judged: FieldsRight[] = [];
    const seconds: number[] = [];
    const loads: number[] = [];
    let retried = 0;
    let missing = 0;
    for (const id of pick(receiptIds(set))) {
      const r = first.readings[id];
      if (!r) { missing++; continue; }
      const f0 = extractReceiptFields(r.ocr.text, r.ocr.words);
      let fields = f0;
      let ms = r.ms;
      loads.push(r.load);
      if (retries.length > 0 && (needsAnotherReading(f0) || (th > 0 && doubtfulFieldWords(f0, r.ocr.words ?? [], th)))) {
        const more = retries.map((c) => c.readings[id]);
        if (more.some((m) => !m)) { missing++; continue; }
        retried++;
        fields = combineReadings([f0, ...more.map((m) => extractReceiptFields(m!.ocr.text, m!.ocr.words))]);
        ms += more.reduce((sum, m) => sum + m!.ms, 0);
      }
      judged.push(judgeFields(label(set, id), fields));
      seconds.push(ms / 1000);
    }
    if (judged.length === 0) continue;
    row(`  ${set} fields total / date / merchant`, shares(judged), `${judged.length} receipts${missing ? `, ${missing} without the readings needed` : ''}`);
    row(`  ${set} receipts read again / s per receipt median, p95`, `${retried} / ${fmt(median(seconds), 2)}, ${fmt(percentile(seconds, 95), 2)}`,
      `load average while reading ${fmt(median(loads), 1)}`);
  }
}

const single = argValue('--variant');
const pipelines = args.flatMap((a, i) => (a === '--pipeline' ? [args[i + 1]!] : []));
if (single) {
  await readVariant(single);
} else if (pipelines.length > 0) {
  console.log(`OCR readings put together as the product takes them (cached readings); load average now ${loadavg().map((l) => fmt(l, 2)).join(' ')}`);
  for (const spec of pipelines) await pipeline(spec);
} else {
  console.log(`OCR preparations for tesseract.js, one worker; load average now ${loadavg().map((l) => fmt(l, 2)).join(' ')}`);
  for (const name of variantNames) {
    preparation(name);
    if (!args.includes('--report')) {
      const child = spawnSync(process.execPath, [...process.execArgv, import.meta.filename, '--variant', name, ...args], { stdio: 'inherit' });
      if (child.status !== 0) console.log(`${name}: reading stopped (exit ${child.status ?? child.signal}); figures below cover what was read`);
    }
    await report(name);
  }
  if (byDefault) {
    console.log('the product\'s readings put together from cached readings (retry readings of doubtful receipts: --ids; see the header)');
    for (const spec of DEFAULT_PIPELINES) await pipeline(spec);
  }
}
