import type { ExtractOptions, ReceiptFields } from '@paperlink/domain';
import { createOcrPool } from '../ocr/pool';
import { createPpocrHost } from '../ocr/ppocr-host';
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

/**
 * The product's receipt reader: PP-OCRv5 page readers in threads of their own (ppocr-host.ts;
 * when its models are installed, `primary` not `off`) with a tesseract worker pool as the second
 * opinion and fallback, both started on first use, and extraction.
 */
export function createOcrReader(options: { workers?: number; primary?: 'ppocr' | 'off'; log?: (message: string) => void } & Pick<ReadReceiptOptions, 'pdf' | 'fields' | 'rereadLines' | 'secondLines'> = {}): ReceiptReader & { close(): Promise<void> } {
  const pool = createOcrPool(options.workers ? { workers: options.workers } : {});
  const primary = options.primary === 'off' ? null : createPpocrHost({ size: pool.size });
  if (!primary && options.primary !== 'off') options.log?.('ocr: the PP-OCRv5 models are not installed (scripts/install-ocr-models.sh): receipts are read by tesseract.js alone');
  const offThread = { ...(options.pdf ? { pdf: options.pdf } : {}), ...(options.fields ? { fields: options.fields } : {}), ...(options.rereadLines ? { rereadLines: options.rereadLines } : {}), ...(options.secondLines ? { secondLines: options.secondLines } : {}), ...(primary ? { primary } : {}) };
  const warned = new Set<string>();
  // Once per process and kind: a reader that cannot load fails the same way on every receipt.
  const warn = (kind: string, message: string | undefined): void => {
    if (!message || warned.has(kind)) return;
    warned.add(kind);
    options.log?.(message);
  };
  return {
    read: async (bytes, extract?: ExtractOptions) => {
      const r = await readReceipt(bytes, pool, { ...offThread, ...(extract ? { extract } : {}) });
      warn('second', r.secondLinesError && `ocr: the second line reader failed, receipts are read without it: ${r.secondLinesError}`);
      warn('primary', r.primaryError && `ocr: the PP-OCRv5 reader failed, receipts are read by tesseract.js: ${r.primaryError}`);
      return toReceiptReading(r);
    },
    close: async () => {
      await primary?.close();
      await pool.close();
    },
  };
}
