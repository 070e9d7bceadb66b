/**
 * Receipt OCR and field extraction on the 40 SROIE dev receipts (`../shared/data/receipts-dev`):
 * readReceipt with the tesseract.js worker pool, fields compared with the labels.
 *
 *   - total: correct within 0.01;
 *   - date: exact ISO date;
 *   - merchant: fuzzy, because labels keep OCR typos and legal suffixes vary: both names are
 *     normalised (upper case, punctuation removed, SDN BHD / S/B / LTD … dropped) and match
 *     when the Levenshtein ratio or the token-set similarity is at least 0.8
 *     (domain/src/receipts/merchant-similarity.ts).
 *
 * Timing: receipts run `workers` at a time, so each receipt holds one worker and its time is
 * the worker time it costs ("per worker"); wall time over receipts is the pool's rate.
 * Goals (ADR 0019, on held-out merchants): total >= 95 %, date >= 97 %, merchant >= 90 %, fields
 * marked confident right >= 97 %, median <= 2 s per receipt per worker.
 * Writes bench/.cache/ocr-extracted.json (receipt id -> merchant, date, totalCents) for
 * bench/matching.ts.
 *
 *   node --import tsx bench/ocr.ts [--set train [--cv]] [--workers N] [--no-retry] [--no-lines] [--no-second] [--no-period] [--verbose] [--limit N]
 * (`--no-lines`: without the targeted re-reading of the doubtful fields' lines, read-receipt.ts;
 * `--no-retry` turns off both that and the page retry readings.)
 * (`--limit N`: the first N receipts only, e.g. a timing taken when the machine is quieter;
 * the cache for bench/matching.ts is then not written.)
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { extractReceiptFields, linesToReread, merchantSimilarity } from '../domain/src/receipts/index';
import { CONFIDENT_AT } from '../domain/src/receipts/learned/model';
import { createOcrPool } from '../infra/src/ocr/pool';
import { createPpocrHost } from '../infra/src/ocr/ppocr-host';
import { readReceipt } from '../infra/src/ocr/read-receipt';
import { offThread } from '../infra/src/workers/off-thread';
import { WorkerPool } from '../infra/src/workers/pool';
import type { ReadReceiptOptions, ReceiptReading } from '../infra/src/ocr/read-receipt';
import { fmt, median, percentile, row } from './lib';
import { statementPeriod } from '../lab/receipts/score';
import { devOcr } from '../lab/receipts/ocr-cache';
import { foldModels } from '../lab/receipts/folds';

const args = process.argv.slice(2);
/** `--set train`: the 91 train receipts instead (the whole pipeline on receipts the dev figures never saw; fields cached apart). */
const SET = args.includes('--set') && args[args.indexOf('--set') + 1] === 'train' ? 'train' : 'dev';
const DATA = join(import.meta.dirname, '..', '..', 'shared', 'data', `receipts-${SET}`);
const CACHE_DIR = join(import.meta.dirname, '.cache');
const MERCHANT_THRESHOLD = 0.8;
const GOALS = { total: 0.95, date: 0.97, merchant: 0.9, confident: 0.97, medianSeconds: 2 };

const workers = Number(args[args.indexOf('--workers') + 1]) || availableParallelism();
const retry = !args.includes('--no-retry');
const lines = !args.includes('--no-lines');
/** `--second-all`: the second line reader reads every re-read line, not only a still doubtful field's (read-receipt.ts `secondFor`). */
const secondFor = args.includes('--second-all') ? 'all' as const : 'doubtful' as const;
const verbose = args.includes('--verbose');
const limit = args.includes('--limit') ? Number(args[args.indexOf('--limit') + 1]) : Infinity;
/** `--tess name=value` (repeatable): a tesseract variable set on every worker, to measure one against the defaults. */
const tessParameters: Record<string, string> = Object.fromEntries(args.flatMap((a, i) => (a === '--tess' && args[i + 1]?.includes('=') ? [args[i + 1]!.split('=', 2) as [string, string]] : [])));

interface Label {
  id: string;
  merchant: string;
  date: string;
  total: number;
}

interface Outcome {
  label: Label;
  reading: ReceiptReading;
  total: boolean;
  date: boolean;
  merchant: boolean;
}

