/**
 * The targeted second reading of the lines that matter (ADR 0019), measured
 * on receipts-train (all 91; nothing here is learned, and any setting chosen was chosen on train)
 * and receipts-dev (40, confirming only), before and after:
 *
 *   first        the first tesseract.js reading alone (bench/.cache/ocr-<set>-raw.json);
 *   first+pages  today's product: the retry readings of the whole page (ink, x1.5) voted when
 *                the first is doubtful (needsAnotherReading), from bench/.cache/ocr-prep-{ink,x15}.json;
 *   lines        the doubtful fields' candidate lines read again one by one (linesToReread +
 *                rereadLines), the fields extracted again from the mended reading; a
 *                re-read field takes the mended reading's value (`replace`) or is voted
 *                (`vote`: combineReadings([first, mended]));
 *   lines+pages  the same, then the page retries when the result still needs another reading.
 *
 * Per row: total / date / merchant right, the share of fields marked confident (>= 0.95) that
 * are right and how many are marked, receipts whose lines were read again, seconds per receipt
 * for one worker (the first reading's cached time + the line readings' time measured here + the
 * page retries' cached time when taken), median and p95, and the load average.
 * Line readings are cached per set in bench/.cache/ocr-lines-<variant>-<set>.json (delete to read again).
 *
 *   node --import tsx bench/line-reread.ts [--sets train,dev] [--variant tight|band|narrow|tight+x1|tight+ink] [--per-field N] [--word-doubt] [--fields total,date] [--also-all] [--misses]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { combineReadings, doubtfulFields, extractReceiptFields, linesToReread, needsAnotherReading, takeRereadFields } from '../domain/src/receipts/index';
import type { ReceiptFields } from '../domain/src/receipts/index';
import { CONFIDENT_AT } from '../domain/src/receipts/learned/model';
import type { OcrResult } from '../domain/src/receipts/types';
import { patchReading, rereadLines, surestReadings } from '../infra/src/ocr/line-reread';
import type { LineReading, LineRereadOptions } from '../infra/src/ocr/line-reread';
import type { OcrPool } from '../infra/src/ocr/pool';
import { prepareImage } from '../infra/src/ocr/preprocess';
import { doubtfulWordFields } from '../lab/ocr/doubtful-words';
import { devOcr } from '../lab/receipts/ocr-cache';
import { fmt, median, percentile, row } from './lib';
import { DATA, judgeFields, label, receiptIds } from '../lab/receipts/score';
import type { SetName } from '../lab/receipts/score';

const CACHE_DIR = join(import.meta.dirname, '.cache');
const args = process.argv.slice(2);
const argValue = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const sets = (argValue('--sets') ?? 'train,dev').split(',') as SetName[];
const variant = argValue('--variant') ?? 'tight';
const perField = Number(argValue('--per-field')) || 3;
/** Also re-read total/date lines with a digit word tesseract was < 30 % sure of (lab/ocr/doubtful-words.ts doubtfulWordFields). */
const wordDoubt = args.includes('--word-doubt');
/** Only these fields' doubt triggers line re-reading (default all three). */
/** When a receipt's lines are read again anyway, also the total's and date's lines, confident or not. */
const alsoAll = args.includes('--also-all');
const onlyFields = argValue('--fields')?.split(',') as Array<'total' | 'date' | 'merchant'> | undefined;
/** Crop preparations (infra/src/ocr/line-reread.ts options); line CER of each on train: bench/line-crop-prep.ts. */
const VARIANTS: Record<string, LineRereadOptions> = {
  band: { sideMargin: 'page', marginY: 0.3 },
  narrow: { sideMargin: 3, marginY: 0.3 },
  tight: { sideMargin: 3, marginY: 0 },
  'band-tight': { sideMargin: 'page', marginY: 0 },
};
/** Several preparations per line, the surest reading of each line kept (surestReadings). */
const MULTI: Record<string, string[]> = { 'tight+x1': ['tight', 'tight-x1'], 'tight+m1': ['tight', 'tight-m1'], 'tight+ink': ['tight', 'tight-ink'] };
VARIANTS['tight-ink'] = { sideMargin: 3, marginY: 0, ink: true };
VARIANTS['tight-x1'] = { sideMargin: 3, marginY: 0, linePx: 1 };
VARIANTS['tight-m1'] = { sideMargin: 3, marginY: 0.1 };
if (!VARIANTS[variant] && !MULTI[variant]) throw new Error(`--variant: one of ${Object.keys(VARIANTS).join(', ')}`);

interface CachedLines { lines: LineReading[]; ms: number; load: number; key?: string }
interface PageCache { readings: Record<string, { ocr: OcrResult; ms: number; load: number }> }

