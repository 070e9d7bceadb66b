/**
 * Receipt uploads are recognised by their bytes, never by their name or declared type: a
 * renamed text file, a truncated upload or a decompression bomb must be refused before any
 * decoder (sharp, pdfjs, tesseract) sees it. Everything here is pure and reads headers only,
 * so it costs microseconds even for a 10 MB file.
 */
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../core/errors';
import type { AppError } from '../core/errors';

/** The product accepts receipts up to 10 MB (spec §5). */
export const RECEIPT_MAX_BYTES = 10 * 1024 * 1024;
/** Decoded size guard: 40 megapixels is ~160 MB of RGBA, far more than any scanned receipt needs. */
export const RECEIPT_MAX_PIXELS = 40_000_000;
/** A receipt PDF longer than this is a report, not a receipt; rendering it would hog the OCR pool. */
export const RECEIPT_MAX_PAGES = 20;

export type ReceiptFileKind = 'jpeg' | 'png' | 'pdf';

export interface SniffedFile {
  kind: ReceiptFileKind;
  mime: 'image/jpeg' | 'image/png' | 'application/pdf';
  width?: number;
  height?: number;
  /** Rough page count of a PDF (absent when the page tree sits in compressed object streams). */
  pages?: number;
}

export type ReceiptFileErrorCode =
  | 'empty' | 'too_large' | 'unsupported_type' | 'too_many_pixels' | 'too_many_pages' | 'truncated' | 'corrupt';

export interface ReceiptFileLimits {
  maxBytes: number;
  maxPixels: number;
  maxPages: number;
}

const DEFAULT_LIMITS: ReceiptFileLimits = {
  maxBytes: RECEIPT_MAX_BYTES, maxPixels: RECEIPT_MAX_PIXELS, maxPages: RECEIPT_MAX_PAGES,
};

/** Size problems answer 413 and foreign types 415, like the HTTP layer would; the rest are 400s. */
export function receiptFileError(code: ReceiptFileErrorCode, message: string): AppError {
  if (code === 'too_large') return new PayloadTooLargeError(message, code);
  if (code === 'unsupported_type') return new UnsupportedMediaTypeError(message, code);
  return new ValidationError(message, [{ field: 'receipt', message }], code);
}

/** Identifies a JPEG, PNG or PDF receipt from its bytes and checks it is whole and of sane size. */
export function sniffFile(bytes: Uint8Array, limits: Partial<ReceiptFileLimits> = {}): SniffedFile {
  const lim = { ...DEFAULT_LIMITS, ...limits };
  if (bytes.length === 0) throw receiptFileError('empty', 'The file is empty.');
  if (bytes.length > lim.maxBytes) {
    throw receiptFileError('too_large', `The file is larger than ${Math.round(lim.maxBytes / 1024 / 1024)} MB.`);
  }
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return checkPixels(sniffJpeg(bytes), lim);
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return checkPixels(sniffPng(bytes), lim);
  if (startsWith(bytes, ascii('%PDF-'))) return sniffPdf(bytes, lim);
  const other = otherKnownType(bytes);
  throw receiptFileError('unsupported_type',
    `Receipts must be JPEG, PNG or PDF files${other ? ` (this one is ${other})` : ''}.`);
}

function checkPixels(file: SniffedFile, lim: ReceiptFileLimits): SniffedFile {
  const { width = 0, height = 0 } = file;
  if (width === 0 || height === 0) throw receiptFileError('corrupt', 'The image has no size.');
  if (width * height > lim.maxPixels) {
    throw receiptFileError('too_many_pixels',
      `The image is ${width}×${height} pixels; at most ${lim.maxPixels / 1_000_000} megapixels are accepted.`);
  }
  return file;
}

/** Start-of-frame markers carry the dimensions (C4 = DHT, C8 = JPG, CC = DAC are not frames). */
const SOF_MARKERS = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** Walks the marker segments up to the frame header, then checks the end-of-image marker. */
function sniffJpeg(bytes: Uint8Array): SniffedFile {
  const size = jpegFrameSize(bytes);
  if (!endsWithEoi(bytes)) throw receiptFileError('truncated', 'The JPEG image is cut off (no end marker).');
  return { kind: 'jpeg', mime: 'image/jpeg', ...size };
}

