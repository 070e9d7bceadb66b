/**
 * The learned receipt-field ranker (ADR 0026): merchant-grouped cross-validation on
 * receipts-train next to today's rules (scripts/train-receipt-model.ts, weights not written),
 * then the committed model through `extractReceiptFields` itself on the dev receipts' cached
 * tesseract.js reading (bench/.cache/ocr-dev-raw.json; filled with one worker on first use):
 * accuracy of total / date / merchant and the share of fields marked confident that are right.
 *
 *   node --import tsx bench/receipt-model.ts [--no-cv]
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractReceiptFields, merchantSimilarity } from '../domain/src/receipts/index';
import { CONFIDENT_AT } from '../domain/src/receipts/learned/model';
import { extractRuleFields } from '../domain/src/receipts/rules';
import { DEV_DATA, devOcr } from '../lab/receipts/ocr-cache';
import { fmt, median, row } from './lib';

const GOAL_CONFIDENT = 0.97;

if (!process.argv.includes('--no-cv')) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'scripts', 'train-receipt-model.ts')], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

interface Label { id: string; merchant: string; date: string; total: number }
const labels = readdirSync(DEV_DATA).filter((f) => f.endsWith('.json')).sort()
  .map((f) => JSON.parse(readFileSync(join(DEV_DATA, f), 'utf8')) as Label);
const ocr = await devOcr((line) => console.log(line), 'dev');

const right = { total: 0, date: 0, merchant: 0 };
const rulesRight = { total: 0, date: 0, merchant: 0 };
let confident = 0;
let confidentRight = 0;
const ms: number[] = [];
for (const l of labels) {
  const reading = ocr[l.id]!;
  const t = performance.now();
  const f = extractReceiptFields(reading.text, reading.words);
  ms.push(performance.now() - t);
  const rules = extractRuleFields(reading.text, reading.words);
  if (rules.total !== null && Math.abs(rules.total.cents - Math.round(l.total * 100)) <= 1) rulesRight.total++;
  if (rules.date?.value === l.date) rulesRight.date++;
  if (rules.merchant !== null && merchantSimilarity(rules.merchant.value, l.merchant) >= 0.8) rulesRight.merchant++;
  const ok = {
    total: f.total !== null && Math.abs(f.total.cents - Math.round(l.total * 100)) <= 1,
    date: f.date?.value === l.date,
    merchant: f.merchant !== null && merchantSimilarity(f.merchant.value, l.merchant) >= 0.8,
  };
  const conf = { total: f.total?.confidence ?? 0, date: f.date?.confidence ?? 0, merchant: f.merchant?.confidence ?? 0 };
  for (const k of ['total', 'date', 'merchant'] as const) {
    if (ok[k]) right[k]++;
    if (conf[k] >= CONFIDENT_AT) {
      confident++;
      if (ok[k]) confidentRight++;
    }
  }
}
const n = labels.length;
const pct = (x: number): string => `${fmt(x * 100, 1)} %`;
console.log(`  extractReceiptFields on ${n} dev receipts (cached first tesseract.js reading, no retries):`);
row('dev total correct (within 0.01)', pct(right.total / n), `rules alone ${pct(rulesRight.total / n)}`);
row('dev date correct (exact)', pct(right.date / n), `rules alone ${pct(rulesRight.date / n)}`);
row('dev merchant correct (similarity >= 0.8)', pct(right.merchant / n), `rules alone ${pct(rulesRight.merchant / n)}`);
const share = confident ? confidentRight / confident : 0;
row(`fields marked confident (>= ${CONFIDENT_AT}) that are right`, pct(share), `${confidentRight}/${confident}; goal >= 97 %: ${share >= GOAL_CONFIDENT ? 'met' : 'NOT met'}`);
row('fields marked confident (coverage)', pct(confident / (3 * n)));
row('extraction ms per receipt (median)', fmt(median(ms), 1));
