/**
 * A receipt's print copy (ADR 0018): the page images a PDF report embeds for the
 * receipt, made once (when the receipt is read, or by the first report that needs it) and kept
 * beside the file in the blob store, so reports do not decode and downscale phone photos or
 * render PDF pages again. Layout: "PLPC", a flags byte (1: the file goes in as it is, no pages
 * follow; 2: complete, the pages are every page a report may show), a page count, each page's
 * length (u32, big-endian), then the JPEG pages.
 */
import type { PagesPerReceipt } from './types';

export const PRINT_COPY = 'print-v1';
/** 'all' pages of a PDF receipt still stops here (a 500-page upload is not a receipt). */
export const PRINT_ALL_PAGES = 30;

export interface PrintCopy {
  /** The original file is embedded unchanged (a JPEG small in bytes and pixels). */
  asIs: boolean;
  /** The pages are all the file has (up to the cap of 'all'); otherwise only the first `pages.length`. */
  complete: boolean;
  pages: Uint8Array[];
}

const MAGIC = [0x50, 0x4c, 0x50, 0x43];

export function encodePrintCopy(copy: PrintCopy): Uint8Array {
  if (copy.pages.length > 255) throw new Error('a print copy holds at most 255 pages');
  const head = 6 + 4 * copy.pages.length;
  const out = new Uint8Array(head + copy.pages.reduce((n, p) => n + p.byteLength, 0));
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  out[4] = (copy.asIs ? 1 : 0) | (copy.complete ? 2 : 0);
  out[5] = copy.pages.length;
  let at = head;
  copy.pages.forEach((p, i) => {
    view.setUint32(6 + 4 * i, p.byteLength);
    out.set(p, at);
    at += p.byteLength;
  });
  return out;
}

/** The copy in `bytes` (pages are views into it), or null when it is not one. */
export function decodePrintCopy(bytes: Uint8Array): PrintCopy | null {
  if (bytes.byteLength < 6 || MAGIC.some((b, i) => bytes[i] !== b)) return null;
  const flags = bytes[4]!;
  const count = bytes[5]!;
  const head = 6 + 4 * count;
  if (bytes.byteLength < head) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pages: Uint8Array[] = [];
  let at = head;
  for (let i = 0; i < count; i++) {
    const len = view.getUint32(6 + 4 * i);
    if (at + len > bytes.byteLength) return null;
    pages.push(bytes.subarray(at, at + len));
    at += len;
  }
  if ((flags & 1) !== 0 && count > 0) return null;
  return { asIs: (flags & 1) !== 0, complete: (flags & 2) !== 0, pages };
}

/** What a report needs of a receipt given its stored copy (or none): the copy's pages, or the original file. */
export function printCopyUse(copy: Uint8Array | null, maxPages: PagesPerReceipt): 'copy' | 'original-as-is' | 'original' {
  const c = copy ? decodePrintCopy(copy) : null;
  if (!c) return 'original';
  if (c.asIs) return 'original-as-is';
  return c.complete || c.pages.length >= (maxPages === 'all' ? PRINT_ALL_PAGES : maxPages) ? 'copy' : 'original';
}
