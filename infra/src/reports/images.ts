/**
 * Receipt files as images a PDF report embeds: downscaled JPEGs, a PDF receipt page by page
 * (rendered with pdfjs-dist through @napi-rs/canvas, infra/src/ocr/pdf.ts), at most the chosen
 * number of pages. A JPEG already small in bytes goes in as it is (no second lossy pass).
 */
import sharp from 'sharp';
import type { PagesPerReceipt, ReportAttachment } from '@paperlink/domain';
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
export const ALL_PAGES_CAP = 30;

export interface PreparedImage {
  filename: string;
  /** JPEG pages; empty when the file could not be read. */
  pages: Buffer[];
  error?: string;
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

export async function prepareImage(a: ReportAttachment, maxPages: PagesPerReceipt): Promise<PreparedImage> {
  if (!a.bytes) return { filename: a.filename, pages: [], error: 'file not found' };
  const bytes = asBuffer(a.bytes);
  try {
    if (a.kind === 'pdf') {
      const pages = await renderPdfPages(bytes, { dpi: 100, maxPages: maxPages === 'all' ? ALL_PAGES_CAP : maxPages, maxPixels: 4_000_000 });
      return { filename: a.filename, pages: await Promise.all(pages.map(downscale)) };
    }
    if (a.kind === 'jpeg' && bytes.length <= KEEP_BYTES) {
      const size = jpegSize(bytes);
      // Grey or RGB (CMYK JPEGs print inverted in some viewers: they are re-encoded as RGB).
      if (size && size.width * size.height <= KEEP_PIXELS && (size.components === 1 || size.components === 3)) return { filename: a.filename, pages: [bytes] };
    }
    return { filename: a.filename, pages: [await downscale(bytes)] };
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