function labels(): Label[] {
  return readdirSync(DATA).filter((f) => f.endsWith('.json')).sort()
    .map((f) => JSON.parse(readFileSync(join(DATA, f), 'utf8')) as Label);
}

function judge(label: Label, reading: ReceiptReading): Outcome {
  const f = reading.fields;
  return {
    label,
    reading,
    total: f.total !== null && Math.abs(f.total.cents - Math.round(label.total * 100)) <= 1,
    date: f.date?.value === label.date,
    merchant: f.merchant !== null && merchantSimilarity(f.merchant.value, label.merchant) >= MERCHANT_THRESHOLD,
  };
}

/** Runs the receipts `concurrency` at a time, in order of the list. */
async function readAll(list: readonly Label[], concurrency: number, read: (l: Label) => Promise<Outcome>): Promise<Outcome[]> {
  const out: Outcome[] = new Array(list.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < list.length) {
      const i = next++;
      out[i] = await read(list[i]!);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return out;
}

function printMisses(outcomes: readonly Outcome[]): void {
  for (const o of outcomes) {
    if (o.total && o.date && o.merchant && !verbose) continue;
    const f = o.reading.fields;
    const miss = [
      o.total ? '' : `total ${f.total ? fmt(f.total.cents / 100, 2) : '-'} (want ${fmt(o.label.total, 2)})`,
      o.date ? '' : `date ${f.date?.value ?? '-'} (want ${o.label.date})`,
      o.merchant ? '' : `merchant "${f.merchant?.value ?? '-'}" (want "${o.label.merchant}")`,
    ].filter(Boolean).join('; ');
    console.log(`    ${o.label.id} [${o.reading.passes} pass${o.reading.passes === 1 ? '' : 'es'}${o.reading.voters ? `; ${o.reading.voters.join('+')}` : ''}] ${miss || 'all correct'}`);
  }
}

function writeCache(outcomes: readonly Outcome[]): string {
  mkdirSync(CACHE_DIR, { recursive: true });
  const file = join(CACHE_DIR, SET === 'train' ? 'ocr-extracted-train.json' : 'ocr-extracted.json');
  const map = Object.fromEntries(outcomes.map((o) => [o.label.id, {
    merchant: o.reading.fields.merchant?.value ?? null,
    date: o.reading.fields.date?.value ?? null,
    totalCents: o.reading.fields.total?.cents ?? null,
    merchantConfidence: o.reading.fields.merchant?.confidence ?? null,
    dateConfidence: o.reading.fields.date?.confidence ?? null,
    totalConfidence: o.reading.fields.total?.confidence ?? null,
  }]));
  writeFileSync(file, `${JSON.stringify(map, null, 2)}\n`);
  return file;
}

/** Counts per field for bench/ocr-summary.ts, which prints train CV and dev side by side. */
function writeSummary(set: string, reader: string, outcomes: readonly Outcome[], seconds: number[], cpu: number[]): string {
  mkdirSync(CACHE_DIR, { recursive: true });
  const file = join(CACHE_DIR, `ocr-summary-${set}-${reader}.json`);
  const count = (k: 'total' | 'date' | 'merchant'): number => outcomes.filter((o) => o[k]).length;
  writeFileSync(file, `${JSON.stringify({ set, reader, n: outcomes.length, total: count('total'), date: count('date'), merchant: count('merchant'), medianSeconds: median(seconds), p95Seconds: percentile(seconds, 95), ...(cpu.length > 0 ? { cpuMedian: median(cpu), cpuP95: percentile(cpu, 95) } : {}), load: loadavg()[0], at: new Date().toISOString() }, null, 2)}\n`);
  return file;
}

function share(outcomes: readonly Outcome[], field: 'total' | 'date' | 'merchant'): number {
  return outcomes.filter((o) => o[field]).length / outcomes.length;
}

const list = labels().slice(0, limit);
/**
 * The company's period (the card statements that belong to these receipts: first and last posting
 * day), as the product gives the extractor its company's (ExtractOptions.period, date-period.ts).
 * `--no-period` without it.
 */
const period = args.includes('--no-period') ? undefined : statementPeriod(labels().map((l) => l.id));
/**
 * `--cv` (train only): each receipt read with the ranker of the merchant-grouped fold it was held
 * out of (lab/receipts/folds.ts: weights trained without its merchant, the committed calibration):
 * the whole pipeline's figure on merchants its ranker never saw, beside the dev figure.
 */
/**
 * `--primary ppocr` (the default, as the product runs): PP-OCRv5 reads every page first
 * (read-primary.ts), in reader threads of its own (one per tesseract worker), tesseract.js is the
 * second opinion on doubtful fields; `--primary off`: tesseract.js alone (the pipeline before).
 */
const primaryName = args.includes('--primary') ? args[args.indexOf('--primary') + 1] : 'ppocr';
const primary = primaryName === 'ppocr' ? createPpocrHost({ size: workers }) : null;
if (primaryName === 'ppocr' && !primary) throw new Error('--primary ppocr: the PP-OCRv5 models are not installed (scripts/install-ocr-models.sh)');
const foldOf = args.includes('--cv') && SET === 'train'
  ? foldModels(DATA, labels(), await devOcr(() => undefined, 'train'), 5, await devOcr(() => undefined, 'train', { engine: 'ppocr' }))
  : undefined;
const withFold = (id: string): Pick<ReadReceiptOptions, 'fields' | 'rereadLines'> => {
  const model = foldOf?.get(id);
  if (!model) return {};
  return {
    fields: async (text, words, extract) => extractReceiptFields(text, words, extract, model),
    rereadLines: async (text, words, fields, extract) => linesToReread(text, words, fields, extract, { model }),
  };
};
const pool = createOcrPool({ workers, parameters: tessParameters });
/**
 * The second line reader (PaddleOCR's recogniser on the doubtful total's and date's lines), as the
 * product runs it: in worker threads of its own, one per tesseract worker. `--no-second` without it.
 */
const second = !args.includes('--no-second') && !primary;
const cpuPool = second ? new WorkerPool({ size: workers }) : undefined;
const secondLines = cpuPool ? offThread(cpuPool).secondLines : undefined;
const closeSecond = cpuPool ? () => cpuPool.close() : undefined;
console.log(`OCR: ${list.length} ${SET} receipts, primary page reader ${primary ? 'PP-OCRv5 (tesseract.js the second opinion)' : 'none'}, ${workers} tesseract.js worker(s), retry readings ${retry ? 'on' : 'off'}, line re-reading ${retry && lines ? 'on' : 'off'}, second line reader ${retry && lines && second ? 'PaddleOCR recogniser' : 'off'}${Object.keys(tessParameters).length ? `; tesseract variables ${JSON.stringify(tessParameters)}` : ''}; company period ${period ? `${period.from} to ${period.to} (the statements)` : 'none'}${foldOf ? '; ranker: each receipt\'s merchant-grouped fold (held out)' : ''}; load average ${loadavg().map((l) => fmt(l, 2)).join(' ')}`);
const startT = performance.now();
await pool.start();
const startMs = performance.now() - startT;
const wallT = performance.now();
// Peak memory of the whole process (reader threads, tesseract workers, extraction), sampled.
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 100);
/**
 * With one worker, receipts are read one after the other, so the process's CPU time over one
 * receipt (every thread: readers, tesseract, extraction) is that receipt's: a figure a busy
 * machine inflates less than wall time.
 */
