import { describe, expect, it } from 'vitest';
import type { OcrWord } from '@paperlink/domain';
import { patchReading, surestReadings } from './line-reread';
import type { LineReading } from './line-reread';

const w = (text: string, confidence: number, x0: number, y0: number): OcrWord => ({ text, confidence, bbox: { x0, y0, x1: x0 + 10 * text.length, y1: y0 + 20 } });

const page = [w('CORNER', 90, 10, 10), w('BAKERY', 90, 80, 10), w('DATE', 80, 10, 50), w('14/06/2015', 25, 60, 50), w('TOTAL', 90, 10, 90), w('19.25', 88, 80, 90)];
const text = 'CORNER BAKERY\nDATE 14/06/2015\nTOTAL 19.25';
const dateLine = (words: OcrWord[]): LineReading => ({ box: { x0: 10, y0: 50, x1: 160, y1: 70 }, crop: { x0: 0, y0: 50, x1: 220, y1: 70 }, words, ms: 1 });

describe('patchReading', () => {
  it("puts a line's reading in place of the page's words on it, in the words and the text", () => {
    const p = patchReading(text, page, [dateLine([w('DATE:', 95, 10, 51), w('14/06/2019', 93, 62, 51)])]);
    expect(p.text).toBe('CORNER BAKERY\nDATE: 14/06/2019\nTOTAL 19.25');
    expect(p.words.map((x) => x.text)).toEqual(['CORNER', 'BAKERY', 'DATE:', '14/06/2019', 'TOTAL', '19.25']);
    expect(p.replaced).toBe(1);
  });

  it('with prefer surer, keeps the page words when tesseract was surer of them', () => {
    const unsure = dateLine([w('DATE', 30, 10, 51), w('14/08/2013', 20, 62, 51)]);
    const p = patchReading(text, page, [unsure], { prefer: 'surer' });
    expect(p.text).toBe(text);
    expect(p.replaced).toBe(0);
    const sure = patchReading(text, page, [dateLine([w('DATE', 96, 10, 51), w('14/06/2019', 94, 62, 51)])], { prefer: 'surer' });
    expect(sure.text).toBe('CORNER BAKERY\nDATE 14/06/2019\nTOTAL 19.25');
  });

  it('keeps the page words of a line read as nothing', () => {
    const p = patchReading(text, page, [dateLine([])]);
    expect(p.text).toBe(text);
    expect(p.replaced).toBe(0);
  });

  it('rebuilds the text from the words when the text does not align with them', () => {
    const p = patchReading('something else', page, [dateLine([w('14/06/2019', 93, 62, 51)])]);
    expect(p.text).toBe('CORNER BAKERY\n14/06/2019\nTOTAL 19.25');
  });
});

describe('surestReadings', () => {
  it('keeps, per line, the reading tesseract is surest of, and adds up the time', () => {
    const a = dateLine([w('14/08/2013', 40, 62, 51)]);
    const b = { ...dateLine([w('14/06/2019', 91, 62, 51)]), box: a.box };
    const [best] = surestReadings([[a], [b]]);
    expect(best!.words[0]!.text).toBe('14/06/2019');
    expect(best!.ms).toBe(2);
  });
});
