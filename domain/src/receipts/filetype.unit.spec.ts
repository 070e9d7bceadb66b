import { describe, expect, it } from 'vitest';
import { AppError } from '../core/errors';
import { RECEIPT_MAX_BYTES, countPdfPages, sniffFile } from './filetype';

/** A minimal baseline JPEG: SOI, APP0, SOF0 with the given size, SOS, a few data bytes, EOI. */
function jpeg(width: number, height: number, { eoi = true, padding = 0 } = {}): Uint8Array {
  const app0 = [0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00];
  const sof0 = [0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03,
    0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01];
  const sos = [0xff, 0xda, 0x00, 0x0c, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3f, 0x00];
  const data = [0x12, 0x34, 0xff, 0x00, 0x56];
  return Uint8Array.from([0xff, 0xd8, ...app0, ...sof0, ...sos, ...data, ...(eoi ? [0xff, 0xd9] : []),
    ...new Array<number>(padding).fill(0)]);
}

function u32(n: number): number[] {
  return [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

/** Chunk CRCs are not checked by the sniffer, so zeros are fine here. */
function chunk(type: string, data: number[]): number[] {
  return [...u32(data.length), ...[...type].map((c) => c.charCodeAt(0)), ...data, 0, 0, 0, 0];
}

function png(width: number, height: number, { iend = true } = {}): Uint8Array {
  const ihdr = chunk('IHDR', [...u32(width), ...u32(height), 8, 2, 0, 0, 0]);
  const idat = chunk('IDAT', [0x78, 0x9c, 0x63, 0x00, 0x00]);
  return Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...ihdr, ...idat, ...(iend ? chunk('IEND', []) : [])]);
}

function pdf(pages: number, { eof = true } = {}): Uint8Array {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ');
  const pageObjects = Array.from({ length: pages }, (_, i) =>
    `${i + 3} 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >> endobj`).join('\n');
  const text = `%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n`
    + `2 0 obj << /Type /Pages /Kids [${kids}] /Count ${pages} >> endobj\n${pageObjects}\n`
    + `trailer << /Root 1 0 R >>\n${eof ? '%%EOF\n' : ''}`;
  return new TextEncoder().encode(text);
}

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

describe('sniffFile', () => {
  it('reads a JPEG frame size from its SOF marker', () => {
    expect(sniffFile(jpeg(640, 1200))).toEqual({ kind: 'jpeg', mime: 'image/jpeg', width: 640, height: 1200 });
  });

  it('accepts zero padding after the JPEG end marker', () => {
    expect(sniffFile(jpeg(100, 200, { padding: 64 })).kind).toBe('jpeg');
  });

  it('refuses a JPEG without its end marker as truncated', () => {
    const e = errorOf(() => sniffFile(jpeg(100, 200, { eoi: false })));
    expect([e.status, e.code]).toEqual([400, 'truncated']);
  });

  it('refuses a JPEG cut inside its headers as truncated', () => {
    expect(errorOf(() => sniffFile(jpeg(100, 200).subarray(0, 30))).code).toBe('truncated');
  });

  it('reads a PNG size from IHDR', () => {
    expect(sniffFile(png(800, 600))).toEqual({ kind: 'png', mime: 'image/png', width: 800, height: 600 });
  });

  it('refuses a PNG without IEND as truncated', () => {
    expect(errorOf(() => sniffFile(png(800, 600, { iend: false }))).code).toBe('truncated');
  });

  it('refuses a PNG cut in the middle of a chunk', () => {
    const whole = png(800, 600);
    expect(errorOf(() => sniffFile(whole.subarray(0, whole.length - 20))).code).toBe('truncated');
  });

  it.each([
    ['PNG', () => png(50_000, 50_000)],
    ['JPEG', () => jpeg(65_000, 65_000)],
  ])('refuses a %s pixel bomb from its header alone', (_kind, make) => {
    const e = errorOf(() => sniffFile(make()));
    expect([e.status, e.code]).toEqual([400, 'too_many_pixels']);
  });

  it('accepts an image right at the pixel limit', () => {
    expect(sniffFile(png(8000, 5000)).width).toBe(8000);
  });

  it('refuses a text file whatever its name says', () => {
    const text = new TextEncoder().encode('Date,Amount\n2024-01-05,12.50\n');
    const e = errorOf(() => sniffFile(text));
    expect([e.status, e.code]).toEqual([415, 'unsupported_type']);
  });

  it('names a known foreign format in the message', () => {
    const gif = new TextEncoder().encode('GIF89a\x01\x00\x01\x00');
    expect(errorOf(() => sniffFile(gif)).message).toContain('GIF');
  });

  it('refuses an empty file', () => {
    expect(errorOf(() => sniffFile(new Uint8Array(0))).code).toBe('empty');
  });

  it('refuses a file over 10 MB before looking inside', () => {
    const big = new Uint8Array(RECEIPT_MAX_BYTES + 1);
    big.set(jpeg(10, 10));
    const e = errorOf(() => sniffFile(big));
    expect([e.status, e.code]).toEqual([413, 'too_large']);
  });

  it('accepts a file of exactly 10 MB', () => {
    const big = new Uint8Array(RECEIPT_MAX_BYTES);
    const head = jpeg(10, 10);
    big.set(head.subarray(0, head.length - 2));
    big.set([0xff, 0xd9], RECEIPT_MAX_BYTES - 2);
    expect(sniffFile(big).kind).toBe('jpeg');
  });

  it('recognises a PDF and counts its pages', () => {
    expect(sniffFile(pdf(2))).toEqual({ kind: 'pdf', mime: 'application/pdf', pages: 2 });
  });

  it('refuses a PDF without %%EOF as truncated', () => {
    expect(errorOf(() => sniffFile(pdf(1, { eof: false }))).code).toBe('truncated');
  });

  it('refuses a PDF with more than 20 pages', () => {
    const e = errorOf(() => sniffFile(pdf(21)));
    expect([e.status, e.code]).toEqual([400, 'too_many_pages']);
    expect(sniffFile(pdf(20)).pages).toBe(20);
  });

  it('refuses a PDF-like text that does not start with the header', () => {
    const text = new TextEncoder().encode(`  ${new TextDecoder().decode(pdf(1))}`);
    expect(errorOf(() => sniffFile(text)).code).toBe('unsupported_type');
  });
});

describe('countPdfPages', () => {
  it('does not count the page tree node as a page', () => {
    expect(countPdfPages('<< /Type /Pages /Count 1 >> << /Type/Page >>')).toBe(1);
  });

  it('falls back to the tree count when page objects are compressed', () => {
    expect(countPdfPages('<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>')).toBe(2);
  });

  it('is undefined when nothing is visible', () => {
    expect(countPdfPages('%PDF-1.7 stream...')).toBeUndefined();
  });
});
