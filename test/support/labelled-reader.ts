import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReceiptReader, ReceiptReading } from '../../infra/src/receipts/ocr-job';
import { REPO_ROOT } from './process';

export const RECEIPTS_DEV = join(REPO_ROOT, '..', 'shared', 'data', 'receipts-dev');
export const BANK_CSV = join(REPO_ROOT, '..', 'shared', 'data', 'bank-csv');

export interface Label {
  id: string;
  merchant: string;
  date: string;
  total: number;
}

export const labels: Label[] = readdirSync(RECEIPTS_DEV).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(readFileSync(join(RECEIPTS_DEV, f), 'utf8')) as Label);
export const imageOf = (id: string) => readFileSync(join(RECEIPTS_DEV, `${id}.jpg`));

/**
 * A receipt reader for API tests that answers with the dataset's labels (the fields a perfect
 * OCR would give), so those tests check the product's flow, not OCR quality; the real OCR has
 * its own tests and benchmark. Files it does not know read as blank; `failing` makes it throw.
 */
export function labelledReader(options: { delayMs?: number; failing?: () => boolean } = {}): ReceiptReader & { calls: number } {
  const bySha = new Map(labels.map((l) => [createHash('sha256').update(imageOf(l.id)).digest('hex'), l]));
  const reader = {
    calls: 0,
    async read(bytes: Buffer): Promise<ReceiptReading> {
      reader.calls++;
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      if (options.failing?.()) throw new Error('engine crashed');
      const l = bySha.get(createHash('sha256').update(bytes).digest('hex'));
      if (!l) return { source: 'ocr', text: '', fields: { date: null, totalCents: null, merchant: null, taxCents: null, description: null }, confidence: {}, ocrConfidence: 0, ms: 1 };
      return {
        source: 'ocr',
        text: `${l.merchant}\nDATE ${l.date}\nTOTAL ${l.total.toFixed(2)}`,
        fields: { date: l.date, totalCents: Math.round(l.total * 100), merchant: l.merchant, taxCents: null, description: null },
        confidence: { date: 0.9, totalCents: 0.9, merchant: 0.8 },
        // Where a reader says it read them (page fractions): merchant on top, date, total lower.
        boxes: { merchant: [0.1, 0.05, 0.9, 0.1], date: [0.1, 0.2, 0.6, 0.24], totalCents: [0.5, 0.7, 0.9, 0.74] },
        ocrConfidence: 88,
        ms: 1,
      };
    },
  };
  return reader;
}
