/**
 * PP-OCR's text detection (DBNet) around the model: the page scaled into the model's input, and
 * the probability map it returns turned into text boxes. Pure functions, so the geometry is
 * tested without the model.
 *
 * The boxes are upright rectangles: receipts here are scans and photos held level, and an upright
 * crop is what the recogniser and the line re-reading (line-reread.ts) take. PaddleOCR's own
 * post-processing fits a rotated rectangle; on a level receipt the two are the same box.
 */
import type { OcrBox } from '@paperlink/domain';

/** A pixel is text when the map's probability is above this (PaddleOCR's `det_db_thresh`). */
export const PIXEL_THRESHOLD = 0.3;
/** A region is kept when its mean probability is at least this (`det_db_box_thresh`). */
export const BOX_THRESHOLD = 0.6;
/** How far a region is grown back to the text's full height (`det_db_unclip_ratio`). */
export const UNCLIP_RATIO = 1.5;
/** Regions thinner than this (map pixels) are specks. */
const MIN_SIDE = 3;

/** The size the page is scaled to for detection: the longer side at most `maxSide`, both sides multiples of 32. */
export function detectionSize(width: number, height: number, maxSide: number): { width: number; height: number; scale: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  const round32 = (v: number): number => Math.max(32, Math.round((v * scale) / 32) * 32);
  return { width: round32(width), height: round32(height), scale };
}

/**
 * The model's input from RGB pixels already at the detection size: channels in PaddleOCR's BGR
 * order, each normalised with ImageNet's mean and deviation as PaddleOCR does (in that order).
 */
export function detectionInput(rgb: Uint8Array, width: number, height: number): Float32Array {
  const plane = width * height;
  const out = new Float32Array(3 * plane);
  const mean = [0.485, 0.456, 0.406];
  const std = [0.229, 0.224, 0.225];
  for (let i = 0; i < plane; i++) {
    for (let c = 0; c < 3; c++) {
      // Channel c of the input is BGR's c: blue is RGB's channel 2.
      const v = rgb[i * 3 + (2 - c)]! / 255;
      out[c * plane + i] = (v - mean[c]!) / std[c]!;
    }
  }
  return out;
}

export interface DetectedBox extends OcrBox {
  /** Mean probability over the region's pixels, 0..1. */
  score: number;
}

/**
 * Text boxes from the probability map (`width` x `height`, map pixels): pixels over
 * PIXEL_THRESHOLD joined into 8-connected regions, regions whose mean probability is under
 * BOX_THRESHOLD or thinner than MIN_SIDE dropped, each region's box grown by DBNet's unclip
 * distance (area x ratio / perimeter) and clipped to the map. In map pixels, top to bottom.
 */
export function boxesFromMap(prob: Float32Array, width: number, height: number): DetectedBox[] {
  const seen = new Uint8Array(width * height);
  const stack = new Int32Array(width * height);
  const boxes: DetectedBox[] = [];
  for (let start = 0; start < prob.length; start++) {
    if (seen[start] || prob[start]! <= PIXEL_THRESHOLD) continue;
    let top = 0;
    stack[top++] = start;
    seen[start] = 1;
    let x0 = width;
    let y0 = height;
    let x1 = -1;
    let y1 = -1;
    let sum = 0;
    let count = 0;
    while (top > 0) {
      const p = stack[--top]!;
      const x = p % width;
      const y = (p - x) / width;
      sum += prob[p]!;
      count++;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= width) continue;
          const q = ny * width + nx;
          if (seen[q] || prob[q]! <= PIXEL_THRESHOLD) continue;
          seen[q] = 1;
          stack[top++] = q;
        }
      }
    }
    const w = x1 - x0 + 1;
    const h = y1 - y0 + 1;
    const score = sum / count;
    if (Math.min(w, h) < MIN_SIDE || score < BOX_THRESHOLD) continue;
    const grow = (w * h * UNCLIP_RATIO) / (2 * (w + h));
    boxes.push({
      x0: Math.max(0, x0 - grow),
      y0: Math.max(0, y0 - grow),
      x1: Math.min(width, x1 + 1 + grow),
      y1: Math.min(height, y1 + 1 + grow),
      score,
    });
  }
  return boxes.sort((a, b) => a.y0 + a.y1 - (b.y0 + b.y1) || a.x0 - b.x0);
}
