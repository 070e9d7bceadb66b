import type { ExtractOptions, ReceiptFields } from '@paperlink/domain';
import { createOcrPool } from '../ocr/pool';
import { readReceipt } from '../ocr/read-receipt';
import type { ReadReceiptOptions } from '../ocr/read-receipt';
import type { ReceiptReader, ReceiptReading } from './ocr-job';

/** The extracted fields as the receipt events keep them: values, and a confidence per field. */
export function toReceiptReading(r: { source: 'pdf-text' | 'ocr'; text: string; fields: ReceiptFields; ocrConfidence: number; ms: number; boxes?: Partial<Record<'total' | 'date' | 'merchant', [number, number, number, number]>> }): ReceiptReading {
  const f = r.fields;
  const confidence: ReceiptReading['confidence'] = {};
  if (f.date) confidence.date = f.date.confidence;
  if (f.total) confidence.totalCents = f.total.confidence;
  if (f.merchant) confidence.merchant = f.merchant.confidence;
  if (f.tax) confidence.taxCents = f.tax.confidence;
  if (f.description) confidence.description = f.description.confidence;
  return {
    source: r.source,
    text: r.text,
    fields: {
      date: f.date?.value ?? null,
      totalCents: f.total?.cents ?? null,
      merchant: f.merchant?.value ?? null,
      taxCents: f.tax?.cents ?? null,
      description: f.description?.value ?? null,
    },
    confidence,
    ...(r.boxes ? { boxes: { ...(r.boxes.total ? { totalCents: r.boxes.total } : {}), ...(r.boxes.date ? { date: r.boxes.date } : {}), ...(r.boxes.merchant ? { merchant: r.boxes.merchant } : {}) } } : {}),
    ...(f.dateOrder ? { dateOrder: f.dateOrder } : {}),
    ocrConfidence: r.ocrConfidence,
    ms: r.ms,
  };
}

/** The product's receipt reader: a tesseract worker pool (started on first use) and extraction. */
export function createOcrReader(options: { workers?: number; log?: (message: string) => void } & Pick<ReadReceiptOptions, 'pdf' | 'fields' | 'rereadLines' | 'secondLines'> = {}): ReceiptReader & { close(): Promise<void> } {
  const pool = createOcrPool(options.workers ? { workers: options.workers } : {});
  const offThread = { ...(options.pdf ? { pdf: options.pdf } : {}), ...(options.fields ? { fields: options.fields } : {}), ...(options.rereadLines ? { rereadLines: options.rereadLines } : {}), ...(options.secondLines ? { secondLines: options.secondLines } : {}) };
  let warned = false;
  return {
    read: async (bytes, extract?: ExtractOptions) => {
      const r = await readReceipt(bytes, pool, { ...offThread, ...(extract ? { extract } : {}) });
      // Once per process: a reader that cannot load fails the same way on every receipt.
      if (r.secondLinesError && !warned) {
        warned = true;
        options.log?.(`ocr: the second line reader failed, receipts are read without it: ${r.secondLinesError}`);
      }
      return toReceiptReading(r);
    },
    close: () => pool.close(),
  };
}
