/**
 * The OCR preparation's pixel steps on invented pages drawn here (never dataset copies): the
 * fixed scaling of the retry reading, the PGM hand-over, and boxes mapped back to the page's
 * pixels. The preparations measured and not kept are tested in lab/ocr/.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { OcrResult } from '@paperlink/domain';
import { receiptPage } from '../../../test/support/receipt-page';
import { prepareSteps, toPgm } from './preprocess';
import { readPage } from './reading';
import type { OcrReader } from './reading';

describe('prepareSteps', () => {
  it('scales by a fixed factor when asked (the retry reading)', async () => {
    const page = receiptPage(24, 400);
    const p = await prepareSteps(page, { scale: 1.5 });
    expect(p.scale).toBe(1.5);
    expect(p.width).toBe(600);
  });

  it('toPgm writes a P5 header before the pixels', () => {
    const pgm = toPgm(new Uint8Array([0, 255, 128, 7, 8, 9]), 3, 2);
    expect(pgm.toString('latin1')).toBe('P5\n3 2\n255\n\u0000\u00ff\u0080\u0007\u0008\u0009');
  });
});

describe('readPage', () => {
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
    const r = await readPage(page, fake, { image: { scale: 1.5 } });
    const meta = await sharp(page).metadata();
    expect(r.size).toEqual({ width: meta.width, height: meta.height });
    const scale = seen!.width / meta.width!;
    expect(scale).toBe(1.5);
    const box = r.ocr.words[0]!.bbox!;
    expect(box.x0).toBeCloseTo(100 / scale, 0);
    expect(box.y1).toBeCloseTo(80 / scale, 0);
  });
});
