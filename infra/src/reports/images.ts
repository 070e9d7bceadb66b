/**
 * Receipt files as images a PDF report embeds: downscaled JPEGs, a PDF receipt page by page
 * (rendered with pdfjs-dist through @napi-rs/canvas, infra/src/ocr/pdf.ts), at most the chosen
 * number of pages. A JPEG already small enough goes in as it is (no second lossy pass).
 */
import sharp from 'sharp';
import type { PagesPerReceipt, ReportAttachment } from '@paperlink/domain';
import { renderPdfPages } from '../ocr/pdf';

/** Longest sides of an embedded page image, in pixels (about 150 dpi over the printed box). */
const MAX_W = 1000;
const MAX_H = 1400;
/** A JPEG at most this large (bytes) and within the sides is embedded unchanged. */
const KEEP_BYTES = 400_000;
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
      const m = await sharp(bytes).metadata();
      if ((m.width ?? Infinity) <= MAX_W * 1.5 && (m.height ?? Infinity) <= MAX_H * 1.5 && (m.orientation ?? 1) === 1 && m.channels !== 4 && m.space !== 'cmyk') {
        return { filename: a.filename, pages: [bytes] };
      }
    }
    return { filename: a.filename, pages: [await downscale(bytes)] };
  } catch {
    return { filename: a.filename, pages: [], error: 'the file could not be read' };
  }
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
