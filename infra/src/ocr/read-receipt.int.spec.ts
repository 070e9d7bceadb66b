import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import PDFDocument from 'pdfkit';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { createOcrPool } from './pool';
import { pdfText, renderPdfPages } from './pdf';
import { readReceipt } from './read-receipt';

const DEV = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'data', 'receipts-dev');
const pool = createOcrPool({ workers: 2 });

afterAll(async () => {
  await pool.close();
});

interface Label {
  date: string;
  total: number;
}

const label = (id: string): Label => JSON.parse(readFileSync(join(DEV, `${id}.json`), 'utf8')) as Label;

function pdf(draw: (doc: PDFKit.PDFDocument) => void, size: [number, number]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size, margin: 20 });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    draw(doc);
    doc.end();
  });
}

describe('readReceipt on scanned receipts (tesseract.js, offline)', () => {
  it.each(['X51005663317', 'X51006556730', 'X51008145504'])('reads the total and date of %s', async (id) => {
    const want = label(id);
    const r = await readReceipt(readFileSync(join(DEV, `${id}.jpg`)), pool);
    expect(r.source).toBe('ocr');
    expect(r.fields.total?.cents).toBe(Math.round(want.total * 100));
    expect(r.fields.date?.value).toBe(want.date);
    expect(r.ocrConfidence).toBeGreaterThan(50);
    // Where the total and date were read, as fractions of the page: a real box on the page,
    // and the total's line below the date's, as receipts print them.
    const { total, date } = r.boxes ?? {};
    for (const b of [total, date]) {
      expect(b).toHaveLength(4);
      const [x0, y0, x1, y1] = b!;
      expect(0 <= x0 && x0 < x1 && x1 <= 1 && 0 <= y0 && y0 < y1 && y1 <= 1).toBe(true);
    }
    expect(total![1]).toBeGreaterThan(date![3]);
  });
});

describe('readReceipt on PDFs', () => {
  it('gives no boxes for a text layer (no geometry)', async () => {
    const bytes = await pdf((doc) => {
      doc.font('Courier').fontSize(10).text('CORNER CAFE', 20, 20).text('Date: 02/03/2024', 20, 40).text('TOTAL 12.50', 20, 60);
    }, [300, 200]);
    const r = await readReceipt(bytes, pool);
    expect(r.source).toBe('pdf-text');
    expect(r.fields.total?.cents).toBe(1250);
    expect(r.boxes).toBeUndefined();
  });

  it('takes the text layer of a text PDF without OCR', async () => {
    const bytes = await pdf((doc) => {
      doc.font('Courier').fontSize(10);
      doc.text('SUNRISE BOOKS SDN BHD', 20, 20);
      doc.text('TAX INVOICE', 20, 36);
      doc.text('Date: 21/08/2019 14:02', 20, 52);
      doc.text('Notebook A5', 20, 80).text('12.90', 220, 80);
      doc.text('Pen, blue x2', 20, 94).text('5.00', 220, 94);
      doc.text('GST 6%', 20, 112).text('1.07', 220, 112);
      doc.text('TOTAL', 20, 126).text('18.97', 220, 126);
    }, [300, 400]);
    expect((await pdfText(bytes))[0]).toContain('TOTAL   18.97');
    const r = await readReceipt(bytes, pool);
    expect(r).toMatchObject({ kind: 'pdf', source: 'pdf-text', passes: 0, ocrConfidence: 100 });
    expect(r.fields.total?.cents).toBe(1897);
    expect(r.fields.date?.value).toBe('2019-08-21');
    expect(r.fields.merchant?.value).toBe('SUNRISE BOOKS SDN BHD');
    expect(r.fields.tax?.cents).toBe(107);
  });

  it('renders and OCRs an image-only PDF', async () => {
    const id = 'X51005663317';
    const jpeg = readFileSync(join(DEV, `${id}.jpg`));
    const bytes = await pdf((doc) => void doc.image(jpeg, 0, 0, { width: 420 }), [420, 760]);
    expect((await pdfText(bytes)).join('').trim()).toBe('');
    const pages = await renderPdfPages(bytes, { dpi: 200 });
    expect(pages).toHaveLength(1);
    expect(pages[0]!.subarray(1, 4).toString('latin1')).toBe('PNG');
    const r = await readReceipt(bytes, pool);
    expect(r.source).toBe('ocr');
    expect(r.fields.total?.cents).toBe(Math.round(label(id).total * 100));
    expect(r.fields.date?.value).toBe(label(id).date);
  });
});

describe('image preparation in the pool\'s preparation thread', () => {
  it('scales a page there and gives it back as a PGM of the new size', async () => {
    const page = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#ffffff' } }).jpeg().toBuffer();
    const p = await pool.prepare(page, { scale: 1.5 });
    expect(p).toMatchObject({ width: 450, height: 300, scale: 1.5 });
    expect(p.image.subarray(0, 15).toString('latin1')).toBe('P5\n450 300\n255\n');
    expect(p.image.length).toBe(15 + 450 * 300);
  });

  it('rejects bytes that are no image, as the reader\'s decode failure', async () => {
    await expect(pool.prepare(Buffer.from('not an image'), { scale: 1.5 })).rejects.toThrow();
  });
});

describe('readReceipt refusals and start-up checks', () => {
  it('refuses a text file before any OCR', async () => {
    await expect(readReceipt(Buffer.from('Date,Amount\n2024-01-05,12.50\n'), pool)).rejects.toMatchObject({ code: 'unsupported_type', status: 415 });
  });

  it('fails fast, without hanging or fetching, when the language data is missing', async () => {
    const broken = createOcrPool({ workers: 1, langPath: join(import.meta.dirname, 'no-such-folder') });
    await expect(broken.start()).rejects.toThrow(/language data not found/);
    await broken.close();
  });
});
