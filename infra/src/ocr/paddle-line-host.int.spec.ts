import PDFDocument from 'pdfkit';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { offThread } from '../workers/off-thread';
import { WorkerPool } from '../workers/pool';
import { renderPdfPages } from './pdf';
import { paddleLineFiles, readPaddleLines } from './paddle-line-host';
import { createOcrPool } from './pool';
import { readReceipt } from './read-receipt';
import { CONFIDENT_AT, RETRY_BELOW } from '@paperlink/domain';
import type { OcrBox, OcrWord, RereadLine } from '@paperlink/domain';

const DPI = 200;
const px = (pt: number): number => Math.round((pt * DPI) / 72);

/** An invented receipt page, rendered as a scan would be: lines of Courier at known places. */
async function page(lines: ReadonlyArray<{ text: string; x: number; y: number; size?: number }>, size: [number, number]): Promise<Buffer> {
  const pdf = await new Promise<Buffer>((resolve, reject) => {
    const doc = new PDFDocument({ size, margin: 10 });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    for (const l of lines) doc.font('Courier').fontSize(l.size ?? 10).text(l.text, l.x, l.y, { lineBreak: false });
    doc.end();
  });
  const [png] = await renderPdfPages(pdf, { dpi: DPI, maxPages: 1 });
  return sharp(png!).jpeg({ quality: 90 }).toBuffer();
}

/** The box of a line drawn at (x, y) in points, `chars` Courier characters of `size` points. */
const lineBox = (x: number, y: number, chars: number, size = 10): { x0: number; y0: number; x1: number; y1: number } =>
  ({ x0: px(x), y0: px(y), x1: px(x + chars * size * 0.6), y1: px(y + size) });

const LINES = [
  { text: 'CORNER HARDWARE', x: 20, y: 20 },
  { text: 'Date: 21/03/2018 09:34', x: 20, y: 40 },
  { text: 'Hammer 2 x 12.90', x: 20, y: 70 },
  { text: 'TOTAL RM 123.45', x: 20, y: 100, size: 14 },
];
const SIZE: [number, number] = [260, 140];
const cpu = new WorkerPool({ size: 1 });
const ocr = createOcrPool({ workers: 1 });
afterAll(async () => {
  await cpu.close();
  await ocr.close();
});

describe('PaddleOCR recogniser on lines (offline: model and runtime from npm packages)', () => {
  it('finds the model files inside the installed packages', () => {
    const files = paddleLineFiles();
    expect(files).not.toBeNull();
    expect(files!.model).toMatch(/ocr-models[\\/]assets[\\/]ch_PP-OCRv4_rec_infer\.onnx$/);
  });

  it('reads the date and total lines of an invented receipt, as words placed inside their crop', async () => {
    const image = await page(LINES, SIZE);
    const meta = await sharp(image).metadata();
    const boxes = [lineBox(20, 40, 22), lineBox(20, 100, 15, 14)];
    const lines = await readPaddleLines(image, { width: meta.width!, height: meta.height! }, boxes);
    expect(lines).toHaveLength(2);
    const [date, total] = lines.map((l) => l.words.map((w) => w.text).join(' '));
    expect(date).toContain('21/03/2018');
    expect(total).toMatch(/123\.45/);
    for (const [i, l] of lines.entries()) {
      expect(l.box).toBe(boxes[i]);
      for (const w of l.words) {
        expect(w.bbox!.x0).toBeGreaterThanOrEqual(l.crop.x0);
        expect(w.bbox!.x1).toBeLessThanOrEqual(l.crop.x1 + 1);
        expect(w.confidence).toBeGreaterThan(50);
      }
    }
  });

  it('takes the word gaps of the page reading when given them', async () => {
    const image = await page(LINES, SIZE);
    const meta = await sharp(image).metadata();
    // "TOTAL RM 123.45" at 14 pt Courier: characters 0-4, 6-7 and 9-14.
    const word = (from: number, to: number) => ({ ...lineBox(20 + from * 14 * 0.6, 100, to - from, 14) });
    const [line] = await readPaddleLines(image, { width: meta.width!, height: meta.height! }, [lineBox(20, 100, 15, 14)], [[word(0, 5), word(6, 8), word(9, 15)]]);
    expect(line!.words.map((w) => w.text)).toEqual(['TOTAL', 'RM', '123.45']);
  });

  it('runs in the worker pool as the product calls it (the page moved, the model loaded there)', async () => {
    const image = await page(LINES, SIZE);
    const meta = await sharp(image).metadata();
    const lines = await offThread(cpu).secondLines.readLines(image, { width: meta.width!, height: meta.height! }, [lineBox(20, 100, 15, 14)]);
    expect(lines[0]!.words.map((w) => w.text).join(' ')).toMatch(/123\.45/);
  });
});

