/**
 * The receipt model's training script runs on a small subset of receipts-train and produces
 * weights that rank the right candidates of a receipt invented here (not from the data set)
 * above the others, better than chance; the same inputs give the same weights byte for byte.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCandidates } from '../../domain/src/receipts/learned/candidates';
import { layoutFromText } from '../../domain/src/receipts/learned/layout';
import { pickFields } from '../../domain/src/receipts/learned/model';
import type { ReceiptModel } from '../../domain/src/receipts/learned/model';
import { rank } from '../../domain/src/receipts/learned/ranker';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'receipt-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function train(out: string): string {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'train-receipt-model.ts'),
    '--limit', '15', '--folds', '3', '--boxes-only', '--no-dev', '--out', out], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

/** Invented: a hardware shop with items above a subtotal, tax, rounding, a total, cash and change. */
const RECEIPT = [
  'TOKO BESI SINAR TERANG SDN BHD',
  '(998877-W)',
  'NO 21, JALAN PERUSAHAAN 4, 86000 KLUANG',
  'TEL 07-771 2345',
  'CASH BILL',
  'Date: 18/09/2018  Time: 11:42',
  'PAKU 3" 2KG        2 x 6.50     13.00',
  'CAT PUTIH 5L       1 x 48.90    48.90',
  'SUBTOTAL                        61.90',
  'SST 6%                           3.71',
  'ROUNDING                        -0.01',
  'TOTAL                           65.60',
  'CASH                           100.00',
  'CHANGE                          34.40',
].join('\n');

describe('scripts/train-receipt-model.ts on 15 train receipts', () => {
  it('writes weights that rank the right candidates of an unseen receipt first, deterministically', () => {
    const out = join(dir, 'a.json');
    const stdout = train(out);
    expect(stdout).toContain('cross-validation on train');
    const model = JSON.parse(readFileSync(out, 'utf8')) as ReceiptModel;
    expect(Object.keys(model.fields)).toEqual(['total', 'date', 'merchant']);
    expect(Object.keys(model.fields.total.weights).length).toBeGreaterThan(10);

    // Without the rules' answer as a feature: the weights alone must do better than chance.
    const candidates = buildCandidates(layoutFromText(RECEIPT), null);
    const total = rank(model.fields.total.weights, candidates.total);
    const distinct = new Set(candidates.total.map((c) => c.value)).size;
    expect(distinct).toBeGreaterThan(5);
    expect(total?.value).toBe(6560);
    expect(total!.p).toBeGreaterThan(1 / distinct);
    const picked = pickFields(model, candidates);
    expect(picked.date?.value).toBe('2018-09-18');
    expect(picked.merchant?.value).toBe('TOKO BESI SINAR TERANG SDN BHD');

    const again = join(dir, 'b.json');
    train(again);
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(out, 'utf8'));
  });
});
