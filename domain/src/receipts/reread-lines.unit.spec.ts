import { describe, expect, it } from 'vitest';
import { extractReceiptFields } from './extract';
import { doubtfulFields, linesToReread } from './reread-lines';
import type { ReceiptModel } from './learned/model';
import weights from './learned/weights.json' with { type: 'json' };
import type { OcrWord, ReceiptFields } from './types';

/** An invented receipt as OCR words: one word per token, 30 px lines, 12 px per character. */
function words(lines: readonly string[]): OcrWord[] {
  const out: OcrWord[] = [];
  lines.forEach((line, i) => {
    let x = 20;
    for (const token of line.split(' ').filter(Boolean)) {
      out.push({ text: token, confidence: 90, bbox: { x0: x, y0: 20 + 40 * i, x1: x + 12 * token.length, y1: 50 + 40 * i } });
      x += 12 * (token.length + 1);
    }
  });
  return out;
}

const LINES = ['CORNER BAKERY SDN BHD', '12 JALAN MAWAR', 'DATE 14/06/2019 10:42', 'LATTE 12.50', 'MUFFIN 6.75', 'TOTAL 19.25', 'CASH 20.00', 'CHANGE 0.75'];
const text = LINES.join('\n');
const ws = words(LINES);

describe('doubtfulFields', () => {
  it('lists the fields missing or under the confident mark', () => {
    const f: ReceiptFields = { total: { cents: 1, confidence: 0.96 }, date: { value: '2019-06-14', confidence: 0.9 }, merchant: null, tax: null, description: null };
    expect(doubtfulFields(f)).toEqual(['date', 'merchant']);
    expect(doubtfulFields(f, 0.5)).toEqual(['merchant']);
  });
});

describe('linesToReread', () => {
  it('lists nothing when every field is confident', () => {
    const f: ReceiptFields = { ...extractReceiptFields(text, ws), total: { cents: 1925, confidence: 0.99 }, date: { value: '2019-06-14', confidence: 0.99 }, merchant: { value: 'X', confidence: 0.99 } };
    expect(linesToReread(text, ws, f)).toEqual([]);
  });

  it("lists a doubtful total's candidate lines, best first by the ranker, at most perField, with their boxes", () => {
    const f = extractReceiptFields(text, ws);
    const doubtful: ReceiptFields = { ...f, total: f.total ? { ...f.total, confidence: 0.5 } : null, date: { value: '2019-06-14', confidence: 0.99 }, merchant: { value: 'CORNER BAKERY SDN BHD', confidence: 0.99 } };
    const lines = linesToReread(text, ws, doubtful, {}, { perField: 2 });
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.length).toBeLessThanOrEqual(3); // two candidates plus the chosen line
    expect(lines.every((l) => l.fields.includes('total'))).toBe(true);
    // The TOTAL line (sixth, y 220..250) is among them: the ranker's best total line.
    expect(lines.map((l) => l.box.y0)).toContain(220);
    expect(lines.map((l) => l.box.y0)).not.toContain(20); // not the merchant's line
  });

  it('reads the date lines again when only the date is doubtful, or when asked to', () => {
    const f = extractReceiptFields(text, ws);
    const sure = { ...f, total: { cents: 1925, confidence: 0.99 }, date: { value: '2019-06-14', confidence: 0.99 }, merchant: { value: 'CORNER BAKERY SDN BHD', confidence: 0.99 } };
    const lines = linesToReread(text, ws, sure, {}, { also: ['date'] });
    expect(lines.map((l) => l.box.y0)).toContain(100);
    expect(lines.every((l) => l.fields.includes('date'))).toBe(true);
  });

  it("orders a field's candidate lines by the model it is given (a cross-validation fold's), the committed one by default", () => {
    const f = extractReceiptFields(text, ws);
    const doubtful: ReceiptFields = { ...f, total: { cents: 1925, confidence: 0.5 }, date: { value: '2019-06-14', confidence: 0.99 }, merchant: { value: 'CORNER BAKERY SDN BHD', confidence: 0.99 } };
    const committed = weights as ReceiptModel;
    expect(linesToReread(text, ws, doubtful, {}, { perField: 1, model: committed })).toEqual(linesToReread(text, ws, doubtful, {}, { perField: 1 }));
    // A model that scores every total candidate the other way round picks another first line.
    const reversed: ReceiptModel = { ...committed, fields: { ...committed.fields, total: { ...committed.fields.total, weights: Object.fromEntries(Object.entries(committed.fields.total.weights).map(([k, v]) => [k, -v])) } } };
    const best = (m: ReceiptModel) => linesToReread(text, ws, { ...doubtful, boxes: {} }, {}, { perField: 1, model: m }).map((l) => l.box.y0);
    expect(best(reversed)).not.toEqual(best(committed));
    // Extraction takes a model the same way.
    expect(extractReceiptFields(text, ws, {}, committed)).toEqual(f);
  });

  it('lists nothing for text without boxes', () => {
    const f = extractReceiptFields(text);
    expect(linesToReread(text, undefined, { ...f, total: null })).toEqual([]);
  });
});
