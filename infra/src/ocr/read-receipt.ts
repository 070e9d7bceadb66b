/**
 * Reads one receipt file: checks what it is by its bytes, takes a PDF's text layer when it has
 * one (exact, and 100x faster than OCR), otherwise OCRs the image or the rendered pages, then
 * extracts the fields. On a one-page image, when the first OCR reading leaves a field missing or
 * not confident, the lines its candidates came from are read again one by one (line-reread.ts:
 * cropped, enlarged, a single text line each), a line reading takes the place of the page's
 * words where tesseract is surer of it, and those fields are extracted again from the mended
 * reading. The same lines are also read by a second reader (PaddleOCR's recogniser, when given:
 * `secondLines`), whose mended reading joins the vote. When the total or date is then still
 * missing or unsure, two more readings of differently prepared pages are voted on (see reading.ts
 * RETRY_READINGS, combine.ts).
 */
import { combineReadings, extractReceiptFields, linesForSecondReader, linesToReread, needsAnotherReading, receiptFileError, sniffFile, takeRereadFields } from '@paperlink/domain';
import type { ExtractOptions, OcrBox, OcrResult, OcrWord, ReceiptFields, ReceiptFileKind, RereadLine } from '@paperlink/domain';
import { patchReading, rereadLines, wordBoxesOn } from './line-reread';
import type { LineReading } from './line-reread';
import type { PageReader } from './ppocr-host';
import { readWithPrimary } from './read-primary';
import { FIRST_READING, PreparationError, readPage, RETRY_READINGS } from './reading';
import type { OcrPreparation, OcrReader, PageReading } from './reading';

export interface ReadReceiptOptions {
  /** Take more OCR readings when the first is unsure (default true). */
  retry?: boolean;
  /** Resolution for rendering image-only PDF pages (default 250). */
  dpi?: number;
  /** Pages of an image-only PDF that are OCR'd (default 3). */
  maxPages?: number;
  extract?: ExtractOptions;
  /** Where a PDF's text layer is read and its pages rendered; the server passes its worker pool. */
  pdf?: {
    text(bytes: Uint8Array): Promise<string[]>;
    render(bytes: Uint8Array, options: { dpi: number; maxPages: number }): Promise<Uint8Array[]>;
  };
  /** Where fields are extracted from the text (a receipt's worth is 100+ ms): the server passes its worker pool. */
  fields?(text: string, words: readonly OcrWord[] | undefined, options: ExtractOptions | undefined): Promise<ReceiptFields>;
  /** Re-read the doubtful fields' candidate lines one by one (default true; needs `retry`). */
  lines?: boolean;
  /**
   * Where the lines to read again are chosen (domain linesToReread: rules + candidates, about an
   * extraction's cost): the server passes its worker pool.
   */
  rereadLines?(text: string, words: readonly OcrWord[], fields: ReceiptFields, options: ExtractOptions | undefined): Promise<RereadLine[]>;
  /**
   * A second line reader (PaddleOCR's recogniser, paddle-line-host.ts; ADR 0019 fourth
   * amendment) for the doubtful fields' candidate lines: its readings, mended into the page, are
   * one more reading in the vote (combine.ts). Its failure is not the receipt's.
   */
  secondLines?: SecondLineReader;
  /**
   * Which of the re-read lines the second reader reads: `doubtful` (default) only those of a field
   * the first reader's line re-reading left missing or under CONFIDENT_AT, or found where the page
   * reading had none; `all` every line re-read.
   */
  secondFor?: 'all' | 'doubtful';
  /**
   * The primary page reader (PP-OCRv5, ppocr-host.ts): when given, it reads every page first and
   * tesseract.js is the second opinion on doubtful fields (read-primary.ts). A page it finds no
   * text on, or its failure, leaves the receipt to the tesseract pipeline.
   */
  primary?: PageReader;
}

export interface SecondLineReader {
  /** `spacing`: per box, the word boxes of the page reading on that line (its word gaps are kept). */
  readLines(page: Uint8Array, size: { width: number; height: number }, boxes: readonly OcrBox[], spacing?: ReadonlyArray<readonly OcrBox[]>): Promise<LineReading[]>;
}

/**
 * In this thread, for tools and tests. Loaded only when used: pdfjs's legacy build replaces
 * the global JSON.stringify and JSON.parse with core-js polyfills several times slower, which
 * the server's request thread must not get (the server passes its worker pool instead).
 */
const IN_THREAD_PDF: NonNullable<ReadReceiptOptions['pdf']> = {
  text: async (bytes) => (await import('./pdf')).pdfText(bytes),
  render: async (bytes, options) => (await import('./pdf')).renderPdfPages(bytes, options),
};