const cpuSeconds: number[] = [];
const outcomes = await readAll(list, workers, async (label) => {
  const cpu = process.cpuUsage();
  const reading = await readReceipt(readFileSync(join(DATA, `${label.id}.jpg`)), pool, { retry, lines, secondFor, ...(primary ? { primary } : {}), ...(secondLines && !primary ? { secondLines } : {}), ...(period ? { extract: { period } } : {}), ...withFold(label.id) });
  const used = process.cpuUsage(cpu);
  cpuSeconds.push((used.user + used.system) / 1e6);
  return judge(label, reading);
});
await closeSecond?.();
await primary?.close();
const wallMs = performance.now() - wallT;
clearInterval(sampler);
await pool.close();

const seconds = outcomes.map((o) => o.reading.ms / 1000);
const passes = outcomes.reduce((n, o) => n + o.reading.passes, 0);
const pct = (x: number): string => `${fmt(x * 100, 1)} %`;
const verdict = (ok: boolean): string => (ok ? 'met' : 'NOT met');
row('total correct (within 0.01)', pct(share(outcomes, 'total')), `goal >= ${GOALS.total * 100} %: ${verdict(share(outcomes, 'total') >= GOALS.total)}`);
row('date correct (exact)', pct(share(outcomes, 'date')), `goal >= ${GOALS.date * 100} %: ${verdict(share(outcomes, 'date') >= GOALS.date)}`);
row(`merchant correct (normalised similarity >= ${MERCHANT_THRESHOLD})`, pct(share(outcomes, 'merchant')), `goal >= ${GOALS.merchant * 100} %: ${verdict(share(outcomes, 'merchant') >= GOALS.merchant)}`);
const marked = outcomes.flatMap((o) => (['total', 'date', 'merchant'] as const).filter((k) => (o.reading.fields[k]?.confidence ?? 0) >= CONFIDENT_AT).map((k) => o[k]));
const rightWhenMarked = marked.filter(Boolean).length / Math.max(1, marked.length);
row(`fields marked confident (>= ${CONFIDENT_AT}) that are right`, pct(rightWhenMarked), `${marked.filter(Boolean).length}/${marked.length} marked (${pct(marked.length / (3 * outcomes.length))} of fields); goal >= ${GOALS.confident * 100} %: ${verdict(rightWhenMarked >= GOALS.confident)}`);
row('all three correct', pct(outcomes.filter((o) => o.total && o.date && o.merchant).length / outcomes.length));
row('seconds per receipt with the pool (wall / receipts)', fmt(wallMs / 1000 / outcomes.length, 2), `${workers} workers, ${fmt(wallMs / 1000, 1)} s in all`);
row('seconds per receipt per worker: median', fmt(median(seconds), 2), `goal <= ${GOALS.medianSeconds} s: ${verdict(median(seconds) <= GOALS.medianSeconds)}`);
row('seconds per receipt per worker: p95', fmt(percentile(seconds, 95), 2));
if (workers === 1) row('CPU seconds per receipt (all threads): median / p95', `${fmt(median(cpuSeconds), 2)} / ${fmt(percentile(cpuSeconds, 95), 2)}`, 'one worker: receipts one at a time');
row('OCR readings per receipt (retries when unsure)', fmt(passes / outcomes.length, 2), `${outcomes.filter((o) => o.reading.passes > 1).length} receipts read more than once`);
row('lines read again one by one (doubtful fields)', fmt(outcomes.reduce((n, o) => n + (o.reading.linesReread ?? 0), 0) / outcomes.length, 2), `per receipt; ${outcomes.filter((o) => (o.reading.linesReread ?? 0) > 0).length} receipts had lines read again`);
row('pool start (workers created, language data loaded)', `${fmt(startMs, 0)} ms`);
row('peak memory of the process per worker (MB)', fmt(peakRss / 1e6 / workers, 0), `${fmt(peakRss / 1e6, 0)} MB in all, ${workers} worker(s); goal <= 600 MB per worker`);
console.log(`  merchant comparison: upper case, punctuation removed, legal suffixes (SDN BHD, S/B, BHD, LTD, …) dropped;`);
console.log(`  a match when max(Levenshtein ratio, token-set similarity) >= ${MERCHANT_THRESHOLD}.`);
console.log(`  ${verbose ? 'every receipt' : 'misses'}:`);
printMisses(outcomes);
if (limit === Infinity && Object.keys(tessParameters).length === 0 && (second || primary) && !args.includes('--no-period') && !foldOf) console.log(`  wrote ${writeCache(outcomes)}`);
if (limit === Infinity && Object.keys(tessParameters).length === 0 && !args.includes('--no-period') && (SET === 'dev' || foldOf)) {
  console.log(`  wrote ${writeSummary(SET === 'dev' ? 'dev' : 'train-cv', primary ? 'ppocr' : 'tesseract', outcomes, seconds, workers === 1 ? cpuSeconds : [])}`);
}
