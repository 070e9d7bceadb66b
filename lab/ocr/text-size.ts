/**
 * Pixel measurements of a greyscale page for OCR preparation, in plain JavaScript over a raw
 * 8-bit buffer (one byte per pixel, row by row): Otsu's threshold, and the height of the
 * printed characters, estimated from the connected components of ink.
 *
 * Tesseract's LSTM models read best when capitals are about 25-35 px tall; receipt scans come
 * with capitals from 8 to 40 px, so the page was scaled to a target height before reading
 * (prepare-steps.ts; not kept by the product, ADR 0019). Pure functions, no I/O.
 */

export interface GreyImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Otsu's threshold of an 8-bit histogram: the level that best separates ink from paper. */
export function otsuLevel(data: Uint8Array): number {
  const hist = new Float64Array(256);
  for (let i = 0; i < data.length; i++) hist[data[i]!]! += 1;
  const total = data.length;
  let sumAll = 0;
  for (let t = 0; t < 256; t++) sumAll += t * hist[t]!;
  let sumB = 0;
  let weightB = 0;
  let best = 0;
  let bestVar = -1;
  for (let t = 0; t < 256; t++) {
    weightB += hist[t]!;
    if (weightB === 0) continue;
    const weightF = total - weightB;
    if (weightF === 0) break;
    sumB += t * hist[t]!;
    const meanB = sumB / weightB;
    const meanF = (sumAll - sumB) / weightF;
    const between = weightB * weightF * (meanB - meanF) * (meanB - meanF);
    if (between > bestVar) {
      bestVar = between;
      best = t;
    }
  }
  return best;
}

export interface Component {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  pixels: number;
}

/**
 * Connected components (8-connected) of the pixels darker than or at `level`, by runs: each
 * row's runs of ink are joined to the overlapping runs of the row above with union-find.
 * Components larger than `maxSide` on either side (borders, photos, rules) are still
 * returned; the caller filters.
 */
export function inkComponents(img: GreyImage, level: number): Component[] {
  const { data, width, height } = img;
  const parent: number[] = [];
  const boxes: Component[] = [];
  const find = (a: number): number => {
    let r = a;
    while (parent[r] !== r) r = parent[r]!;
    while (parent[a] !== r) {
      const next = parent[a]!;
      parent[a] = r;
      a = next;
    }
    return r;
  };
  const union = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };
  // Runs of the previous and current row: [start, end (inclusive), label] triples.
  let prev: number[] = [];
  for (let y = 0; y < height; y++) {
    const cur: number[] = [];
    const row = y * width;
    let x = 0;
    while (x < width) {
      if (data[row + x]! > level) {
        x++;
        continue;
      }
      const start = x;
      while (x < width && data[row + x]! <= level) x++;
      const end = x - 1;
      const id = parent.length;
      parent.push(id);
      boxes.push({ x0: start, y0: y, x1: end, y1: y, pixels: end - start + 1 });
      for (let i = 0; i < prev.length; i += 3) {
        // 8-connected: a run touches the one above if they overlap with one pixel of slack.
        if (prev[i]! <= end + 1 && prev[i + 1]! >= start - 1) union(id, prev[i + 2]!);
      }
      cur.push(start, end, id);
    }
    prev = cur;
  }
  const merged = new Map<number, Component>();
  for (let id = 0; id < parent.length; id++) {
    const root = find(id);
    const b = boxes[id]!;
    const m = merged.get(root);
    if (!m) {
      merged.set(root, { ...b });
      continue;
    }
    m.x0 = Math.min(m.x0, b.x0);
    m.y0 = Math.min(m.y0, b.y0);
    m.x1 = Math.max(m.x1, b.x1);
    m.y1 = Math.max(m.y1, b.y1);
    m.pixels += b.pixels;
  }
  return [...merged.values()];
}

/** Fewer character-like components than this: no estimate (a photo, a blank page, dot matrix). */
const MIN_CHARACTERS = 30;

/**
 * The typical height in pixels of the capitals and digits on a page, or null when the page
 * shows too few character-like shapes to tell. Character-like: at least 5 px tall, at most
 * 120 px, no wider than 1.5 times its height (joined letters are wider) and not a thin rule;
 * of those, the upper half by height (capitals and digits, not lower-case bodies and
 * punctuation) gives the median.
 */
export function capitalHeight(img: GreyImage, level = otsuLevel(img.data)): number | null {
  const heights: number[] = [];
  for (const c of inkComponents(img, level)) {
    const h = c.y1 - c.y0 + 1;
    const w = c.x1 - c.x0 + 1;
    if (h < 5 || h > 120 || w > 1.5 * h) continue;
    // Filled boxes (blots, photos) and near-empty ones (thin diagonals) are not characters.
    const fill = c.pixels / (h * w);
    if (fill < 0.08 || fill > 0.9) continue;
    heights.push(h);
  }
  if (heights.length < MIN_CHARACTERS) return null;
  heights.sort((a, b) => a - b);
  const upper = heights.slice(heights.length >> 1);
  return upper[upper.length >> 1]!;
}
