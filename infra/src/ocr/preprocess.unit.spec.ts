/**
 * The OCR preparation's pixel steps on invented pages drawn here (never dataset copies): the
 * text-size estimate, Otsu's level, connected components, scaling to a capital height, the
 * plain hand-over of pages that need no scaling, and boxes mapped back to the page's pixels.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { OcrResult } from '@paperlink/domain';
import { prepareSteps, toPgm } from './preprocess';
import { doubtfulFieldWords, readPage } from './reading';
import type { OcrReader } from './reading';
import { capitalHeight, inkComponents, otsuLevel } from './text-size';

const fontDir = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
GlobalFonts.registerFromPath(join(fontDir, 'DejaVuSansMono.ttf'), 'TestMono');

/** A white page with receipt-like upper-case lines in a monospace font `fontPx` tall, as a JPEG. */
function receiptPage(fontPx: number, width = 600): Buffer {
  const lines = ['GRAND HARDWARE TRADING', 'NO 12 JALAN MAJU 3', 'DATE 14/03/2018 10:42', 'NAILS 2IN X4 12.60',
    'PAINT BRUSH 7.90', 'SUBTOTAL 20.50', 'GST 6% 1.23', 'TOTAL RM 21.73', 'CASH 50.00', 'CHANGE 28.27'];
  const lineHeight = Math.round(fontPx * 1.6);
  const canvas = createCanvas(width, lineHeight * (lines.length + 2));
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#111';
  ctx.font = `${fontPx}px TestMono`;
  ctx.textBaseline = 'alphabetic';
  lines.forEach((text, i) => ctx.fillText(text, 10, lineHeight * (i + 1.5)));
  return canvas.toBuffer('image/jpeg', 95);
}

async function grey(jpeg: Buffer): Promise<{ data: Uint8Array; width: number; height: number }> {
  const { data, info } = await sharp(jpeg).greyscale().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

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

describe('prepareSteps', () => {
  it('scales small print up to the target capital height, as a greyscale PGM', async () => {
    const page = receiptPage(14);
    const p = await prepareSteps(page, { capitalPx: 22, maxScale: 2.5 });
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
    const p = await prepareSteps(page, { capitalPx: 22, plainUnlessScaled: true });
    expect(p.plain).toBe(true);
    expect(p.scale).toBe(1);
    expect(Buffer.compare(p.image, page)).toBe(0);
  });

  it('never scales by more than maxScale', async () => {
    const p = await prepareSteps(receiptPage(14), { capitalPx: 60, maxScale: 2 });
    expect(p.scale).toBe(2);
  });

  it('scales by a fixed factor when asked (the retry reading)', async () => {
    const page = receiptPage(24, 400);
    const p = await prepareSteps(page, { scale: 1.5 });
    expect(p.scale).toBe(1.5);
    expect(p.width).toBe(600);
  });

  it('binarises with Otsu when asked: only black and white remain', async () => {
    const p = await prepareSteps(receiptPage(24), { otsu: true });
    const pixels = p.image.subarray(p.image.length - p.width * p.height);
    expect(new Set(pixels).size).toBe(2);
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
    const r = await readPage(page, fake, { image: { capitalPx: 22, maxScale: 2.5 } });
    const meta = await sharp(page).metadata();
    expect(r.size).toEqual({ width: meta.width, height: meta.height });
    const scale = seen!.width / meta.width!;
    expect(scale).toBeGreaterThan(1.8);
    const box = r.ocr.words[0]!.bbox!;
    expect(box.x0).toBeCloseTo(100 / scale, 0);
    expect(box.y1).toBeCloseTo(80 / scale, 0);
  });
});

describe('doubtfulFieldWords', () => {
  const word = (text: string, confidence: number, y0: number): { text: string; confidence: number; bbox: { x0: number; y0: number; x1: number; y1: number } } =>
    ({ text, confidence, bbox: { x0: 10, y0, x1: 90, y1: y0 + 20 } });
  const fields = {
    total: { cents: 2173, confidence: 0.9 },
    date: { value: '2018-03-14', confidence: 0.9 },
    boxes: { total: { x0: 0, y0: 100, x1: 300, y1: 120 }, date: { x0: 0, y0: 40, x1: 300, y1: 60 } },
  };

  it('is sure when tesseract was sure of the digits on the total and date lines', () => {
    expect(doubtfulFieldWords(fields, [word('TOTAL', 10, 100), word('21.73', 91, 100), word('14/03/2018', 88, 40)])).toBe(false);
  });

  it('doubts a reading with an unsure digit on the date line, and ignores unsure words elsewhere', () => {
    expect(doubtfulFieldWords(fields, [word('21.73', 91, 100), word('14/03/2013', 22, 40)])).toBe(true);
    expect(doubtfulFieldWords(fields, [word('21.73', 91, 100), word('14/03/2018', 88, 40), word('7.90', 5, 200)])).toBe(false);
  });

  it('doubts a field read from no box, and leaves missing fields to needsAnotherReading', () => {
    expect(doubtfulFieldWords({ ...fields, boxes: { date: fields.boxes.date } }, [word('14/03/2018', 88, 40)])).toBe(true);
    expect(doubtfulFieldWords({ total: null, date: null }, [])).toBe(false);
  });
});