const loadJson = <T>(file: string, empty: T): T => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) as T : empty);
const base = loadJson<PageCache>(join(CACHE_DIR, 'ocr-prep-base.json'), { readings: {} });
const retries = ['ink', 'x15'].map((v) => loadJson<PageCache>(join(CACHE_DIR, `ocr-prep-${v}.json`), { readings: {} }));

type Policy = 'replace' | 'vote';
interface Judged { id: string; want: string; right: Record<'total' | 'date' | 'merchant', boolean>; fields: ReceiptFields; seconds: number; lines: boolean; pages: boolean; load: number }

function merged(first: ReceiptFields, mended: ReceiptFields, reread: ReadonlySet<'total' | 'date' | 'merchant'>, policy: Policy): ReceiptFields {
  return policy === 'vote' ? combineReadings([first, mended]) : takeRereadFields(first, mended, [...reread]);
}

async function run(set: SetName): Promise<void> {
  const first = await devOcr(console.log, set);
  const cacheFile = join(CACHE_DIR, `ocr-lines-${variant}${perField === 3 ? '' : `-k${perField}`}${wordDoubt ? '-wd' : ''}${onlyFields ? `-${onlyFields.join('+')}` : ''}${alsoAll ? '-all' : ''}-${set}.json`);
  // Cached readings are of these lines only if the lines and their crops are the same.
  const keyOf = (targets: ReadonlyArray<{ box: unknown; wide?: boolean }>): string => JSON.stringify(targets.map((t) => [t.box, t.wide ?? false]));
  const cache = loadJson<Record<string, CachedLines>>(cacheFile, {});
  const ids = receiptIds(set);
  let pool: OcrPool | undefined;
  const rows: Record<string, Judged[]> = { first: [], 'first+pages': [], 'lines replace': [], 'lines vote': [], 'lines replace+pages': [], 'surer replace': [], 'surer vote': [], 'surer replace+pages': [] };
  try {
    for (const id of ids) {
      const r = first[id]!;
      const lab = label(set, id);
      const firstMs = base.readings[id]?.ms ?? NaN;
      const firstLoad = base.readings[id]?.load ?? NaN;
      const f0 = extractReceiptFields(r.text, r.words);
      const judge = (fields: ReceiptFields, seconds: number, lines: boolean, pages: boolean, load: number): Judged => ({ id, want: `${lab.total} ${lab.date} ${lab.merchant}`, right: judgeFields(lab, fields), fields, seconds, lines, pages, load });
      rows.first!.push(judge(f0, firstMs / 1000, false, false, firstLoad));
      const pageRetry = (fields: ReceiptFields): { fields: ReceiptFields; ms: number } | null => {
        const more = retries.map((c) => c.readings[id]);
        if (more.some((m) => !m)) return null;
        return { fields: combineReadings([fields, ...more.map((m) => extractReceiptFields(m!.ocr.text, m!.ocr.words))]), ms: more.reduce((s, m) => s + m!.ms, 0) };
      };
      if (needsAnotherReading(f0)) {
        const p = pageRetry(f0);
        if (!p) console.log(`  ${id}: page retry readings not cached; first reading kept`);
        rows['first+pages']!.push(judge(p?.fields ?? f0, (firstMs + (p?.ms ?? 0)) / 1000, false, true, firstLoad));
      } else rows['first+pages']!.push(judge(f0, firstMs / 1000, false, false, firstLoad));

      const targets = linesToReread(r.text, r.words, f0, {}, { perField, ...(onlyFields ? { fields: onlyFields } : {}), ...(wordDoubt ? { also: doubtfulWordFields(f0, r.words ?? []) } : {}), ...(alsoAll && doubtfulFields(f0).length > 0 ? { also: ['total', 'date'] as const } : {}) });
      if (targets.length === 0) {
        for (const k of Object.keys(rows).filter((k) => k.startsWith('lines') || k.startsWith('surer'))) rows[k]!.push(judge(f0, firstMs / 1000, false, false, firstLoad));
        continue;
      }
      let c = cache[id];
      if (!c || c.key !== keyOf(targets)) {
        if (!pool) {
          const { createOcrPool } = await import('../infra/src/ocr/pool');
          pool = createOcrPool({ workers: 1 });
          await pool.start();
        }
        const t = performance.now();
        const page = await prepareImage(readFileSync(join(DATA[set], `${id}.jpg`)), 'plain');
        const { default: sharp } = await import('sharp');
        const meta = await sharp(page).metadata();
        const size = { width: meta.width!, height: meta.height! };
        const boxes = targets;
        const lines = MULTI[variant]
          ? surestReadings(await Promise.all(MULTI[variant]!.map((v) => rereadLines(page, size, boxes, pool!, VARIANTS[v]))))
          : await rereadLines(page, size, boxes, pool, VARIANTS[variant]);
        c = { lines, ms: performance.now() - t, load: loadavg()[0]!, key: keyOf(targets) };
        cache[id] = c;
        mkdirSync(CACHE_DIR, { recursive: true });
        writeFileSync(cacheFile, JSON.stringify(cache));
        process.stdout.write('.');
      }
      const reread = new Set(targets.flatMap((x) => x.fields));
      const seconds = (firstMs + c.ms) / 1000;
      let mended: ReceiptFields | undefined;
      for (const prefer of ['line', 'surer'] as const) {
        const patched = patchReading(r.text, r.words ?? [], c.lines, { prefer });
        const m = extractReceiptFields(patched.text, patched.words);
        if (prefer === 'line') mended = m;
        const name = prefer === 'line' ? 'lines' : 'surer';
        for (const policy of ['replace', 'vote'] as const) rows[`${name} ${policy}`]!.push(judge(merged(f0, m, reread, policy), seconds, true, false, c.load));
        const after = merged(f0, m, reread, 'replace');
        if (needsAnotherReading(after)) {
          const p = pageRetry(after);
          rows[`${name} replace+pages`]!.push(judge(p?.fields ?? after, seconds + (p?.ms ?? 0) / 1000, true, true, c.load));
        } else rows[`${name} replace+pages`]!.push(judge(after, seconds, true, false, c.load));
      }
      if (args.includes('--verbose')) {
        const show = (f: ReceiptFields): string => `${f.total ? (f.total.cents / 100).toFixed(2) : '-'}@${f.total?.confidence ?? 0} ${f.date?.value ?? '-'}@${f.date?.confidence ?? 0} ${f.merchant?.value ?? '-'}@${f.merchant?.confidence ?? 0}`;
        console.log(`\n  ${id} [${[...reread].join(',')}] want ${lab.total} ${lab.date} ${lab.merchant}\n    first  ${show(f0)}\n    mended ${show(mended!)}`);
        for (const l of c.lines) console.log(`      line: ${l.words.map((w) => w.text).join(' ')}`);
      }
    }
  } finally {
    if (pool) await pool.close();
  }
  console.log(`\n${set}: ${ids.length} receipts; line readings ${variant}, ${perField} candidate lines per doubtful field (below ${CONFIDENT_AT}${wordDoubt ? ' or a digit word < 30 % sure on its line' : ''})`);
  for (const [name, judged] of Object.entries(rows)) {
    const n = judged.length;
    const pct = (k: 'total' | 'date' | 'merchant'): string => `${fmt((100 * judged.filter((j) => j.right[k]).length) / n, 1)}`;
    let marked = 0;
    let markedRight = 0;
    for (const j of judged) {
      for (const k of ['total', 'date', 'merchant'] as const) {
        if ((j.fields[k]?.confidence ?? 0) >= CONFIDENT_AT) {
          marked++;
          if (j.right[k]) markedRight++;
        }
      }
    }
    const s = judged.map((j) => j.seconds).filter((x) => Number.isFinite(x));
    row(`${set} ${name}: T / D / M %`, `${pct('total')} / ${pct('date')} / ${pct('merchant')}`,
      `confident right ${fmt(marked ? (100 * markedRight) / marked : 0, 1)} % (${markedRight}/${marked}); lines read again ${judged.filter((j) => j.lines).length}, pages ${judged.filter((j) => j.pages).length}; s/receipt median ${fmt(median(s), 2)} p95 ${fmt(percentile(s, 95), 2)}`);
  }
  if (args.includes('--misses')) {
    console.log(`  ${set} misses of the kept reading (surer replace+pages):`);
    for (const j of rows['surer replace+pages']!) {
      const f = j.fields;
      const miss = [
        j.right.total ? '' : `total ${f.total ? (f.total.cents / 100).toFixed(2) : '-'}@${f.total?.confidence ?? 0}`,
        j.right.date ? '' : `date ${f.date?.value ?? '-'}@${f.date?.confidence ?? 0}`,
        j.right.merchant ? '' : `merchant "${f.merchant?.value ?? '-'}"@${f.merchant?.confidence ?? 0}`,
      ].filter(Boolean).join('; ');
      if (miss) console.log(`    ${j.id} [lines ${j.lines ? 'yes' : 'no'}, pages ${j.pages ? 'yes' : 'no'}] ${miss} (want ${j.want})`);
    }
  }
  const lineMs = Object.values(cache).map((c) => c.ms / 1000);
  if (lineMs.length) row(`${set} line re-read time per re-read receipt: median / p95 s`, `${fmt(median(lineMs), 2)} / ${fmt(percentile(lineMs, 95), 2)}`, `load average while reading ${fmt(median(Object.values(cache).map((c) => c.load)), 1)}; lines per receipt ${fmt(Object.values(cache).reduce((a, c) => a + c.lines.length, 0) / lineMs.length, 1)}`);
}

console.log(`Targeted line re-reading (ADR 0019); load average now ${loadavg().map((l) => fmt(l, 2)).join(' ')}`);
for (const set of sets) await run(set);