export interface ReceiptReading {
  kind: ReceiptFileKind;
  source: 'pdf-text' | 'ocr';
  text: string;
  fields: ReceiptFields;
  /** Mean word confidence of the first OCR reading, 0..100; 100 for a PDF text layer. */
  ocrConfidence: number;
  /** OCR readings of whole pages taken (0 for a text layer). */
  passes: number;
  /** Lines read again one by one (0 when the first reading was confident or they were not read). */
  linesReread?: number;
  /** Lines the second line reader read (when there is one). */
  secondLinesRead?: number;
  /** Why the second line reader failed on this receipt (the receipt was read without it). */
  secondLinesError?: string;
  /** Which readings voted, when the primary page reader read the receipt (read-primary.ts). */
  voters?: string[];
  /** Why the primary page reader failed on this receipt (tesseract.js read it alone). */
  primaryError?: string;
  /**
   * Where total, date and merchant were read on a one-page image: the line's box as fractions
   * of the page [x0, y0, x1, y1], for showing beside the fields. Only fields whose final value
   * is the first reading's, with words that had boxes.
   */
  boxes?: Partial<Record<'total' | 'date' | 'merchant', [number, number, number, number]>>;
  ms: number;
}

/** A text layer with fewer letters and digits than this is a scan with a stray label, not text. */
const MIN_TEXT_LAYER_CHARS = 20;

export async function readReceipt(bytes: Uint8Array, ocr: OcrReader, options: ReadReceiptOptions = {}): Promise<ReceiptReading> {
  const started = performance.now();
  const file = sniffFile(bytes);
  const done = (r: Omit<ReceiptReading, 'kind' | 'ms'>): ReceiptReading => ({ kind: file.kind, ...r, ms: performance.now() - started });
  if (file.kind === 'pdf') {
    const pdf = options.pdf ?? IN_THREAD_PDF;
    const text = (await pdf.text(bytes)).join('\n');
    if (text.replace(/[^\p{L}\p{N}]/gu, '').length >= MIN_TEXT_LAYER_CHARS) {
      return done({ source: 'pdf-text', text, fields: await fieldsOf(options, text, undefined), ocrConfidence: 100, passes: 0 });
    }
    const pages = await pdf.render(bytes, { dpi: options.dpi ?? 250, maxPages: options.maxPages ?? 3 });
    return done(await readImages(pages, ocr, options));
  }
  return done(await readImages([bytes], ocr, options));
}

async function fieldsOf(options: ReadReceiptOptions, text: string, words: readonly OcrWord[] | undefined): Promise<ReceiptFields> {
  return options.fields ? options.fields(text, words, options.extract) : extractReceiptFields(text, words, options.extract);
}

/**
 * OCR of the page images, the doubtful fields' lines read again, and the retry readings when
 * the total or date is still unsure.
 */
async function readImages(images: readonly Uint8Array[], ocr: OcrReader, options: ReadReceiptOptions): Promise<Omit<ReceiptReading, 'kind' | 'ms'>> {
  if (!options.primary) return readWithTesseract(images, ocr, options);
  let primaryError: string | undefined;
  try {
    const r = await readWithPrimary(images, options.primary, ocr, { ...(options.retry === undefined ? {} : { retry: options.retry }), fields: (text, words) => fieldsOf(options, text, words) });
    if (r) {
      const boxes = r.size ? pageBoxes(r.first, r.fields, r.size) : undefined;
      return {
        source: 'ocr', text: r.text, fields: r.fields, ocrConfidence: Math.round(r.confidence * 10) / 10, passes: r.passes,
        voters: r.voters, ...(boxes ? { boxes } : {}),
      };
    }
  } catch (error) {
    primaryError = error instanceof Error ? error.message : String(error);
  }
  const fallback = await readWithTesseract(images, ocr, options);
  return primaryError ? { ...fallback, primaryError } : fallback;
}

