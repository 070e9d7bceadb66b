/**
 * A PDF of a few hundred bytes whose page is 200 inches on a side used to
 * freeze every company for 12-35 s (the upload check rendered it at 40 dpi, the thumbnail at
 * 72 dpi, OCR at 250 dpi) and its thumbnail answered 500. Page sizes are read before anything
 * is drawn: an absurd page is refused at upload with a 400, and every rendering has a pixel
 * budget, so a large but allowed page renders small, quickly, and off the request thread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { renderPdfPages } from '../../infra/src/ocr/pdf';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';
import { labelledReader } from '../support/labelled-reader';
import { thumbnail } from '../../infra/src/receipts/thumbnail';
import { pdfWeight, MAX_PDF_CONTENT_BYTES, MAX_PDF_FONT_BYTES } from '../../infra/src/receipts/pdf-budget';
import { TASKS } from '../../infra/src/workers/tasks';
import { deflatedContentPdf, pdfBomb } from './worst-inputs';

/** A one-page PDF with a grey square and no text, its page `w` × `h` points; xref offsets computed. */
function pdfWithPage(w: number, h: number): Buffer {
  const content = `0.4 g ${Math.round(w / 10)} ${Math.round(h / 10)} ${Math.round(w / 2)} ${Math.round(h / 2)} re f`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Contents 4 0 R /Resources << >> >>`,
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** Runs `work` while /api/health is asked every 25 ms; returns its result and the slowest health answer. */
async function whileProbingHealth<T>(api: Api, work: () => Promise<T>): Promise<{ result: T; maxHealthMs: number; ms: number }> {
  let running = true;
  let maxHealthMs = 0;
  // The client shares the server's process: a stall delays its timers as much as its requests,
  // so an answer's latency counts from when the request was due (25 ms after the last answer).
  const probe = (async () => {
    let due = performance.now();
    while (running) {
      const res = await api.http.get('/api/health');
      expect(res.status).toBe(200);
      const now = performance.now();
      maxHealthMs = Math.max(maxHealthMs, now - due);
      due = now + 25;
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  const started = performance.now();
  try {
    const result = await work();
    return { result, maxHealthMs, ms: performance.now() - started };
  } finally {
    running = false;
    await probe;
  }
}

describe('a PDF with a huge page', () => {
  let api: Api;
  let owner: Account;
  beforeAll(async () => {
    // OCR's own rendering is checked below without tesseract; the app's reader is a stand-in.
    api = await startApi({}, undefined, { reader: labelledReader() });
    owner = await registerAccount(api);
    await api.http.get('/api/health');
  });
  afterAll(async () => {
    await api?.close();
  });

  it('is tiny on disk (the attack is the page size, not the bytes)', () => {
    expect(pdfWithPage(14_400, 14_400).length).toBeLessThan(600);
  });

  it('a 14,400 pt page is refused at upload, quickly, with a clear 400, and health answers meanwhile', async () => {
    const { result: res, maxHealthMs, ms } = await whileProbingHealth(api, () =>
      api.http.post('/api/receipts/upload').set(owner.headers()).attach('receipt', pdfWithPage(14_400, 14_400), 'bomb.pdf'));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'pdf_page_too_large' });
    expect(res.body.error).toMatch(/200 × 200 inches.*at most 100 inches/);
    expect(ms).toBeLessThan(5_000);
    expect(maxHealthMs).toBeLessThan(1_500);
    const list = await api.http.get('/api/receipts').set(owner.headers());
    expect(list.body.receipts ?? list.body).toHaveLength(0);
  });

  it('a large page within the limit is accepted and its thumbnail renders to a small JPEG, never a 500', async () => {
    // 97 inches square: at the thumbnail's 72 dpi that was 49 million pixels (sharp refused it: 500).
    const big = pdfWithPage(7_000, 7_000);
    const upload = await api.http.post('/api/receipts/upload').set(owner.headers()).attach('receipt', big, 'poster.pdf');
    expect(upload.status).toBe(201);
    const id = upload.body.id ?? upload.body.receipt?.id;
    expect(id).toBeTruthy();
    const { result: thumb, maxHealthMs, ms } = await whileProbingHealth(api, () =>
      api.http.get(`/api/receipts/${id}/thumbnail`).set(owner.headers()).buffer(true).parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      }));
    expect(thumb.status).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/jpeg');
    expect((thumb.body as Buffer).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(ms).toBeLessThan(5_000);
    expect(maxHealthMs).toBeLessThan(1_500);
  });
});

describe('rendering a PDF page for OCR', () => {
  it('keeps to the pixel budget whatever the page size (250 dpi of 14,400 pt would be 2.5 billion pixels)', async () => {
    const started = performance.now();
    const [page] = await renderPdfPages(pdfWithPage(14_400, 14_400), { dpi: 250, maxPages: 1 });
    const { width, height } = await sharp(page!).metadata();
    expect(width! * height!).toBeLessThanOrEqual(25_000_000);
    expect(width).toBeGreaterThan(1_000);
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('renders a normal page at the resolution asked for', async () => {
    const [page] = await renderPdfPages(pdfWithPage(612, 792), { dpi: 144, maxPages: 1 });
    expect(await sharp(page!).metadata()).toMatchObject({ width: 1224, height: 1584 });
  });
});

/** The code of the AppError `work` rejects with, and how long it took. */
async function refusal(work: () => Promise<unknown>): Promise<{ code: string | undefined; ms: number }> {
  const started = performance.now();
  try {
    await work();
  } catch (error) {
    return { code: (error as { code?: string }).code, ms: performance.now() - started };
  }
  return { code: undefined, ms: performance.now() - started };
}

describe('a 130 KB PDF whose page decompresses to 54 MB of operators', () => {
  const bomb = pdfBomb();

  it('is weighed from its raw streams in milliseconds, inflating no more than its ceiling', () => {
    expect(bomb.length).toBeLessThan(140_000);
    const started = performance.now();
    const weight = pdfWeight(bomb, { content: MAX_PDF_CONTENT_BYTES, font: MAX_PDF_FONT_BYTES });
    expect(weight.contentBytes).toBe(MAX_PDF_CONTENT_BYTES + 1);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(pdfWeight(deflatedContentPdf(0.05), { content: MAX_PDF_CONTENT_BYTES, font: MAX_PDF_FONT_BYTES }).contentBytes).toBeLessThan(60_000);
  });

  it('is refused at upload with 422 pdf_too_complex before pdfjs reads it (it passed the checks and was stored)', async () => {
    const api = await startApi({}, undefined, { reader: labelledReader() });
    try {
      const owner = await registerAccount(api);
      const started = performance.now();
      const res = await api.http.post('/api/receipts/upload').set(owner.headers()).attach('receipt', bomb, 'bomb.pdf');
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'pdf_too_complex' });
      expect(performance.now() - started).toBeLessThan(10_000);
      const list = await api.http.get('/api/receipts').set(owner.headers());
      expect(list.body.receipts ?? list.body).toHaveLength(0);
    } finally {
      await api.close();
    }
  });

  it('one stored before the check fails its thumbnail and its OCR steps at once, not after 30 s of a worker', async () => {
    for (const work of [() => thumbnail(bomb, 'pdf'), () => TASKS.renderPdf({ bytes: bomb, options: { dpi: 250 } }), () => TASKS.pdfText({ bytes: bomb })]) {
      const { code, ms } = await refusal(work);
      expect(code).toBe('pdf_too_complex');
      expect(ms).toBeLessThan(2_000);
    }
  });

  it('a page under the weight but too slow to draw is stopped at its render budget', async () => {
    const heavy = deflatedContentPdf(1.5);
    expect(() => pdfWeight(heavy, { content: MAX_PDF_CONTENT_BYTES, font: MAX_PDF_FONT_BYTES })).not.toThrow();
    const { code, ms } = await refusal(() => renderPdfPages(heavy, { dpi: 72, maxPages: 1, timeMs: 300 }));
    expect(code).toBe('pdf_too_complex');
    expect(ms).toBeLessThan(5_000);
  });
});
