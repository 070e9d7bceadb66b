/**
 * Counts the OCR's one-digit slips on receipts-train (domain/src/receipts/learned/digit-confusions.ts):
 * the product's first tesseract.js reading of each train receipt (bench/.cache/ocr-train-raw.json,
 * filled on first use, one worker) against its annotated boxes. Prints the table; `--write` commits
 * it to domain/src/receipts/learned/digit-confusions.json (or `--out FILE`), where the date's year is
 * mended from (domain/src/receipts/date-period.ts). Deterministic.
 *
 *   node --import tsx scripts/digit-confusions.ts [--write] [--out FILE] [--limit N] [--ocr-cache FILE] [--no-dev]
 *
 * Then what the table does to dates (date-period.ts checkYear, the company's period from the card
 * statements that belong to the receipts, lab/receipts/score.ts statementPeriod), on the first
 * tesseract.js reading of each receipt: train with the committed table (in sample) and with tables
 * counted on the other merchants only (5 merchant-grouped folds, lab/receipts/train.ts foldsByMerchant),
 * and dev (never counted on; `--no-dev` skips it, it needs the dev OCR cache).
 *
 * Train only: the dev receipts have no boxes, and are the check, not the source.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkYear, extractReceiptFields } from '../domain/src/receipts/index';
import type { DatePeriod } from '../domain/src/receipts/index';
import { countDigitConfusions, MIN_CONFUSIONS, slipsFor } from '../domain/src/receipts/learned/digit-confusions';
import type { DigitConfusions } from '../domain/src/receipts/learned/digit-confusions';
import { foldsByMerchant } from '../lab/receipts/train';
import type { Example } from '../lab/receipts/train';
import { annotatedSegments, label, receiptIds, statementPeriod } from '../lab/receipts/score';
import type { SetName } from '../lab/receipts/score';
import { devOcr } from '../lab/receipts/ocr-cache';

const args = process.argv.slice(2);
const value = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const OUT = value('--out') ?? (args.includes('--write') ? join(import.meta.dirname, '..', 'domain', 'src', 'receipts', 'learned', 'digit-confusions.json') : undefined);
const limit = Number(value('--limit') ?? Infinity);
const cacheFile = value('--ocr-cache');

const ids = receiptIds('train').slice(0, limit);
const ocr = await devOcr((line) => console.log(line), 'train', { only: ids, ...(cacheFile ? { cacheFile } : {}) });
const examples = (of: readonly string[]) => of.map((id) => ({ segments: annotatedSegments('train', id), words: ocr[id]?.words ?? [] }));
const table = countDigitConfusions(examples(ids));

console.log(`OCR digit slips on receipts-train: ${ids.length} receipts, ${table.words} words with digits compared with the annotated text`);
for (const read of Object.keys(table.counts)) {
  const slips = slipsFor(table, read, 1).map((s) => `${s.digit} x${s.times}`).join(', ');
  console.log(`  read ${read} for: ${slips}`);
}
console.log(`  (a slip counts from ${MIN_CONFUSIONS} times seen)`);
if (OUT) {
  writeFileSync(OUT, `${JSON.stringify(table, null, 2)}\n`);
  console.log(`wrote ${OUT}`);
}

/** Dates right on the first reading: as read, and with the year checked against the period by `tableOf(id)`. */
function datesRight(set: SetName, of: readonly string[], readings: typeof ocr, period: DatePeriod | undefined, tableOf: (id: string) => DigitConfusions): { asRead: number; checked: number; mended: number; flagged: number; changes: string[] } {
  const out = { asRead: 0, checked: 0, mended: 0, flagged: 0, changes: [] as string[] };
  for (const id of of) {
    const r = readings[id];
    const date = r ? extractReceiptFields(r.text, r.words).date : null;
    if (!date) continue;
    const want = label(set, id).date;
    const checked = checkYear(date, { period }, tableOf(id));
    if (date.value === want) out.asRead++;
    if (checked.value === want) out.checked++;
    if (checked.value !== date.value) {
      out.mended++;
      out.changes.push(`${id} ${date.value} -> ${checked.value} (${checked.value === want ? 'right' : `label ${want}`})`);
    }
    if (checked.confidence < date.confidence) out.flagged++;
  }
  return out;
}

const pct = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(1)} %`;
const trainPeriod = statementPeriod(ids);
console.log(`Dates on the first reading, year checked against the company's period (${trainPeriod ? `${trainPeriod.from} to ${trainPeriod.to}` : 'none'}):`);
const inSample = datesRight('train', ids, ocr, trainPeriod, () => table);
const folds = foldsByMerchant(ids.map((id) => ({ id, label: label('train', id) }) as unknown as Example), Math.min(5, ids.length));
const foldTables = [...new Set(folds)].map((k) => countDigitConfusions(examples(ids.filter((_, i) => folds[i] !== k))));
const outOfFold = datesRight('train', ids, ocr, trainPeriod, (id) => foldTables[folds[ids.indexOf(id)]!]!);
const line = (name: string, r: ReturnType<typeof datesRight>, n: number) => {
  console.log(`  ${name.padEnd(48)} as read ${pct(r.asRead, n)}, checked ${pct(r.checked, n)} (${r.mended} mended, ${r.flagged} flagged doubtful)`);
  // Which way each year moved: below the period (a year read too early) or above it.
  for (const c of r.changes) console.log(`    ${c}`);
};
line(`train, committed table (in sample), ${ids.length} receipts`, inSample, ids.length);
line('train, merchant-grouped 5-fold tables (out of fold)', outOfFold, ids.length);
if (!args.includes('--no-dev')) {
  const devIds = receiptIds('dev');
  const devOcrs = await devOcr((l) => console.log(l), 'dev');
  line(`dev, committed table, ${devIds.length} receipts (never counted on)`, datesRight('dev', devIds, devOcrs, statementPeriod(devIds), () => table), devIds.length);
}