describe('readReceipt with a second line reader', () => {
  /** An invented hardware receipt whose last line holds `amounts` and no total label. */
  const hardware = (amounts: string, size: [number, number] = SIZE): Promise<Buffer> => page([
    { text: 'CORNER HARDWARE', x: 20, y: 20 },
    { text: 'Date: 21/03/2018', x: 20, y: 40 },
    { text: 'Hammer 12.90', x: 20, y: 70 },
    { text: 'Nails 3.10', x: 20, y: 85 },
    { text: amounts, x: 20, y: 105 },
  ], size);
  // No total label: the total is doubtful, so its candidate lines go to the second reader.
  const doubtful = (): Promise<Buffer> => hardware('16.00');

  it('gives the doubtful total\'s lines to it, and a failing reader is not the receipt\'s failure', async () => {
    const asked: number[] = [];
    const r = await readReceipt(await doubtful(), ocr, {
      secondLines: {
        readLines: async (_page, _size, boxes) => {
          asked.push(boxes.length);
          throw new Error('model missing');
        },
      },
    });
    expect(asked.length).toBe(1);
    expect(asked[0]).toBeGreaterThan(0);
    expect(r.secondLinesError).toBe('model missing');
    expect(r.secondLinesRead).toBe(0);
    expect(r.fields.date?.value).toBe('2018-03-21');
    expect(r.fields.merchant?.value).toMatch(/CORNER HARDWARE/);
  });

  it('reads only the lines of a field the first reader left doubtful, unless asked for all of them', async () => {
    // Two lines to read again: the date's (read surely by the first reader) and the doubtful total's.
    const rereadLines = async (_text: string, words: readonly OcrWord[]): Promise<RereadLine[]> => {
      const box = (re: RegExp): OcrBox => {
        const w = words.find((x) => re.test(x.text))!;
        return { x0: w.bbox!.x0, y0: w.bbox!.y0, x1: w.bbox!.x1, y1: w.bbox!.y1 };
      };
      return [{ box: box(/21\/03\/2018/), fields: ['date'] }, { box: box(/^16\.00$/), fields: ['total'] }];
    };
    const asked = async (secondFor?: 'all' | 'doubtful'): Promise<{ boxes: number; date: number | undefined; total: number | undefined }> => {
      let boxes = 0;
      const r = await readReceipt(await doubtful(), ocr, {
        retry: true,
        rereadLines,
        ...(secondFor ? { secondFor } : {}),
        secondLines: { readLines: async (_page, _size, b) => { boxes += b.length; return []; } },
      });
      return { boxes, date: r.fields.date?.confidence, total: r.fields.total?.confidence };
    };
    const byDefault = await asked();
    expect(byDefault.date).toBeGreaterThanOrEqual(CONFIDENT_AT);
    expect(byDefault.total ?? 0).toBeLessThan(CONFIDENT_AT);
    expect(byDefault.boxes).toBe(1);
    expect((await asked('all')).boxes).toBe(2);
  });

  it('decides on another page reading from the vote so far: a second reader that makes the total sure spares the retries', async () => {
    // Five amounts on the last line, none the lines' sum nor a tendered-less-change pair, and no
    // label: the total is unsure (under RETRY_BELOW; with three amounts that reconcile, 20.00 less
    // 4.00 being the lines' 16.00, the ranker is sure enough not to retry). The second reader reads the total's lines as a labelled total: with it the total is sure and no
    // page is read again; with a reader that reads nothing the receipt takes the retry readings.
    const unsure = (): Promise<Buffer> => hardware('30.00 20.00 11.00 4.00 9.00', [260, 160]);
    const reader = (label: boolean) => ({
      readLines: async (_page: Uint8Array, _size: { width: number; height: number }, boxes: readonly OcrBox[]) => boxes.map((box) => {
        const h = box.y1 - box.y0;
        const words: OcrWord[] = label
          ? [{ text: 'TOTAL', confidence: 96, bbox: { x0: box.x0, y0: box.y0, x1: box.x0 + 5 * h, y1: box.y1 } }, { text: '20.00', confidence: 96, bbox: { x0: box.x0 + 6 * h, y0: box.y0, x1: box.x0 + 11 * h, y1: box.y1 } }]
          : [];
        return { box, crop: box, words, ms: 0 };
      }),
    });
    const alone = await readReceipt(await unsure(), ocr, { secondLines: reader(false) });
    expect(alone.fields.total?.confidence ?? 0).toBeLessThan(RETRY_BELOW.total);
    expect(alone.passes).toBeGreaterThan(1);
    const sure = await readReceipt(await unsure(), ocr, { secondLines: reader(true) });
    expect(sure.secondLinesRead).toBeGreaterThan(0);
    expect(sure.fields.total?.cents).toBe(2000);
    expect(sure.fields.total!.confidence).toBeGreaterThanOrEqual(RETRY_BELOW.total);
    expect(sure.passes).toBe(1);
  });

  it('votes its mended reading with the first: a second reading of the same total agrees with it', async () => {
    const withSecond = await readReceipt(await doubtful(), ocr, { secondLines: offThread(cpu).secondLines });
    const without = await readReceipt(await doubtful(), ocr);
    expect(withSecond.secondLinesRead).toBeGreaterThan(0);
    expect(withSecond.secondLinesError).toBeUndefined();
    expect(withSecond.fields.total?.cents).toBe(without.fields.total?.cents);
    // Two readings that agree: the vote's confidence is at least the single reading's.
    expect(withSecond.fields.total!.confidence).toBeGreaterThanOrEqual(without.fields.total!.confidence);
    expect(withSecond.passes).toBe(without.passes);
  });
});
