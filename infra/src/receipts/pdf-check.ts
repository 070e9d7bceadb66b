import sharp from 'sharp';
import { ValidationError } from '@paperlink/domain';
import { pdfPageSizes, pdfText, renderPdfPages } from '../ocr/pdf';
import { checkPdfWeight } from './pdf-budget';

/** Pages looked at, and the resolution: enough to see whether anything is printed on them. */
const PAGES = 3;
const DPI = 40;
/** A rendered page whose grey levels vary less than this is blank paper. */
const BLANK_STDEV = 1.5;
/** Pixels per page of the check's rendering (40 dpi of a letter page is about 0.2 million). */
const CHECK_PIXELS = 2_000_000;
/** The check's drawing takes at most this long. */
const CHECK_TIME_MS = 5_000;
/**
 * The longest side a receipt's page may have: 100 inches (2.54 m), longer than any till roll
 * or invoice. PDF allows 200 inches (and more with UserUnit); such a page is a trap, not a receipt.
 */
export const MAX_PAGE_SIDE_PT = 7200;

export const PDF_PAGE_TOO_LARGE = (width: number, height: number) =>
  `This PDF has a page of ${Math.round(width / 72)} × ${Math.round(height / 72)} inches; a receipt's page may be at most ${MAX_PAGE_SIDE_PT / 72} inches on a side.`;

export const PDF_WITHOUT_CONTENT = 'This PDF has no text and nothing printed on its pages, so there is no receipt to read.';

/**
 * Upload-time check of a PDF: it must have a text layer, or something on its first pages that
 * OCR could read (a scan). An empty PDF is refused before anything is stored; a damaged one is
 * refused by the PDF reader itself.
 */
export async function checkPdfHasContent(bytes: Uint8Array): Promise<void> {
  // What the streams decompress to, before pdfjs parses any of them (pdf-budget.ts).
  checkPdfWeight(bytes);
  // Page sizes first, from the page dictionaries: an absurd page is refused before anything is drawn.
  for (const { width, height } of await pdfPageSizes(bytes)) {
    if (Math.max(width, height) > MAX_PAGE_SIDE_PT) {
      const message = PDF_PAGE_TOO_LARGE(width, height);
      throw new ValidationError(message, [{ field: 'receipt', message }], 'pdf_page_too_large');
    }
  }
  const text = (await pdfText(bytes)).join('');
  if (/[\p{L}\p{N}]/u.test(text)) return;
  for (const page of await renderPdfPages(bytes, { dpi: DPI, maxPages: PAGES, maxPixels: CHECK_PIXELS, timeMs: CHECK_TIME_MS })) {
    const { channels } = await sharp(page).flatten({ background: '#ffffff' }).greyscale().stats();
    if ((channels[0]?.stdev ?? 0) >= BLANK_STDEV) return;
  }
  throw new ValidationError(PDF_WITHOUT_CONTENT, [{ field: 'receipt', message: PDF_WITHOUT_CONTENT }], 'pdf_without_content');
}
