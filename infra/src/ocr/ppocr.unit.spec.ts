import { describe, expect, it } from 'vitest';
import { boxesFromMap, detectionInput, detectionSize, UNCLIP_RATIO } from './ppocr-detect';
import sharp from 'sharp';
import { FAINT_SPREAD, greySpread, groupProbs, latinGroups, ppocrFiles, textOf } from './ppocr';
import { createPpocrHost } from './ppocr-host';

/** A probability map with rectangles of the given probability on 0. */
function map(width: number, height: number, rects: ReadonlyArray<{ x0: number; y0: number; x1: number; y1: number; p: number }>): Float32Array {
  const out = new Float32Array(width * height);
  for (const r of rects) for (let y = r.y0; y < r.y1; y++) for (let x = r.x0; x < r.x1; x++) out[y * width + x] = r.p;
  return out;
}

describe('PP-OCR detection geometry', () => {
  it('scales the longer side to at most the limit, both sides multiples of 32, never up', () => {
    expect(detectionSize(3000, 1000, 1500)).toEqual({ width: 1504, height: 512, scale: 0.5 });
    expect(detectionSize(600, 1700, 1500)).toMatchObject({ width: 544, height: 1504 });
    expect(detectionSize(100, 50, 1500)).toEqual({ width: 96, height: 64, scale: 1 });
  });

  it('normalises in BGR order with ImageNet mean and deviation', () => {
    const input = detectionInput(new Uint8Array([255, 0, 0]), 1, 1);
    // Red lands in the third channel (BGR), blue (0) in the first.
    expect(input[0]).toBeCloseTo((0 - 0.485) / 0.229);
    expect(input[2]).toBeCloseTo((1 - 0.406) / 0.225);
  });

  it('finds one box per text region, grown by the unclip distance, top to bottom', () => {
    const m = map(100, 60, [{ x0: 50, y0: 40, x1: 90, y1: 46, p: 0.9 }, { x0: 10, y0: 10, x1: 40, y1: 16, p: 0.8 }]);
    const boxes = boxesFromMap(m, 100, 60);
    expect(boxes).toHaveLength(2);
    const grow = (30 * 6 * UNCLIP_RATIO) / (2 * 36);
    expect(boxes[0]).toMatchObject({ x0: 10 - grow, y0: 10 - grow, x1: 40 + grow, y1: 16 + grow });
    expect(boxes[0]!.score).toBeCloseTo(0.8);
    expect(boxes[1]!.y0).toBeGreaterThan(30);
  });

  it('drops faint regions, specks, and clips to the map', () => {
    const m = map(50, 50, [{ x0: 0, y0: 0, x1: 20, y1: 5, p: 0.5 }, { x0: 5, y0: 20, x1: 7, y1: 30, p: 0.9 }, { x0: 30, y0: 45, x1: 50, y1: 50, p: 0.9 }]);
    const boxes = boxesFromMap(m, 50, 50);
    expect(boxes).toHaveLength(1);
    expect(boxes[0]).toMatchObject({ x1: 50, y1: 50 });
  });
});

describe('PP-OCR recognition classes', () => {
  it('folds the forms of one Latin character into one class and leaves out the rest', () => {
    const g = latinGroups(['', 'l', '１', 'ｌ', '中', '1', ' ']);
    expect(g.classes).toEqual(['', 'l', '1', ' ']);
    expect([...g.of]).toEqual([0, 1, 2, 1, -1, 2, 3]);
  });

  it('a letter split between its forms beats a digit with more probability than either form', () => {
    const g = latinGroups(['', 'l', 'ｌ', '1']);
    const probs = groupProbs(new Float32Array([0.05, 0.3, 0.3, 0.35]), 1, 4, g);
    const best = [...probs].indexOf(Math.max(...probs));
    expect(g.classes[best]).toBe('l');
  });
});

describe('PP-OCR page text', () => {
  const word = (text: string, x0: number, y0: number, x1: number, y1: number) => ({ text, confidence: 90, bbox: { x0, y0, x1, y1 } });

  it('joins boxes on one printed line left to right, lines top to bottom', () => {
    const text = textOf([word('26.60', 300, 102, 360, 120), word('TOTAL', 10, 100, 80, 118), word('CASH', 10, 130, 70, 148), word('SHOP', 10, 10, 80, 30)]);
    expect(text).toBe('SHOP\nTOTAL 26.60\nCASH');
  });
});

describe('PP-OCR faint pages', () => {
  /** A page of paper grey `paper` with a band of ink grey `ink` over a fifth of it. */
  const page = async (paper: number, ink: number): Promise<Buffer> => {
    const data = Buffer.alloc(200 * 100, paper);
    data.fill(ink, 0, 200 * 20);
    return sharp(data, { raw: { width: 200, height: 100, channels: 1 } }).png().toBuffer();
  };

  it('measures the grey levels a page spans: a clear print wide, a faded one narrow', async () => {
    expect(await greySpread(await page(240, 20))).toBe(220);
    expect(await greySpread(await page(235, 225))).toBe(10);
    expect(await greySpread(await page(235, 225))).toBeLessThan(FAINT_SPREAD);
  });
});

describe('PP-OCR models not installed', () => {
  it('has no files and no host, so the product reads with tesseract.js alone', () => {
    expect(ppocrFiles('/nonexistent/ppocrv5')).toBeNull();
    expect(createPpocrHost({ dir: '/nonexistent/ppocrv5' })).toBeNull();
  });
});
