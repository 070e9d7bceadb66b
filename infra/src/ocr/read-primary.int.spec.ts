/**
 * The reader as the product runs it (PP-OCRv5 first, tesseract.js the second opinion) on invented
 * receipts, one per kind of miss seen on receipts of merchants none of our sets holds: a tendered
 * amount beating the total, a date underlined beside an invoice number, dates printed with month
 * names, a faint scan made from a clear one.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { createOcrPool } from './pool';
import { createPpocrHost } from './ppocr-host';
import { readReceipt } from './read-receipt';

const fontDir = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
GlobalFonts.registerFromPath(join(fontDir, 'DejaVuSansMono.ttf'), 'PrimaryMono');
GlobalFonts.registerFromPath(join(fontDir, 'DejaVuSansMono-Bold.ttf'), 'PrimaryMonoBold');

const primary = createPpocrHost();
const pool = createOcrPool({ workers: 1 });
afterAll(async () => {
  await primary?.close();
  await pool.close();
});

interface Line {
  text: string;
  /** Right-aligned part (an amount), drawn at the right edge. */
  right?: string;
  bold?: boolean;
  size?: number;
  /** Underline the right part. */
  underline?: boolean;
}

/** A receipt page drawn in a monospace font (invented text, no dataset copy), as a JPEG. */
function receipt(lines: readonly Line[], width = 560): Buffer {
  const base = 22;
  const heights = lines.map((l) => Math.round((l.size ?? base) * 1.7));
  const canvas = createCanvas(width, heights.reduce((s, h) => s + h, 0) + 60);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#151515';
  ctx.strokeStyle = '#151515';
  let y = 30;
  lines.forEach((l, i) => {
    y += heights[i]!;
    ctx.font = `${l.size ?? base}px ${l.bold ? 'PrimaryMonoBold' : 'PrimaryMono'}`;
    ctx.fillText(l.text, 16, y - 8);
    if (l.right) {
      const w = ctx.measureText(l.right).width;
      ctx.fillText(l.right, width - 16 - w, y - 8);
      if (l.underline) {
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.moveTo(width - 16 - w, y - 3);
        ctx.lineTo(width - 16, y - 3);
        ctx.stroke();
      }
    }
  });
  return canvas.toBuffer('image/jpeg', 92);
}

/**
 * The same page as a faint thermal print: its grey levels squeezed into `levels` just under
 * white paper (235), so black ink becomes 235 - levels; a little blur.
 */
async function faint(jpeg: Buffer, levels = 65): Promise<Buffer> {
  return sharp(jpeg).greyscale().linear(levels / 255, 235 - levels).blur(0.8).jpeg({ quality: 85 }).toBuffer();
}

const HEAD: Line[] = [
  { text: 'KEDAI RUNCIT SRI MAWAR SDN BHD', bold: true },
  { text: '(1189342-K)' },
  { text: 'NO 8 JALAN DAMAI 2/4' },
  { text: '43000 KAJANG SELANGOR' },
];

const withModels = primary ? describe : describe.skip;
if (!primary && process.env.CI === 'true') throw new Error('the PP-OCRv5 models are missing under CI (scripts/install-ocr-models.sh)');

withModels('readReceipt with PP-OCRv5 first and tesseract.js second (skipped without the PP-OCRv5 models)', () => {
  it('takes the total line, not the larger round amount tendered, nor the change', async () => {
    const page = receipt([...HEAD, { text: 'DATE: 05/02/2019 12:31' }, { text: 'MILO AIS', right: '3.50' }, { text: 'ROTI BAKAR', right: '5.00' },
      { text: 'TOTAL', right: '8.50', bold: true }, { text: 'CASH', right: '50.00', bold: true, size: 28 }, { text: 'CHANGE', right: '41.50' }]);
    const r = await readReceipt(page, pool, { primary: primary! });
    expect(r.voters?.[0]).toBe('ppocr');
    expect(r.fields.total?.cents).toBe(850);
    expect(r.fields.date?.value).toBe('2019-02-05');
  }, 60_000);

  it('reads a date underlined on the line of an invoice number', async () => {
    const page = receipt([...HEAD, { text: 'TAX INVOICE' }, { text: 'INV NO: CS00043129', right: '27/03/2018', underline: true },
      { text: 'BERAS 5KG', right: '21.90' }, { text: 'TOTAL', right: '21.90', bold: true }]);
    const r = await readReceipt(page, pool, { primary: primary! });
    expect(r.fields.date?.value).toBe('2018-03-27');
    expect(r.fields.total?.cents).toBe(2190);
  }, 60_000);

  it.each([['14/JUN/2017', '2017-06-14'], ['OCT 3, 2016', '2016-10-03']])('reads a date printed as %s', async (printed, iso) => {
    const page = receipt([...HEAD, { text: `DATE ${printed}` }, { text: 'TEH TARIK', right: '2.40' }, { text: 'TOTAL', right: '2.40', bold: true }]);
    const r = await readReceipt(page, pool, { primary: primary! });
    expect(r.fields.date?.value).toBe(iso);
  }, 60_000);

  it.each([65, 12])('reads a faint scan made from a clear one (ink %i grey levels under the paper): text found, the same total and date', async (levels) => {
    const clear = receipt([...HEAD, { text: 'DATE: 11/08/2018 09:05' }, { text: 'SABUN CUCI', right: '12.90' }, { text: 'TOTAL', right: '12.90', bold: true }, { text: 'CASH', right: '20.00' }, { text: 'CHANGE', right: '7.10' }]);
    const r = await readReceipt(await faint(clear, levels), pool, { primary: primary! });
    expect(r.text).toMatch(/TOTAL/);
    expect(r.fields.total?.cents).toBe(1290);
    expect(r.fields.date?.value).toBe('2018-08-11');
  }, 60_000);
});

describe('readReceipt when the primary reader fails or finds nothing', () => {
  const page = (): Buffer => receipt([...HEAD, { text: 'DATE: 02/01/2019 08:15' }, { text: 'NASI LEMAK', right: '6.50' }, { text: 'TOTAL', right: '6.50', bold: true }]);

  it('reads with tesseract.js alone and says why', async () => {
    const broken = { read: () => Promise.reject(new Error('model file unreadable')), close: async () => undefined };
    const r = await readReceipt(page(), pool, { primary: broken });
    expect(r.primaryError).toBe('model file unreadable');
    expect(r.voters).toBeUndefined();
    expect(r.fields.total?.cents).toBe(650);
  }, 60_000);

  it('leaves a page it finds no text on to tesseract.js', async () => {
    const blind = { read: async () => ({ text: '', confidence: 0, words: [], size: { width: 560, height: 400 } }), close: async () => undefined };
    const r = await readReceipt(page(), pool, { primary: blind });
    expect(r.primaryError).toBeUndefined();
    expect(r.voters).toBeUndefined();
    expect(r.fields.total?.cents).toBe(650);
  }, 60_000);
});
