/**
 * The preparations measured and not kept (lab/ocr/prepare-steps.ts) on invented pages drawn here
 * (never dataset copies): the text-size estimate, Otsu's level, connected components, scaling to
 * a capital height, the plain hand-over of pages that need no scaling, and boxes mapped back to
 * the page's pixels.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { OcrResult } from '../../domain/src/receipts/types';
import type { OcrReader } from '../../infra/src/ocr/reading';
import { grey, receiptPage } from '../../test/support/receipt-page';
import { readWithPreparation } from './preparations';
import { prepareLabSteps } from './prepare-steps';
import { capitalHeight, inkComponents, otsuLevel } from './text-size';

describe('text-size', () => {
  it('otsuLevel separates two grey levels', () => {
    const data = new Uint8Array(1000).map((_, i) => (i % 5 === 0 ? 40 : 220));
    const level = otsuLevel(data);
    expect(level).toBeGreaterThanOrEqual(40);
    expect(level).toBeLessThan(220);
  });

  it('inkComponents finds separate shapes, joined diagonally (8-connected)', () => {
    const width = 20;
    const height = 10;
    const data = new Uint8Array(width * height).fill(255);
    const ink = (x: number, y: number): void => { data[y * width + x] = 0; };
    for (let y = 1; y <= 4; y++) for (let x = 1; x <= 3; x++) ink(x, y); // a 3x4 block
    ink(10, 1); ink(11, 2); ink(12, 3); // a diagonal
    ink(18, 8);
    const boxes = inkComponents({ data, width, height }, 128).sort((a, b) => a.x0 - b.x0);
    expect(boxes).toEqual([
      { x0: 1, y0: 1, x1: 3, y1: 4, pixels: 12 },
      { x0: 10, y0: 1, x1: 12, y1: 3, pixels: 3 },
      { x0: 18, y0: 8, x1: 18, y1: 8, pixels: 1 },
    ]);
  });

  it('capitalHeight follows the font size (DejaVu Sans Mono capitals are 0.73 em)', async () => {
    for (const fontPx of [14, 24, 40]) {
      const h = capitalHeight(await grey(receiptPage(fontPx)));
      expect(h).not.toBeNull();
      expect(Math.abs(h! - 0.73 * fontPx)).toBeLessThanOrEqual(2);
    }
  });

  it('capitalHeight gives up on a page without print', () => {
    const width = 300;
    const height = 300;
    const data = new Uint8Array(width * height).map((_, i) => 200 + (i * 7919) % 40); // paper grain only
    expect(capitalHeight({ data, width, height })).toBeNull();
  });
});

describe('prepareLabSteps', () => {
  it('scales small print up to the target capital height, as a greyscale PGM', async () => {
    const page = receiptPage(14);
    const p = await prepareLabSteps(page, { capitalPx: 22, maxScale: 2.5 });
    expect(p.plain).toBeUndefined();
    expect(p.scale).toBeGreaterThan(1.8);
    expect(p.image.subarray(0, 3).toString('ascii')).toBe('P5\n');
    const meta = await sharp(page).metadata();
    expect(p.width).toBe(Math.round(meta.width! * p.scale));
    const after = capitalHeight({ data: p.image.subarray(p.image.length - p.width * p.height), width: p.width, height: p.height });
    expect(after).not.toBeNull();
    expect(Math.abs(after! - 22)).toBeLessThanOrEqual(2);
  });

  it('hands a page whose print is large enough over as it is (plainUnlessScaled)', async () => {
    const page = receiptPage(40);
    const p = await prepareLabSteps(page, { capitalPx: 22, plainUnlessScaled: true });
    expect(p.plain).toBe(true);
    expect(p.scale).toBe(1);
    expect(Buffer.compare(p.image, page)).toBe(0);
  });

  it('never scales by more than maxScale', async () => {
    const p = await prepareLabSteps(receiptPage(14), { capitalPx: 60, maxScale: 2 });
    expect(p.scale).toBe(2);
  });

  it('binarises with Otsu when asked: only black and white remain', async () => {
    const p = await prepareLabSteps(receiptPage(24), { otsu: true });
    const pixels = p.image.subarray(p.image.length - p.width * p.height);
    expect(new Set(pixels).size).toBe(2);
  });
});

describe('readWithPreparation', () => {
  it('gives word boxes in the pixels of the page as uploaded, whatever the scaling', async () => {
    const page = receiptPage(14);
    let seen: { width: number; height: number } | undefined;
    const fake: OcrReader = {
      recognize: async (image): Promise<OcrResult> => {
        // The prepared page (a PGM here: scaled): its size is where the engine's boxes are.
        const [, w, h] = /^P5\n(\d+) (\d+)\n/.exec(Buffer.from(image).subarray(0, 20).toString('latin1')) ?? [];
        seen = { width: Number(w), height: Number(h) };
        return { text: 'TOTAL', confidence: 90, words: [{ text: 'TOTAL', confidence: 90, bbox: { x0: 100, y0: 50, x1: 200, y1: 80 } }] };
      },
      close: async () => undefined,
    };
    const r = await readWithPreparation(page, fake, { image: { capitalPx: 22, maxScale: 2.5 } });
    const meta = await sharp(page).metadata();
    const scale = seen!.width / meta.width!;
    expect(scale).toBeGreaterThan(1.8);
    const box = r.ocr.words![0]!.bbox!;
    expect(box.x0).toBeCloseTo(100 / scale, 0);
    expect(box.y1).toBeCloseTo(80 / scale, 0);
  });
});
