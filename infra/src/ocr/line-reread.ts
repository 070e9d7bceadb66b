/**
 * The targeted second reading (ADR 0019): the lines a doubtful field's candidates were
 * read from (domain `linesToReread`) are cropped from the page that was read (the line's box, a
 * margin of `SIDE_MARGIN` line heights left and right, none above and below: a taller band takes
 * in the neighbouring lines, which a single-line reading then mixes in), enlarged in greyscale so
 * the line is about `LINE_PX` tall, and read by the same tesseract pool as a single text line
 * (PSM 7). The line readings then take the place of the page reading's words on those lines
 * (`patchReading`, where tesseract is surer of them), and the fields are extracted again from the
 * mended reading by the caller. Preparations compared on receipts-train: bench/line-crop-prep.ts.
 *
 * Cropping and scaling run in sharp (libvips' threads), reading in the pool's worker threads:
 * nothing of it is JavaScript work on the calling thread beyond mapping a few boxes.
 */
import sharp from 'sharp';
import type { OcrBox, OcrWord } from '@paperlink/domain';
import type { RecognizeOptions } from './pool';
import { toPgm } from './preprocess';
import type { OcrReader } from './reading';

/** Height the line's box is scaled to, px (capital letters then ~30-36 px). */
export const LINE_PX = 44;
/** Largest enlargement. */
const MAX_SCALE = 4;
/** Band above and below the line, in line heights. */
const MARGIN_Y = 0;
/** Margin left and right of the line, in line heights. */
const SIDE_MARGIN = 3;
/** White border around the crop, px after scaling (tesseract reads a line better with room). */
const PAD = 12;

export const SINGLE_LINE: RecognizeOptions = { parameters: { tessedit_pageseg_mode: '7' } };

export interface LineReading {
  /** The line as the page reading had it (its box). */
  box: OcrBox;
  /** The area cropped, page pixels. */
  crop: OcrBox;
  /** Words read in the crop, boxes in page pixels. */
  words: OcrWord[];
  ms: number;
}

export interface LineRereadOptions {
  /** Margin left and right of the line's box, in line heights (default SIDE_MARGIN); `page`: the page's whole width. */
  sideMargin?: number | 'page';
  /** Height the line's box is scaled to (default LINE_PX); never scaled down. */
  linePx?: number;
  /** Band above and below the line, in line heights (default MARGIN_Y). */
  marginY?: number;
  /** Keep colour (tesseract converts itself) instead of greyscale. */
  colour?: boolean;
  /** Heavier ink (preprocess.ts `ink`, scaled): blur then a high threshold, for faded and dot-matrix print. */
  ink?: boolean;
  recognize?: RecognizeOptions;
}

/**
 * Reads each line again from `page` (the image the boxes are in: the first reading's prepared
 * page), one after the other (a receipt holds one worker at a time). A line marked `wide` is
 * read across the page's whole width.
 */
