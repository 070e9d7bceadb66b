/**
 * What a PDF decompresses to, measured before pdfjs reads it: a 130 KB file whose page content
 * inflates to 54 MB of drawing operators held a worker 30 s per thumbnail and 100 s per OCR run.
 * The streams are found in the raw bytes (each `obj … << … >> stream … endstream`) and
 * inflated with a ceiling, never in full; an image counts by its declared size (pdfjs decodes it
 * to that many pixels, whatever its data inflates to). Over a budget the file is refused with 422
 * `pdf_too_complex`, the same answer at upload, for a thumbnail and for OCR, in a few
 * milliseconds. The render's own time limit (ocr/pdf.ts) stays the guard for what this misses.
 */
import { inflateSync } from 'node:zlib';
import { AppError } from '@paperlink/domain';

/** Page content, forms and everything else drawn or parsed, decoded: receipts have tens of KB. */
export const MAX_PDF_CONTENT_BYTES = 2 * 1024 * 1024;
/** Embedded font programs, decoded: a few full fonts of an invoice. */
export const MAX_PDF_FONT_BYTES = 16 * 1024 * 1024;
/** Images, by declared size (4 bytes a pixel): a letter page scanned at 600 dpi is 135 MB. */
export const MAX_PDF_IMAGE_BYTES = 200 * 1024 * 1024;
/** A stream whose filters are not inflated here counts as this many times its bytes (run-length expands 64 times at most). */
const OTHER_FILTER_FACTOR = 64;

export interface PdfWeight {
  contentBytes: number;
  fontBytes: number;
  imageBytes: number;
}

export const PDF_TOO_COMPLEX = 'This PDF holds more than a receipt could: its pages decompress to too much to draw. Save or print it again as a simpler PDF, or upload a photo of the receipt.';

export class PdfTooComplexError extends AppError {
  constructor() {
    super(422, 'pdf_too_complex', PDF_TOO_COMPLEX, [{ field: 'receipt', message: PDF_TOO_COMPLEX }]);
  }
}

const latin1 = (bytes: Uint8Array, from: number, to: number): string => Buffer.from(bytes.buffer, bytes.byteOffset + from, Math.max(0, to - from)).toString('latin1');

/** Throws `PdfTooComplexError` when the file is over a budget; otherwise returns what it weighs. */
export function checkPdfWeight(bytes: Uint8Array): PdfWeight {
  const weight = pdfWeight(bytes, { content: MAX_PDF_CONTENT_BYTES, font: MAX_PDF_FONT_BYTES });
  if (weight.contentBytes > MAX_PDF_CONTENT_BYTES || weight.fontBytes > MAX_PDF_FONT_BYTES || weight.imageBytes > MAX_PDF_IMAGE_BYTES) throw new PdfTooComplexError();
  return weight;
}

/**
 * The decoded sizes of a PDF's streams by kind, each counted up to just past its ceiling (the
 * inflation stops there: a bomb costs its ceiling, not its size).
 */
export function pdfWeight(bytes: Uint8Array, ceilings: { content: number; font: number }): PdfWeight {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const weight: PdfWeight = { contentBytes: 0, fontBytes: 0, imageBytes: 0 };
  let at = 0;
  for (;;) {
    const keyword = buf.indexOf('stream', at, 'latin1');
    if (keyword < 0) break;
    at = keyword + 6;
    // `endstream`, or a word that merely ends in "stream", is not a stream's start.
    if (keyword >= 3 && latin1(bytes, keyword - 3, keyword) === 'end') continue;
    let start = at;
    if (buf[start] === 0x0d) start++;
    if (buf[start] !== 0x0a && buf[start - 1] !== 0x0d) continue;
    if (buf[start] === 0x0a) start++;
    const objAt = buf.lastIndexOf(' obj', keyword, 'latin1');
    const dict = latin1(bytes, objAt < 0 ? Math.max(0, keyword - 4096) : objAt, keyword);
    if (!/>>\s*$/.test(dict)) continue;
    const end = streamEnd(buf, dict, start);
    at = end;
    const kind = streamKind(dict);
    if (kind === 'image') {
      weight.imageBytes += declaredPixels(dict) * 4;
      continue;
    }
    const field = kind === 'font' ? 'fontBytes' : 'contentBytes';
    const room = (kind === 'font' ? ceilings.font : ceilings.content) - weight[field];
    weight[field] += decodedSize(buf.subarray(start, end), filters(dict), Math.max(0, room) + 1);
  }
  return weight;
}

/** Where a stream's data ends: its direct /Length when that lands on `endstream`, else the next `endstream`. */
function streamEnd(buf: Buffer, dict: string, start: number): number {
  const direct = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dict);
  if (direct) {
    const end = start + Number(direct[1]);
    if (end <= buf.length && /^\s*endstream/.test(buf.toString('latin1', end, Math.min(buf.length, end + 12)))) return end;
  }
  const found = buf.indexOf('endstream', start, 'latin1');
  return found < 0 ? buf.length : found;
}

function streamKind(dict: string): 'image' | 'font' | 'content' {
  if (/\/Subtype\s*\/Image\b/.test(dict)) return 'image';
  if (/\/Length[123]\b|\/Subtype\s*\/(?:Type1C|CIDFontType0C|OpenType)\b/.test(dict)) return 'font';
  return 'content';
}

function declaredPixels(dict: string): number {
  const width = Number(/\/(?:Width|W)\s+(\d+)/.exec(dict)?.[1] ?? 0);
  const height = Number(/\/(?:Height|H)\s+(\d+)/.exec(dict)?.[1] ?? 0);
  return width * height;
}

/** The filter names of a stream, abbreviations spelt out. */
function filters(dict: string): string[] {
  const m = /\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9]+)/.exec(dict);
  if (!m) return [];
  return (m[1]!.match(/\/[A-Za-z0-9]+/g) ?? []).map((f) => ({ '/Fl': '/FlateDecode', '/LZW': '/LZWDecode', '/RL': '/RunLengthDecode' })[f] ?? f);
}

/** Decoded size of a stream's data, counted at most to `ceiling`. */
function decodedSize(data: Buffer, chain: readonly string[], ceiling: number): number {
  if (chain.length === 0) return data.length;
  if (chain.length === 1 && chain[0] === '/FlateDecode') return inflatedSize(data, ceiling);
  return Math.min(ceiling, data.length * OTHER_FILTER_FACTOR);
}

function inflatedSize(data: Buffer, ceiling: number): number {
  try {
    return inflateSync(data, { maxOutputLength: ceiling, finishFlush: 2 /* Z_SYNC_FLUSH: a stream cut short still counts what it holds */ }).length;
  } catch (error) {
    // Past the ceiling: counted as the ceiling. Data zlib cannot read: pdfjs will not draw it either.
    return (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' ? ceiling : 0;
  }
}