function jpegFrameSize(bytes: Uint8Array): { width: number; height: number } {
  let i = 2;
  while (i + 3 < bytes.length) {
    if (bytes[i] !== 0xff) throw receiptFileError('corrupt', 'The JPEG image is damaged.');
    const marker = bytes[i + 1]!;
    if (marker === 0xff) { i += 1; continue; } // fill byte
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { i += 2; continue; } // no length
    const length = readU16(bytes, i + 2);
    if (length < 2 || i + 2 + length > bytes.length) break;
    if (SOF_MARKERS.has(marker)) {
      if (length < 7) break;
      return { height: readU16(bytes, i + 5), width: readU16(bytes, i + 7) };
    }
    if (marker === 0xda || marker === 0xd9) throw receiptFileError('corrupt', 'The JPEG image has no frame header.');
    i += 2 + length;
  }
  throw receiptFileError('truncated', 'The JPEG image is cut off.');
}

/** Scanners and some phones pad the file with zeros after the EOI marker; allow that. */
function endsWithEoi(bytes: Uint8Array): boolean {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0x00) end--;
  return end >= 4 && bytes[end - 2] === 0xff && bytes[end - 1] === 0xd9;
}

/** IHDR must come first; the chunk walk must reach IEND without running off the end. */
function sniffPng(bytes: Uint8Array): SniffedFile {
  if (bytes.length < 33 || ascii4(bytes, 12) !== 'IHDR') throw receiptFileError('truncated', 'The PNG image is cut off.');
  const width = readU32(bytes, 16);
  const height = readU32(bytes, 20);
  if (!pngHasIend(bytes)) throw receiptFileError('truncated', 'The PNG image is cut off (no IEND chunk).');
  return { kind: 'png', mime: 'image/png', width, height };
}

function pngHasIend(bytes: Uint8Array): boolean {
  let i = 8;
  while (i + 12 <= bytes.length) {
    const length = readU32(bytes, i);
    const type = ascii4(bytes, i + 4);
    const next = i + 12 + length;
    if (next > bytes.length) return false;
    if (type === 'IEND') return true;
    i = next;
  }
  return false;
}

/** How far from the end `%%EOF` may sit (writers append newlines, some append junk). */
const PDF_EOF_WINDOW = 2048;

function sniffPdf(bytes: Uint8Array, lim: ReceiptFileLimits): SniffedFile {
  const tail = latin1(bytes.subarray(Math.max(0, bytes.length - PDF_EOF_WINDOW)));
  if (!tail.includes('%%EOF')) throw receiptFileError('truncated', 'The PDF is cut off (no %%EOF marker).');
  const pages = countPdfPages(latin1(bytes));
  if (pages !== undefined && pages > lim.maxPages) {
    throw receiptFileError('too_many_pages', `The PDF has ${pages} pages; at most ${lim.maxPages} are accepted.`);
  }
  return pages === undefined ? { kind: 'pdf', mime: 'application/pdf' } : { kind: 'pdf', mime: 'application/pdf', pages };
}

/**
 * Counts page objects (`/Type /Page`, not `/Pages`) and the page tree's `/Count`, taking the
 * larger: either may be hidden in a compressed object stream, in which case the renderer's
 * own page count is the backstop.
 */
export function countPdfPages(text: string): number | undefined {
  const pageObjects = text.match(/\/Type\s*\/Page(?![A-Za-z])/g)?.length ?? 0;
  let treeCount = 0;
  for (const m of text.matchAll(/\/Type\s*\/Pages\b[^>]*?\/Count\s+(\d+)|\/Count\s+(\d+)[^>]*?\/Type\s*\/Pages\b/g)) {
    treeCount = Math.max(treeCount, Number(m[1] ?? m[2]));
  }
  const pages = Math.max(pageObjects, treeCount);
  return pages > 0 ? pages : undefined;
}

/** Names a few formats people try to upload, so the error can say what the file really is. */
function otherKnownType(bytes: Uint8Array): string | undefined {
  if (startsWith(bytes, ascii('GIF8'))) return 'a GIF image';
  if (startsWith(bytes, ascii('RIFF')) && ascii4(bytes, 8) === 'WEBP') return 'a WebP image';
  if (ascii4(bytes, 4) === 'ftyp' && /^(hei|hev|mif|avi)/.test(ascii4(bytes, 8))) return 'a HEIC/AVIF image';
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return 'a TIFF image';
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return 'a ZIP or Office document';
  return undefined;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b);
}

function ascii(s: string): number[] {
  return [...s].map((c) => c.charCodeAt(0));
}

function ascii4(bytes: Uint8Array, at: number): string {
  return at + 4 <= bytes.length ? String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!) : '';
}

function latin1(bytes: Uint8Array): string {
  return new TextDecoder('latin1').decode(bytes);
}

function readU16(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}

function readU32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) >>> 0) + (bytes[at + 1]! << 16) + (bytes[at + 2]! << 8) + bytes[at + 3]!;
}
