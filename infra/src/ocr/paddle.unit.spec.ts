import { describe, expect, it } from 'vitest';
import { createPaddleOcr, paddleEntry, paddleLineText, toOcrResult } from './paddle';

describe('PaddleOCR adapter: lines with boxes as the OCR port gives them', () => {
  it('puts back the space the recogniser drops between a date and its time, and nothing else', () => {
    expect(paddleLineText('23/03/20189:34:40AM')).toBe('23/03/2018 9:34:40AM');
    expect(paddleLineText('Date:29-10-201718:31:45')).toBe('Date:29-10-2017 18:31:45');
    expect(paddleLineText('18/03/1809:03#002')).toBe('18/03/18 09:03#002');
    expect(paddleLineText('05Mar201818:24')).toBe('05Mar2018 18:24');
    expect(paddleLineText('12 March 20189:05')).toBe('12 March 2018 9:05');
    for (const same of ['28-12-17 18:52', 'Date:2018-03-18 13:18:48', 'TEL 03-12345678', 'TOTAL 12.50']) expect(paddleLineText(same)).toBe(same);
    expect(paddleLineText(paddleLineText('19/03/20181:01:43PM'))).toBe('19/03/2018 1:01:43PM');
    // Full-width punctuation from the Chinese dictionary becomes ASCII.
    expect(paddleLineText('（GST ID No：000504664064）')).toBe('(GST ID No:000504664064)');
  });

  it('orders lines top to bottom, left to right, with boxes from their corners and 0..100 confidences', () => {
    const r = toOcrResult([
      { text: 'TOTAL 9.90', mean: 0.9, box: [[10, 200], [120, 202], [120, 222], [10, 220]] },
      { text: 'CORNER CAFE', mean: 0.98, box: [[30, 10], [200, 10], [200, 40], [30, 40]] },
      { text: '  ', mean: 0.6, box: [[0, 100], [5, 100], [5, 110], [0, 110]] },
    ]);
    expect(r.text).toBe('CORNER CAFE\nTOTAL 9.90');
    expect(r.words).toEqual([
      { text: 'CORNER CAFE', confidence: 98, bbox: { x0: 30, y0: 10, x1: 200, y1: 40 } },
      { text: 'TOTAL 9.90', confidence: 90, bbox: { x0: 10, y0: 200, x1: 120, y1: 222 } },
    ]);
    expect(r.confidence).toBeCloseTo(94, 5);
  });

  it('says by name when the package is not installed where it was pointed', async () => {
    expect(paddleEntry('/nonexistent/node_modules')).toBeNull();
    const ocr = createPaddleOcr({ moduleDir: '/nonexistent/node_modules' });
    await expect(ocr.recognize(new Uint8Array([1]))).rejects.toThrow('PaddleOCR (@gutenye/ocr-node) is not installed under /nonexistent/node_modules');
  });
});