/** The tesseract.js pipeline: the page, the doubtful fields' lines, the retry readings. */
async function readWithTesseract(images: readonly Uint8Array[], ocr: OcrReader, options: ReadReceiptOptions): Promise<Omit<ReceiptReading, 'kind' | 'ms'>> {
  const first = await readVariant(images, ocr, FIRST_READING);
  let fields = await fieldsOf(options, first.text, first.words);
  const firstFields = fields;
  let linesReread = 0;
  let second: ReceiptFields | null = null;
  let secondLinesRead = 0;
  let secondLinesError: string | undefined;
  if ((options.retry ?? true) && (options.lines ?? true) && images.length === 1 && first.image && first.size) {
    const targets = await (options.rereadLines
      ? options.rereadLines(first.text, first.words, fields, options.extract)
      : Promise.resolve(linesToReread(first.text, first.words, fields, options.extract)));
    let base = { text: first.text, words: first.words };
    if (targets.length > 0) {
      const lines = await rereadLines(first.image, first.size, targets, ocr);
      const patched = patchReading(first.text, first.words, lines, { prefer: 'surer' });
      linesReread = lines.length;
      if (patched.replaced > 0) {
        const mended = await fieldsOf(options, patched.text, patched.words);
        fields = takeRereadFields(fields, mended, [...new Set(targets.flatMap((t) => t.fields))]);
        base = patched;
      }
    }
    // The doubtful fields' lines, read by the second reader, with the word gaps of the page
    // reading (tesseract parts words more surely than the recogniser, which reads characters
    // better).
    const secondTargets = linesForSecondReader(targets, firstFields, fields, options.secondFor);
    if (options.secondLines && secondTargets.length > 0) {
      try {
        const lines = await options.secondLines.readLines(first.image, first.size, secondTargets.map((t) => t.box), secondTargets.map((t) => wordBoxesOn(base.words, t.box)));
        const patched = patchReading(base.text, base.words, lines, { prefer: 'line' });
        secondLinesRead = lines.length;
        if (patched.replaced > 0) {
          const mended = await fieldsOf(options, patched.text, patched.words);
          second = takeRereadFields(fields, mended, [...new Set(secondTargets.flatMap((t) => t.fields))]);
        }
      } catch (error) {
        secondLinesError = error instanceof Error ? error.message : String(error);
      }
    }
  }
  const readings = second ? [fields, second] : [fields];
  // Whether the page is read again is decided on the vote of the readings so far (the second
  // reader's included), as the final fields will be.
  if ((options.retry ?? true) && needsAnotherReading(combineReadings(readings))) {
    // One after the other: a receipt never holds more than one worker, so the pool's
    // throughput is shared fairly between receipts.
    for (const preparation of RETRY_READINGS) {
      const more = await readVariant(images, ocr, preparation);
      readings.push(await fieldsOf(options, more.text, more.words));
    }
  }
  const final = combineReadings(readings);
  const boxes = images.length === 1 && first.size ? pageBoxes(readings[0]!, final, first.size) : undefined;
  return {
    source: 'ocr',
    text: first.text,
    fields: final,
    ocrConfidence: Math.round(first.confidence * 10) / 10,
    passes: readings.length - (second ? 1 : 0),
    linesReread,
    ...(options.secondLines ? { secondLinesRead } : {}),
    ...(secondLinesError ? { secondLinesError } : {}),
    ...(boxes ? { boxes } : {}),
  };
}

/**
 * The line boxes, as page fractions, of the fields the first reading (mended by its line
 * re-reads) decided: where on the page each field was read.
 */
function pageBoxes(first: ReceiptFields, final: ReceiptFields, size: { width: number; height: number }): ReceiptReading['boxes'] {
  const same = {
    total: first.total !== null && final.total !== null && first.total.cents === final.total.cents,
    date: first.date !== null && final.date !== null && first.date.value === final.date.value,
    merchant: first.merchant !== null && final.merchant !== null && first.merchant.value === final.merchant.value,
  };
  const out: NonNullable<ReceiptReading['boxes']> = {};
  const clamp = (v: number): number => Math.round(Math.min(1, Math.max(0, v)) * 10_000) / 10_000;
  for (const field of ['total', 'date', 'merchant'] as const) {
    const b = first.boxes?.[field];
    if (b && same[field]) out[field] = [clamp(b.x0 / size.width), clamp(b.y0 / size.height), clamp(b.x1 / size.width), clamp(b.y1 / size.height)];
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** One reading of every page, the pages' text joined in order; `size` of the first page read. */
async function readVariant(images: readonly Uint8Array[], ocr: OcrReader, preparation: OcrPreparation): Promise<OcrResult & { words: OcrWord[]; size?: { width: number; height: number }; image?: Uint8Array }> {
  const results: PageReading[] = [];
  for (const image of images) results.push(await recognizeImage(image, ocr, preparation));
  const words = results.flatMap((r) => r.ocr.words);
  const confidence = results.length ? results.reduce((sum, r) => sum + r.ocr.confidence, 0) / results.length : 0;
  const size = results[0]?.size;
  const image = results.length === 1 ? results[0]!.image : undefined;
  return { text: results.map((r) => r.ocr.text).join('\n'), confidence, words, ...(size ? { size } : {}), ...(image ? { image } : {}) };
}

/**
 * Tesseract refuses a JPEG with damaged scan data outright; sharp decodes what it can, so a
 * failed reading is retried on the page decoded and re-encoded by sharp before the file is
 * called corrupt.
 */
async function recognizeImage(image: Uint8Array, ocr: OcrReader, preparation: OcrPreparation): Promise<PageReading> {
  const corrupt = (error: unknown): Error => (error instanceof PreparationError ? receiptFileError('corrupt', 'The image could not be decoded.') : asError(error));
  try {
    return await readPage(image, ocr, preparation);
  } catch (error) {
    if (error instanceof PreparationError || preparation !== FIRST_READING) throw corrupt(error);
    return readPage(image, ocr, preparation, true).catch((again: unknown) => { throw corrupt(again); });
  }
}

/** tesseract.js rejects with plain strings; callers and logs want Errors. */
function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(`OCR failed: ${String(error)}`);
}
