import { describe, expect, it } from 'vitest';
import { extractReceiptFields } from './extract';
import { doubtfulFields, linesForSecondReader, linesToReread } from './reread-lines';
import type { RereadLine } from './reread-lines';
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

  it('reads a total label with no amount again, across the page, unless the next line holds its amount', () => {
    // The amount of GRAND TOTAL was read as noise; the line under it is a tax note with an amount of its own.
    const lost = ['CORNER BAKERY SDN BHD', 'DATE 14/06/2019 10:42', 'LATTE 12.50', 'MUFFIN 6.75', 'GRAND TOTAL we 9 . 25', 'INCLUSIVE OF 6% GST RM1.09', 'CASH 20.00'];
    const sure = (t: string, w: OcrWord[]): ReceiptFields => ({ ...extractReceiptFields(t, w), date: { value: '2019-06-14', confidence: 0.99 }, merchant: { value: 'CORNER BAKERY SDN BHD', confidence: 0.99 } });
    const lostWords = words(lost);
    const grand = linesToReread(lost.join('\n'), lostWords, { ...sure(lost.join('\n'), lostWords), total: null }).find((l) => l.box.y0 === 180);
    expect(grand).toMatchObject({ fields: ['total'], wide: true });
    // Its amount on the unlabelled line below: that line is the amount, nothing was lost.
    const below = ['CORNER BAKERY SDN BHD', 'DATE 14/06/2019 10:42', 'LATTE 12.50', 'MUFFIN 6.75', 'GRAND TOTAL', '19.25', 'CASH 20.00'];
    const belowWords = words(below);
    const lines = linesToReread(below.join('\n'), belowWords, { ...sure(below.join('\n'), belowWords), total: null });
    expect(lines.some((l) => l.wide)).toBe(false);
  });

  it('reads the lines that look like a date again when no date could be read from them', () => {
    // A year no reading can take (`7015`): no date candidate at all, yet the line shows one.
    const odd = ['CORNER BAKERY SDN BHD', '12 JALAN MAWAR', 'INV 1126479 CASHIER ANNE', 'DATE : 05-05-7015 11:25:29', 'LATTE 12.50', 'TOTAL 12.50'];
    const t = odd.join('\n');
    const w = words(odd);
    const f = extractReceiptFields(t, w);
    expect(f.date).toBeNull();
    const lines = linesToReread(t, w, { ...f, total: { cents: 1250, confidence: 0.99 }, merchant: { value: 'CORNER BAKERY SDN BHD', confidence: 0.99 } });
    expect(lines.filter((l) => l.fields.includes('date')).map((l) => l.box.y0)).toEqual([140]);
  });

  it('lists nothing for text without boxes', () => {
    const f = extractReceiptFields(text);
    expect(linesToReread(text, undefined, { ...f, total: null })).toEqual([]);
  });
});

describe('linesForSecondReader', () => {
  const box = (y: number) => ({ x0: 0, y0: y, x1: 100, y1: y + 20 });
  const targets: RereadLine[] = [{ box: box(0), fields: ['merchant'] }, { box: box(40), fields: ['date'] }, { box: box(80), fields: ['total'] }];
  const sure = { cents: 1925, confidence: 0.99 };
  const page: ReceiptFields = { total: sure, date: null, merchant: { value: 'CORNER BAKERY', confidence: 0.99 }, tax: null, description: null };

  it('gives it the lines of a field still doubtful after the first re-reading, and of one that re-reading found where the page had none', () => {
    // The date: missing on the page, found (surely, by one line reading) on re-reading.
    const reread: ReceiptFields = { ...page, total: { cents: 1925, confidence: 0.6 }, date: { value: '2018-05-05', confidence: 0.99 } };
    expect(linesForSecondReader(targets, page, reread).map((t) => t.box.y0)).toEqual([40, 80]);
    // A field sure on the page and after re-reading is not read a third time.
    expect(linesForSecondReader(targets, page, { ...reread, total: sure }).map((t) => t.box.y0)).toEqual([40]);
    expect(linesForSecondReader(targets, { ...page, date: { value: '2018-05-05', confidence: 0.9 } }, { ...reread, total: sure })).toEqual([]);
  });

  it('gives it every re-read line when asked for all', () => {
    expect(linesForSecondReader(targets, page, page, 'all')).toEqual(targets);
  });
});
