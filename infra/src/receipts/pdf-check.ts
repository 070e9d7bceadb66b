import sharp from 'sharp';
import { ValidationError } from '@paperlink/domain';
import { pdfText, renderPdfPages } from '../ocr/pdf';

/** Pages looked at, and the resolution: enough to see whether anything is printed on them. */
const PAGES = 3;
const DPI = 40;
/** A rendered page whose grey levels vary less than this is blank paper. */
const BLANK_STDEV = 1.5;

export const PDF_WITHOUT_CONTENT = 'This PDF has no text and nothing printed on its pages, so there is no receipt to read.';

/**
 * Upload-time check of a PDF: it must have a text layer, or something on its first pages that
 * OCR could read (a scan). An empty PDF is refused before anything is stored; a damaged one is
 * refused by the PDF reader itself.
 */
export async function checkPdfHasContent(bytes: Uint8Array): Promise<void> {
  const text = (await pdfText(bytes)).join('');
  if (/[\p{L}\p{N}]/u.test(text)) return;
  for (const page of await renderPdfPages(bytes, { dpi: DPI, maxPages: PAGES })) {
    const { channels } = await sharp(page).flatten({ background: '#ffffff' }).greyscale().stats();
    if ((channels[0]?.stdev ?? 0) >= BLANK_STDEV) return;
  }
  throw new ValidationError(PDF_WITHOUT_CONTENT, [{ field: 'receipt', message: PDF_WITHOUT_CONTENT }], 'pdf_without_content');
}
