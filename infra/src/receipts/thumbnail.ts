import sharp from 'sharp';
import { AppError, encodePrintCopy } from '@paperlink/domain';
import { checkPdfWeight } from './pdf-budget';

/** Thumbnail width in pixels. */
const WIDTH = 320;
/** A PDF page is rendered with at most this many pixels (4× the thumbnail's width of a letter page). */
const PDF_PIXELS = 1_500_000;
/** A thumbnail's drawing takes at most this long (a receipt's takes tens of ms). */
const PDF_TIME_MS = 5_000;

/** A small JPEG of a receipt: the image scaled down, or a PDF's first page rendered. */
export async function thumbnail(bytes: Buffer, kind: 'jpeg' | 'png' | 'pdf'): Promise<Buffer> {
  let image: Buffer = bytes;
  if (kind === 'pdf') {
    // Files stored before the upload weighed them are weighed here, before pdfjs reads them.
    checkPdfWeight(bytes);
    const { renderPdfPages } = await import('../ocr/pdf');
    const [first] = await renderPdfPages(bytes, { dpi: 72, maxPages: 1, maxPixels: PDF_PIXELS, timeMs: PDF_TIME_MS });
    if (!first) throw new Error('The PDF has no pages');
    image = Buffer.from(first);
  }
  try {
    return await sharp(image, { limitInputPixels: 40_000_000 }).rotate().resize({ width: WIDTH, withoutEnlargement: true }).flatten({ background: '#ffffff' }).jpeg({ quality: 75 }).toBuffer();
  } catch {
    // The stored file's fault (a corrupt scan that passed the upload's checks), not the server's: a 4xx.
    throw new AppError(422, 'image_unreadable', IMAGE_UNREADABLE);
  }
}

export const IMAGE_UNREADABLE = 'This receipt image could not be decoded to draw its thumbnail. Download the file to check it, or upload a new copy.';

/**
 * Pages of a PDF receipt its print copy holds when made at upload: the largest page choice short
 * of 'all' (a report asking for all pages of a longer PDF renders them, and keeps that copy).
 */
export const PRINT_COPY_PAGES = 5;

/** The kind of a receipt file from its first bytes (uploads are checked to be one of these). */
export function receiptKind(bytes: Uint8Array): 'jpeg' | 'png' | 'pdf' | null {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'jpeg';
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'png';
  if (Buffer.from(bytes.subarray(0, 1024)).includes('%PDF-')) return 'pdf';
  return null;
}

/**
 * A receipt's print copy (domain/src/reports/print-copy.ts), made once per file when it is read
 * (a pool task) and kept beside it in the blob store, so that PDF reports embed it instead of
 * decoding and downscaling the file each time. Throws when the file cannot be read.
 */
export async function printCopy(bytes: Buffer): Promise<Uint8Array> {
  const kind = receiptKind(bytes);
  if (!kind) throw new Error('not a receipt file');
  if (kind === 'pdf') checkPdfWeight(bytes);
  const { makePrintCopy } = await import('../reports/images');
  return encodePrintCopy(await makePrintCopy(bytes, kind, PRINT_COPY_PAGES));
}
