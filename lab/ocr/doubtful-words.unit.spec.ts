/** The word-confidence trigger measured for the retry readings and not kept (ADR 0019). */
import { describe, expect, it } from 'vitest';
import { doubtfulFieldWords } from './doubtful-words';

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
