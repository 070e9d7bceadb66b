/**
 * PDF receipts through pdfjs-dist (legacy build, the one that runs in Node 20): the text layer
 * when the PDF has one (e-receipts, invoices), otherwise the pages rendered to PNG with
 * @napi-rs/canvas for OCR (scans saved as PDF). Fonts, CMaps, ICC profiles and image decoders
 * are read from the installed package folder, never fetched.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { receiptFileError } from '@paperlink/domain';
import { PdfTooComplexError } from '../receipts/pdf-budget';
import type * as PdfJs from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api';

export interface RenderOptions {
  /** 200-300 is what OCR wants; default 250. */
  dpi?: number;
  /** Pages rendered at most, from the first; default 3 (receipts are short). */
  maxPages?: number;
  /**
   * Pixels per rendered page at most (default 25 million): a page too large for the
   * resolution is rendered at a lower one, so no page costs more than this whatever its size.
   */
  maxPixels?: number;
  /**
   * Wall time the drawing of all pages may take, in ms (default 20 s, under the pool's 30 s
   * limit): pdfjs is stopped between its slices of work and the file refused (422
   * `pdf_too_complex`), so a page of a million cheap operators costs its budget, not its size.
   */
  timeMs?: number;
}

/** Size of a page in points (1/72 in), as pdfjs will lay it out (rotation and UserUnit applied). */
export interface PageSize {
  width: number;
  height: number;
}

/** The pixel budget of one rendered page. */
export const MAX_RENDER_PIXELS = 25_000_000;
/** No side of a rendered page is longer than this (canvas limits). */
const MAX_RENDER_SIDE = 16_384;

const PDFJS_DIR = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const asset = (folder: string): string => `${join(PDFJS_DIR, folder)}/`;
const MIN_DPI = 72;
const DEFAULT_RENDER_MS = 20_000;
const MAX_DPI = 400;

/** The text of each page, lines rebuilt from the positioned text items (top to bottom). */
export async function pdfText(bytes: Uint8Array): Promise<string[]> {
  return withDocument(bytes, async (doc) => {
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) pages.push(await pageText(await doc.getPage(n)));
    return pages;
  });
}

/** The size of every page (read from the page dictionaries, nothing is rendered). */
export async function pdfPageSizes(bytes: Uint8Array, maxPages = Infinity): Promise<PageSize[]> {
  return withDocument(bytes, async (doc) => {
    const out: PageSize[] = [];
    for (let n = 1; n <= Math.min(doc.numPages, maxPages); n++) {
      const page = await doc.getPage(n);
      const { width, height } = page.getViewport({ scale: 1 });
      out.push({ width, height });
      page.cleanup();
    }
    return out;
  });
}

/**
 * Renders the first pages to PNG at the given resolution, or lower where a page would exceed
 * the pixel budget at it (the page's size is read before anything is drawn).
 */
export async function renderPdfPages(bytes: Uint8Array, options: RenderOptions = {}): Promise<Buffer[]> {
  const dpi = Math.min(MAX_DPI, Math.max(MIN_DPI, options.dpi ?? 250));
  const maxPages = Math.max(1, options.maxPages ?? 3);
  const maxPixels = Math.max(10_000, options.maxPixels ?? MAX_RENDER_PIXELS);
  const deadline = performance.now() + (options.timeMs ?? DEFAULT_RENDER_MS);
  return withDocument(bytes, async (doc) => {
    const out: Buffer[] = [];
    for (let n = 1; n <= Math.min(doc.numPages, maxPages); n++) out.push(await renderPage(doc, await doc.getPage(n), dpi, maxPixels, deadline));
    return out;
  });
}

/** The scale for a page of `size` points: the resolution asked for, lowered to fit the budget. */
export function renderScale(size: PageSize, dpi: number, maxPixels: number): number {
  const w = Math.max(1, size.width);
  const h = Math.max(1, size.height);
  return Math.min(dpi / 72, Math.sqrt(maxPixels / (w * h)), MAX_RENDER_SIDE / Math.max(w, h));
}

let loaded: Promise<typeof PdfJs> | null = null;

/**
 * pdfjs, loaded when first used. Its legacy build replaces Array.prototype.push, JSON.stringify
 * and JSON.parse of the whole thread with core-js polyfills several times slower (forced for
 * edge cases of the spec, not for anything pdfjs needs); they are put back once it is loaded, so
 * whatever else the thread runs (a pool worker's reports: exceljs and pdfkit push on every cell
 * and operator) keeps the engine's own. The additions (Promise.withResolvers, Set methods…) stay.
 */