export async function rereadLines(page: Uint8Array, size: { width: number; height: number }, lines: ReadonlyArray<OcrBox | { box: OcrBox; wide?: boolean }>, ocr: OcrReader, options: LineRereadOptions = {}): Promise<LineReading[]> {
  const out: LineReading[] = [];
  const input = Buffer.from(page.buffer, page.byteOffset, page.byteLength);
  for (const line of lines) {
    const box = 'box' in line ? line.box : line;
    const t = performance.now();
    const h = Math.max(4, box.y1 - box.y0);
    const area = lineCrop(box, size, 'box' in line && line.wide ? 'page' : options.sideMargin ?? SIDE_MARGIN, options.marginY ?? MARGIN_Y);
    if (!area) continue;
    const { x0, y0, x1, y1 } = area;
    const scale = Math.min(MAX_SCALE, Math.max(1, (options.linePx ?? LINE_PX) / h));
    let crop = sharp(input, { failOn: 'none' }).rotate().flatten({ background: '#ffffff' })
      .extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 });
    if (!options.colour) crop = crop.greyscale();
    if (scale !== 1) crop = crop.resize({ width: Math.round((x1 - x0) * scale), kernel: 'cubic' });
    if (options.ink && !options.colour) {
      // As the page's `ink` (blur 2, threshold 225) at the crop's scale; its own pipeline so the order holds.
      const grey = await crop.raw().toBuffer({ resolveWithObject: true });
      crop = sharp(grey.data, { raw: { width: grey.info.width, height: grey.info.height, channels: 1 } }).blur(Math.max(0.3, 2 * scale)).threshold(225);
    }
    crop = crop.extend({ top: PAD, bottom: PAD, left: PAD, right: PAD, background: '#ffffff' });
    let image: Buffer;
    let info: { width: number; height: number };
    if (options.colour) {
      const out = await crop.png({ compressionLevel: 0 }).toBuffer({ resolveWithObject: true });
      image = out.data;
      info = out.info;
    } else {
      const out = await crop.toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
      if (out.info.channels !== 1) throw new Error(`expected one channel, got ${out.info.channels}`);
      image = toPgm(out.data, out.info.width, out.info.height);
      info = out.info;
    }
    const result = await ocr.recognize(image, options.recognize ?? SINGLE_LINE);
    const sx = (x1 - x0) / Math.max(1, info.width - 2 * PAD);
    const sy = (y1 - y0) / Math.max(1, info.height - 2 * PAD);
    const words = (result.words ?? []).filter((w) => w.text.trim().length > 0).map((w) => (w.bbox ? {
      ...w,
      bbox: {
        x0: round1(x0 + (w.bbox.x0 - PAD) * sx), y0: round1(y0 + (w.bbox.y0 - PAD) * sy),
        x1: round1(x0 + (w.bbox.x1 - PAD) * sx), y1: round1(y0 + (w.bbox.y1 - PAD) * sy),
      },
    } : w));
    out.push({ box, crop: { x0, y0, x1, y1 }, words, ms: performance.now() - t });
  }
  return out;
}

const round1 = (v: number): number => Math.round(v * 10) / 10;

/**
 * The area of the page cropped for a line: its box, `side` line heights left and right (`page`:
 * the page's width), `marginY` above and below, inside the page; null when too small to read.
 */
export function lineCrop(box: OcrBox, size: { width: number; height: number }, side: number | 'page', marginY: number): OcrBox | null {
  const h = Math.max(4, box.y1 - box.y0);
  const x0 = side === 'page' ? 0 : Math.max(0, Math.floor(box.x0 - side * h));
  const x1 = side === 'page' ? size.width : Math.min(size.width, Math.ceil(box.x1 + side * h));
  const y0 = Math.max(0, Math.floor(box.y0 - marginY * h));
  const y1 = Math.min(size.height, Math.ceil(box.y1 + marginY * h));
  return x1 - x0 < 4 || y1 - y0 < 4 ? null : { x0, y0, x1, y1 };
}

/** The boxes of the words whose centre lies on a line's box (vertically): that line's words. */
export function wordBoxesOn(words: readonly OcrWord[], box: OcrBox): OcrBox[] {
  return words.flatMap((w) => {
    if (!w.bbox || !w.text.trim()) return [];
    const cy = (w.bbox.y0 + w.bbox.y1) / 2;
    return cy >= box.y0 && cy <= box.y1 ? [w.bbox] : [];
  });
}

/**
 * The page reading with the line readings in place of its words on those lines: a page word
 * whose centre lies on a re-read line (vertically inside the line's box, horizontally inside the
 * crop) is replaced by the line's reading, placed where the line's first word was. A line read
 * as nothing keeps the page's words. The text is mended line by line the same way (tesseract's
 * text is its words in order, a line per text line); if it cannot be aligned with the words, it
 * is rebuilt from the words' lines.
 */
