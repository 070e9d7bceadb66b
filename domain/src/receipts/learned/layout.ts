/**
 * Receipt text as lines with boxes, the input of the learned extractor. Three sources give the
 * same shape: annotated boxes (a human transcript, one box per printed segment), OCR words
 * with boxes, and plain text (no geometry: each line one unit high, full width). Segments and
 * words are grouped into visual lines by vertical overlap and read left to right, so a label
 * box on the left and its amount box on the right become one line, as a person reads them.
 */
import type { OcrWord } from '../types';

export interface LayoutLine {
  text: string;
  /** Blocks of the line separated by a wide gap (more than twice the line's height), left to right. */
  parts?: string[];
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** OCR's confidence (0..1) in the line's least sure word and on average; absent for annotated or plain text. */
  ocrMin?: number;
  ocrMean?: number;
}

export interface Segment {
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** OCR's word confidence, 0..100. */
  confidence?: number;
}

/** Whether the layout came with real geometry (boxes) or was made up from plain text. */
export interface Layout {
  lines: LayoutLine[];
  geometry: boolean;
}

/** Groups segments into lines: a segment joins a line when most of the smaller height overlaps. */
export function groupSegments(segments: readonly Segment[]): LayoutLine[] {
  const sorted = segments.filter((s) => s.text.trim().length > 0)
    .map((s) => ({ ...s, text: s.text.trim() }))
    .sort((a, b) => (a.y0 + a.y1) - (b.y0 + b.y1) || a.x0 - b.x0);
  const rows: Segment[][] = [];
  const bounds: Array<{ y0: number; y1: number }> = [];
  for (const s of sorted) {
    let joined = false;
    for (let r = rows.length - 1; r >= Math.max(0, rows.length - 3); r--) {
      const b = bounds[r]!;
      const overlap = Math.min(b.y1, s.y1) - Math.max(b.y0, s.y0);
      const smaller = Math.max(1, Math.min(b.y1 - b.y0, s.y1 - s.y0));
      if (overlap >= 0.5 * smaller) {
        rows[r]!.push(s);
        joined = true;
        break;
      }
    }
    if (!joined) {
      rows.push([s]);
      bounds.push({ y0: s.y0, y1: s.y1 });
    }
  }
  return rows.map((row) => {
    const parts = [...row].sort((a, b) => a.x0 - b.x0);
    const height = Math.max(1, Math.max(...parts.map((p) => p.y1)) - Math.min(...parts.map((p) => p.y0)));
    const blocks: string[][] = [];
    parts.forEach((p, k) => {
      if (k === 0 || p.x0 - parts[k - 1]!.x1 > 2 * height) blocks.push([p.text]);
      else blocks[blocks.length - 1]!.push(p.text);
    });
    const sure = parts.flatMap((p) => (p.confidence === undefined ? [] : [p.confidence > 1 ? p.confidence / 100 : p.confidence]));
    return {
      text: parts.map((p) => p.text).join(' ').replace(/\s+/g, ' '),
      ...(sure.length > 0 ? { ocrMin: Math.min(...sure), ocrMean: sure.reduce((a, b) => a + b, 0) / sure.length } : {}),
      ...(blocks.length > 1 ? { parts: blocks.map((b) => b.join(' ')) } : {}),
      x0: Math.min(...parts.map((p) => p.x0)),
      y0: Math.min(...parts.map((p) => p.y0)),
      x1: Math.max(...parts.map((p) => p.x1)),
      y1: Math.max(...parts.map((p) => p.y1)),
    };
  }).sort((a, b) => a.y0 + a.y1 - b.y0 - b.y1);
}

/** Rows of an annotated `<id>.boxes.csv` (x1,y1,…,x4,y4,text) as a layout. */
export function layoutFromBoxesCsv(csv: string): Layout {
  const segments: Segment[] = [];
  for (const raw of csv.split(/\r?\n/)) {
    const m = /^(\d+),(\d+),(\d+),(\d+),(\d+),(\d+),(\d+),(\d+),(.*)$/.exec(raw.trim());
    if (!m) continue;
    const xs = [m[1], m[3], m[5], m[7]].map(Number);
    const ys = [m[2], m[4], m[6], m[8]].map(Number);
    segments.push({ text: m[9]!, x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) });
  }
  return { lines: groupSegments(segments), geometry: true };
}

/**
 * OCR output as a layout: words with boxes grouped into lines when every word has a box,
 * otherwise the text's own lines without geometry.
 */
export function layoutFromOcr(text: string, words?: readonly OcrWord[]): Layout {
  if (words && words.length > 0 && words.every((w) => w.bbox)) {
    const segments = stackPages(words.map((w) => ({ text: w.text, x0: w.bbox!.x0, y0: w.bbox!.y0, x1: w.bbox!.x1, y1: w.bbox!.y1, confidence: w.confidence })));
    const lines = groupSegments(segments);
    if (lines.length > 0) return { lines, geometry: true };
  }
  return layoutFromText(text);
}

/**
 * The words of a multi-page reading come page after page, each page's boxes starting again at
 * the top: a word in the top 15 % of what was read so far, right after one in the bottom 30 %,
 * starts a new page, which is moved below the previous ones so its lines do not merge with
 * page one's. The pool reads a page as one block (PSM 6), top to bottom, so within a page the
 * boxes never jump back that far.
 */
export function stackPages(segments: readonly Segment[]): Segment[] {
  let offset = 0;
  let bottom = 0;
  let previous = 0;
  return segments.map((s) => {
    if (bottom > 0 && s.y1 + offset < 0.15 * bottom && previous > 0.7 * bottom) offset = bottom + Math.max(1, s.y1 - s.y0);
    const moved = { ...s, y0: s.y0 + offset, y1: s.y1 + offset };
    bottom = Math.max(bottom, moved.y1);
    previous = moved.y1;
    return moved;
  });
}

/** Plain text: each non-empty line one unit high and the full (unknown) width. */
export function layoutFromText(text: string): Layout {
  const lines = text.split(/\r?\n/)
    .map((l) => l.replace(/[\t\u00a0\u2000-\u200b]+/g, ' ').replace(/ {2,}/g, ' ').trim())
    .filter((l) => l.length > 0)
    .map((l, i) => ({ text: l, x0: 0, y0: i, x1: 1, y1: i + 1 }));
  return { lines, geometry: false };
}