function pdfjs(): Promise<typeof PdfJs> {
  return (loaded ??= (async () => {
    const push = Array.prototype.push;
    const { stringify, parse } = JSON;
    try {
      return await import('pdfjs-dist/legacy/build/pdf.mjs');
    } finally {
      Array.prototype.push = push;
      JSON.stringify = stringify;
      JSON.parse = parse;
    }
  })());
}

/**
 * pdfjs takes ownership of (detaches) the buffer it is given, so it always gets a copy. A PDF
 * it cannot open (damaged, password-protected) is the uploader's problem: a 400, not a crash.
 */
async function withDocument<T>(bytes: Uint8Array, use: (doc: PDFDocumentProxy) => Promise<T>): Promise<T> {
  const { getDocument } = await pdfjs();
  const task = getDocument({
    data: new Uint8Array(bytes),
    standardFontDataUrl: asset('standard_fonts'),
    cMapUrl: asset('cmaps'),
    cMapPacked: true,
    iccUrl: asset('iccs'),
    wasmUrl: asset('wasm'),
    isEvalSupported: false,
    verbosity: 0,
  });
  const doc = await task.promise.catch(async (error: unknown) => {
    await task.destroy();
    const why = error instanceof Error && error.name === 'PasswordException' ? 'it is password-protected' : 'it is damaged';
    throw receiptFileError('corrupt', `The PDF could not be opened: ${why}.`);
  });
  try {
    return await use(doc);
  } finally {
    await task.destroy();
  }
}

async function renderPage(doc: PDFDocumentProxy, page: PDFPageProxy, dpi: number, maxPixels: number, deadline: number): Promise<Buffer> {
  const viewport = page.getViewport({ scale: renderScale(page.getViewport({ scale: 1 }), dpi, maxPixels) });
  const factory = doc.canvasFactory as CanvasFactory;
  const { canvas, context } = factory.create(Math.ceil(viewport.width), Math.ceil(viewport.height));
  try {
    // White first: scans are opaque, but a transparent page would OCR as black on black.
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, canvas.width, canvas.height);
    const task = page.render({ canvas: null, canvasContext: context as unknown as RenderContext, viewport });
    let late = false;
    // Called between pdfjs's slices of drawing and as each parsed chunk arrives.
    task.onContinue = (next: () => void) => {
      if (performance.now() <= deadline) return next();
      late = true;
      task.cancel();
    };
    await task.promise.catch((error: unknown) => {
      throw late ? new PdfTooComplexError() : error;
    });
    return canvas.toBuffer('image/png');
  } finally {
    page.cleanup();
    factory.destroy({ canvas, context });
  }
}

type RenderContext = NonNullable<Parameters<PDFPageProxy['render']>[0]['canvasContext']>;

/** The part of pdfjs's Node canvas factory (backed by @napi-rs/canvas) used here. */
interface CanvasFactory {
  create(width: number, height: number): { canvas: NodeCanvas; context: NodeContext };
  destroy(entry: { canvas: NodeCanvas; context: NodeContext }): void;
}
interface NodeCanvas {
  width: number;
  height: number;
  toBuffer(mime: 'image/png'): Buffer;
}
interface NodeContext {
  fillStyle: string;
  fillRect(x: number, y: number, w: number, h: number): void;
}

/**
 * Groups text items into lines by their baseline (within half a glyph height), orders each
 * line left to right, and puts a space where items are apart, so "TOTAL" and "12.50" drawn
 * separately still read as one line.
 */
async function pageText(page: PDFPageProxy): Promise<string> {
  const content = await page.getTextContent();
  const items = content.items.filter((i): i is TextItem => 'str' in i && i.str.trim().length > 0)
    .map((i) => ({ text: i.str, x: i.transform[4] as number, y: i.transform[5] as number, w: i.width, h: Math.abs(i.height) || 10 }));
  items.sort((a, b) => b.y - a.y || a.x - b.x);
  const lines: Array<typeof items> = [];
  for (const item of items) {
    const line = lines[lines.length - 1];
    if (line && Math.abs(line[0]!.y - item.y) <= line[0]!.h / 2) line.push(item);
    else lines.push([item]);
  }
  page.cleanup();
  return lines.map((line) => joinLine(line.sort((a, b) => a.x - b.x))).join('\n');
}

function joinLine(items: ReadonlyArray<{ text: string; x: number; w: number; h: number }>): string {
  let out = '';
  let end = -Infinity;
  for (const item of items) {
    const gap = item.x - end;
    if (out && gap > item.h * 0.15 && !out.endsWith(' ') && !item.text.startsWith(' ')) out += gap > item.h * 2 ? '   ' : ' ';
    out += item.text;
    end = item.x + item.w;
  }
  return out.trim();
}
