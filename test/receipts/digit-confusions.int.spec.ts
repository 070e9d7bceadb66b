/**
 * The digit-slip table's script (scripts/digit-confusions.ts) runs on a small subset of
 * receipts-train: the first tesseract.js reading of 3 receipts (OCR'd into a cache of the test's
 * own), counted against their annotated boxes, written where asked, the same bytes twice, and the
 * year check's figures printed beside it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DigitConfusions } from '../../domain/src/receipts/learned/digit-confusions';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'digit-confusions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(out: string): string {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'digit-confusions.ts'),
    '--limit', '3', '--no-dev', '--out', out, '--ocr-cache', join(dir, 'ocr.json')], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

describe('scripts/digit-confusions.ts on 3 train receipts', () => {
  it('counts the OCR words with digits against the annotated text, deterministically', () => {
    const stdout = run(join(dir, 'a.json'));
    expect(stdout).toMatch(/OCR digit slips on receipts-train: 3 receipts, \d+ words with digits/);
    expect(stdout).toContain('merchant-grouped 5-fold tables (out of fold)');
    const a = JSON.parse(readFileSync(join(dir, 'a.json'), 'utf8')) as DigitConfusions;
    expect(a.words).toBeGreaterThan(10);
    for (const [read, row] of Object.entries(a.counts)) {
      expect(read).toMatch(/^[0-9]$/);
      for (const [truth, n] of Object.entries(row)) {
        expect(truth).toMatch(/^[0-9]$/);
        expect(truth).not.toBe(read);
        expect(n).toBeGreaterThan(0);
      }
    }
    run(join(dir, 'b.json'));
    expect(readFileSync(join(dir, 'b.json'), 'utf8')).toBe(readFileSync(join(dir, 'a.json'), 'utf8'));
  }, 300_000);
});
