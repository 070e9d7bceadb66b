/**
 * Receipt files as images a PDF report embeds: downscaled JPEGs, a PDF receipt page by page
 * (rendered with pdfjs-dist through @napi-rs/canvas, infra/src/ocr/pdf.ts), at most the chosen
 * number of pages. A JPEG already small in bytes goes in as it is (no second lossy pass).
 *
 * These pages are the receipt's print copy (domain/src/reports/print-copy.ts): made once, when
 * the receipt is read (infra/src/receipts/thumbnail.ts `printCopy`, in a pool worker), and kept
 * beside the file in the blob store; a report uses the stored copy and makes one only for a
 * receipt without it (files stored before copies existed), handing it back to be kept.
 */
import sharp from 'sharp';
import { decodePrintCopy, encodePrintCopy, PRINT_ALL_PAGES, type PagesPerReceipt, type PrintCopy, type ReportAttachment } from '@paperlink/domain';
import { renderPdfPages } from '../ocr/pdf';

/** Longest sides of an embedded page image, in pixels (about 190 dpi over the 300 x 380 pt box it is drawn in). */
const MAX_W = 800;
const MAX_H = 1100;
/**
 * A JPEG at most this large in bytes and pixels is embedded unchanged: a receipt scan (60-390 KB
 * in our data, up to 936 x 2779) costs the PDF no more than its bytes, and re-encoding it would
 * cost 30-40 ms of CPU and a second lossy pass. Larger files (phone photos of several MB) are
 * downscaled.
 */
const KEEP_BYTES = 500_000;
const KEEP_PIXELS = 12_000_000;
/** 'all' pages of a PDF receipt still stops here (a 500-page upload is not a receipt). */
export const ALL_PAGES_CAP = PRINT_ALL_PAGES;

export interface PreparedImage {
  filename: string;
  /** JPEG pages; empty when the file could not be read. */
  pages: Uint8Array[];
  error?: string;
  /** A print copy made here (the receipt had none that served), to be kept under the file's key. */
  made?: { sha256: string; copy: Uint8Array };
  /** Where the pages came from: the stored print copy, or the file itself. */
  from?: 'print-copy' | 'file';
}

const asBuffer = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

async function downscale(input: Buffer): Promise<Buffer> {
  return sharp(input, { limitInputPixels: 100_000_000 })
    .rotate()
    .resize({ width: MAX_W, height: MAX_H, fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 72, mozjpeg: false })
    .toBuffer();
}

/**
 * A receipt file's print copy: its first `maxPages` pages (a PDF), its downscaled image, or the
 * mark that the file goes in as it is (a JPEG small in bytes and pixels). Throws when the file
 * cannot be read.
 */
export async function makePrintCopy(bytes: Buffer, kind: ReportAttachment['kind'], maxPages: number): Promise<PrintCopy> {
  if (kind === 'pdf') {
    const pages = await renderPdfPages(bytes, { dpi: 100, maxPages, maxPixels: 4_000_000 });
    if (pages.length === 0) throw new Error('The PDF has no pages');
    // Fewer pages than asked for: that was all of them.
    return { asIs: false, complete: pages.length < maxPages, pages: await Promise.all(pages.map(downscale)) };
  }
  if (kind === 'jpeg' && bytes.length <= KEEP_BYTES) {
    const size = jpegSize(bytes);
    // Grey or RGB (CMYK JPEGs print inverted in some viewers: they are re-encoded as RGB).
    if (size && size.width * size.height <= KEEP_PIXELS && (size.components === 1 || size.components === 3)) return { asIs: true, complete: true, pages: [] };
  }
  return { asIs: false, complete: true, pages: [await downscale(bytes)] };
}

export async function prepareImage(a: ReportAttachment, maxPages: PagesPerReceipt): Promise<PreparedImage> {
  const want = maxPages === 'all' ? ALL_PAGES_CAP : maxPages;
  const stored = a.print ? decodePrintCopy(a.print) : null;
  if (stored && !stored.asIs && (stored.complete || stored.pages.length >= want)) return { filename: a.filename, pages: stored.pages.slice(0, want), from: 'print-copy' };
  if (stored?.asIs && a.bytes) return { filename: a.filename, pages: [a.bytes], from: 'print-copy' };
  if (!a.bytes) return { filename: a.filename, pages: [], error: 'file not found' };
  const bytes = asBuffer(a.bytes);
  try {
    const copy = await makePrintCopy(bytes, a.kind, want);
    return { filename: a.filename, pages: copy.asIs ? [bytes] : copy.pages, from: 'file', ...(a.sha256 ? { made: { sha256: a.sha256, copy: encodePrintCopy(copy) } } : {}) };
  } catch {
    return { filename: a.filename, pages: [], error: 'the file could not be read' };
  }
}

/**
 * Width, height and colour components of a baseline or progressive JPEG, read from its frame
 * header without decoding it (null when the markers do not make sense). pdfkit embeds such a
 * file as it is and applies its EXIF orientation itself.
 */
export function jpegSize(b: Uint8Array): { width: number; height: number; components: number } | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++;
      continue;
    }
    const len = (b[i + 2]! << 8) | b[i + 3]!;
    // SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: (b[i + 5]! << 8) | b[i + 6]!, width: (b[i + 7]! << 8) | b[i + 8]!, components: b[i + 9]! };
    }
    if (marker === 0xda || len < 2) return null;
    i += 2 + len;
  }
  return null;
}

/** Prepares many files, `concurrency` at a time, keeping their order. */
export async function prepareAll(items: ReportAttachment[], maxPages: PagesPerReceipt, concurrency = 4): Promise<PreparedImage[]> {
  const out: PreparedImage[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await prepareImage(items[i]!, maxPages);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  return out;
}