export function patchReading(text: string, words: readonly OcrWord[], lines: readonly LineReading[], options: PatchOptions = {}): { text: string; words: OcrWord[]; replaced: number } {
  const on = words.map((w) => {
    if (!w.bbox) return -1;
    const cx = (w.bbox.x0 + w.bbox.x1) / 2;
    const cy = (w.bbox.y0 + w.bbox.y1) / 2;
    return lines.findIndex((l) => l.words.length > 0 && cy >= l.box.y0 && cy <= l.box.y1 && cx >= l.crop.x0 && cx <= l.crop.x1);
  });
  // With `surer`, a line is replaced only when its line reading is surer than the page's words on it.
  const keep = new Set<number>();
  if (options.prefer === 'surer') {
    lines.forEach((l, k) => {
      const page = words.filter((_, i) => on[i] === k);
      if (page.length > 0 && sureness(l.words) <= sureness(page)) keep.add(k);
    });
  }
  const owner = on.map((k) => (keep.has(k) ? -1 : k));
  const placed = new Set<number>(keep);
  const replacement = (i: number): OcrWord[] => {
    const k = owner[i]!;
    if (k < 0) return [words[i]!];
    if (placed.has(k)) return [];
    placed.add(k);
    return lines[k]!.words;
  };
  const newWords: OcrWord[] = [];
  const perWord: OcrWord[][] = words.map((_, i) => replacement(i));
  for (const ws of perWord) newWords.push(...ws);
  // Lines whose page words were all missing (nothing of the line was read): append.
  lines.forEach((l, k) => {
    if (!placed.has(k) && l.words.length > 0) {
      placed.add(k);
      newWords.push(...l.words);
      perWord.push(l.words);
    }
  });
  return { text: mendText(text, words, perWord) ?? rebuildText(newWords), words: newWords, replaced: lines.filter((l, k) => l.words.length > 0 && !keep.has(k)).length };
}

export interface PatchOptions {
  /**
   * `line` (default): every line read again takes the place of the page's words on it;
   * `surer`: only when tesseract is surer of the line reading (mean word confidence, weighted
   * by characters) than of the page's words on that line.
   */
  prefer?: 'line' | 'surer';
}

/** Per line, the surest of several readings of the same lines (same boxes, e.g. crops prepared differently). */
export function surestReadings(readings: ReadonlyArray<readonly LineReading[]>): LineReading[] {
  const best = new Map<OcrBox, LineReading>();
  for (const list of readings) {
    for (const l of list) {
      const b = best.get(l.box);
      if (!b || b.words.length === 0 || (l.words.length > 0 && sureness(l.words) > sureness(b.words))) best.set(l.box, { ...l, ms: (b?.ms ?? 0) + l.ms });
      else best.set(l.box, { ...b, ms: b.ms + l.ms });
    }
  }
  return [...best.values()];
}

/** Mean word confidence (0..100), weighted by the words' characters. */
function sureness(words: readonly OcrWord[]): number {
  let sum = 0;
  let n = 0;
  for (const w of words) {
    const k = Math.max(1, w.text.trim().length);
    sum += w.confidence * k;
    n += k;
  }
  return n > 0 ? sum / n : 0;
}

/** The text with each page word replaced by its replacement words; null when the text and the words do not align. */
function mendText(text: string, words: readonly OcrWord[], perWord: readonly OcrWord[][]): string | null {
  let i = 0;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const tokens = line.split(/\s+/).filter(Boolean);
    const mended: string[] = [];
    for (const token of tokens) {
      if (i >= words.length || words[i]!.text.trim() !== token) return null;
      mended.push(...perWord[i]!.map((w) => w.text.trim()).filter(Boolean));
      i++;
    }
    if (tokens.length === 0 || mended.length > 0) out.push(mended.join(' '));
  }
  if (i !== words.length) return null;
  for (let k = words.length; k < perWord.length; k++) out.push(perWord[k]!.map((w) => w.text).join(' '));
  return out.join('\n');
}

/** Text from words grouped into rows by their boxes, top to bottom. */
function rebuildText(words: readonly OcrWord[]): string {
  const rows: Array<{ y0: number; y1: number; ws: OcrWord[] }> = [];
  for (const w of words) {
    const b = w.bbox;
    if (!b) continue;
    const row = rows.find((r) => Math.min(r.y1, b.y1) - Math.max(r.y0, b.y0) >= 0.5 * Math.min(r.y1 - r.y0, b.y1 - b.y0));
    if (row) row.ws.push(w);
    else rows.push({ y0: b.y0, y1: b.y1, ws: [w] });
  }
  return rows.sort((a, b) => a.y0 - b.y0).map((r) => r.ws.sort((a, b) => a.bbox!.x0 - b.bbox!.x0).map((w) => w.text).join(' ')).join('\n');
}
