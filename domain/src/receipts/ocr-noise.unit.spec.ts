import { describe, expect, it } from 'vitest';
import { findAmounts } from './amounts';
import { extractReceiptFields } from './extract';
import { buildCandidates, ownDateOrder } from './learned/candidates';
import { layoutFromOcr, layoutFromText } from './learned/layout';
import { cleanName } from './merchant';
import type { OcrWord } from './types';

/**
 * Receipt text as tesseract.js gets it wrong, on receipts invented for these tests (extraction
 * must survive OCR noise): a time glued to the year, a register number before the
 * date, impossible digits in a date, a total OCR lost, a misread legal suffix, a name wrapped
 * over three lines, and a two-page scan whose page boxes both start at the top.
 */

const lines = (text: string): ReturnType<typeof layoutFromText>['lines'] => layoutFromText(text).lines;

describe('dates in OCR text', () => {
  it('splits a time glued to the year (23/03/20189:34)', () => {
    const text = ['KEDAI RUNCIT MAJU SDN BHD', 'NO 3 JALAN MAWAR 2, 43000 KAJANG', 'SUBTOTAL 10.00', 'TOTAL 10.00', 'CASH 20.00', 'CHANGE 10.00', 'ee 23/03/20189:34:40 AM'].join('\n');
    expect(extractReceiptFields(text).date?.value).toBe('2018-03-23');
  });

  it('does not read a register number and the date after it as one date (REG #19- 10/03/2018)', () => {
    const text = ['BURGER HUT', 'ORD #07 -REG #19- 10/03/2018 17:24:07', '1 Cheese Burger 8.50', 'Total 8.50', 'Cash 10.00', 'Change 1.50'].join('\n');
    expect(extractReceiptFields(text).date?.value).toBe('2018-03-10');
    const dates = buildCandidates(layoutFromText(text), null).date.map((c) => c.value);
    expect(dates).toEqual(['2018-03-10']);
  });

  it('repairs a date with an impossible month and year (17/83/2817), marked, and takes no order evidence from it', () => {
    const candidates = buildCandidates(layoutFromText('BILL: 26544\nCASH 17/83/2817 21:35\nTOTAL 9.90'), null).date;
    expect(candidates.map((c) => c.value)).toEqual(['2017-03-17']);
    expect(candidates[0]!.features.repaired).toBe(1);
    expect(candidates[0]!.features.time).toBe(1);
    // 17 would prove day first, but the date was repaired: no evidence.
    expect(ownDateOrder(lines('17/83/2817 21:35'))).toBeUndefined();
    expect(ownDateOrder(lines('17/03/2017 21:35'))).toBe('day-first');
  });
});

describe('totals the receipt arithmetic gives when OCR lost the printed one', () => {
  it('offers cash minus change and subtotal plus tax and rounding as derived candidates, printed values not twice', () => {
    const text = ['NASI LEMAK CORNER', '3 NASI LEMAK 21.00', 'SUB TOTAL 21.00', 'GST 6% 1.26', 'ROUNDING ADJ -0.01', 'NET TOTAL', 'Cash 50.00', 'Change 27.75'].join('\n');
    const totals = buildCandidates(layoutFromText(text), null).total;
    const derived = totals.filter((c) => c.features.derived === 1);
    expect(derived.map((c) => c.value)).toEqual([2225]);
    expect(derived[0]!.features).toMatchObject({ derivedCash: 1, derivedSum: 1, derivedTwice: 1, totalLost: 1 });
    expect(derived[0]!.line).toBe(-1);
    // Printed amounts stay single candidates, not derived ones.
    expect(totals.filter((c) => c.value === 2100).every((c) => c.features.derived === undefined)).toBe(true);
    expect(extractReceiptFields(text).total?.cents).toBe(2225);
  });

  it('offers the total rounded to 5 cents when a rounding line lost its result', () => {
    const text = ['HOME DECOR CENTRE', 'Grand Total : 87.08', 'Rounding Adjustment:', 'Net Total : ( mM'].join('\n');
    const derived = buildCandidates(layoutFromText(text), null).total.filter((c) => c.features.derived === 1);
    expect(derived.map((c) => c.value)).toEqual([8710]);
    expect(derived[0]!.features.derivedRounded).toBe(1);
  });
});

describe('amounts as OCR misreads them', () => {
  it('reads RM with its M lost (R4.00) as money, not a code without decimals (R07)', () => {
    expect(findAmounts('| Total o. op R4.00').map((a) => [a.cents, a.currency])).toEqual([[400, true]]);
    expect(findAmounts('R07 BlackSugar Ice RM7.50').map((a) => a.cents)).toEqual([750]);
  });
});

describe('merchant names as OCR misreads them', () => {
  it('spells a misread SDN BHD right and drops debris after it, leaving the rest as read', () => {
    expect(cleanName('SUPER SEVEN CASH & CARRY SEN 3HD 9 5 ex')).toBe('SUPER SEVEN CASH & CARRY SDN BHD');
    expect(cleanName('Kedai Ikan Segar Son Bhd')).toBe('Kedai Ikan Segar Sdn Bhd');
    expect(cleanName('PERNIAGAAN ABC SDN. BHD.')).toBe('PERNIAGAAN ABC SDN. BHD.');
    expect(cleanName('D.I.Y. (M) SDN BHD TG')).toBe('D.I.Y. (M) SDN BHD');
    expect(cleanName('MYNEWS RETAIL SB FKA BISON STORES SB')).toBe('MYNEWS RETAIL SB FKA BISON STORES SB');
  });

  it('offers a name wrapped over three lines, ending in its legal suffix, as one candidate', () => {
    const text = ['SENG HUAT HARDWARE', 'ENTERPRISE (KAJANG', 'UTARA) SDN BHD', '(123456-K)', 'NO. 17-G, JALAN INDAH 3', 'TEL: 03-1234 5678'].join('\n');
    const names = buildCandidates(layoutFromText(text), null).merchant;
    const joined = names.find((c) => c.features.joined3 === 1);
    expect(joined?.value).toBe('SENG HUAT HARDWARE ENTERPRISE (KAJANG UTARA) SDN BHD');
  });
});

describe("OCR's own doubt", () => {
  it("carries the words' confidence to the line and to the candidates read from it; annotated or plain text has none", () => {
    const word = (text: string, x: number, y: number, confidence: number): OcrWord => ({ text, confidence, bbox: { x0: x, y0: y, x1: x + 80, y1: y + 30 } });
    const words = [word('CORNER', 10, 10, 96), word('CAFE', 100, 10, 90), word('TOTAL', 10, 60, 95), word('12.5O', 200, 60, 41)];
    const layout = layoutFromOcr('', words);
    const round = (x: number | undefined): number | undefined => (x === undefined ? x : Math.round(x * 100) / 100);
    expect(layout.lines.map((l) => [l.text, round(l.ocrMin), round(l.ocrMean)])).toEqual([['CORNER CAFE', 0.9, 0.93], ['TOTAL 12.5O', 0.41, 0.68]]);
    const total = buildCandidates(layout, null).total.find((c) => c.value === 1250);
    expect(total?.features.ocrDoubt).toBeCloseTo(0.59, 6);
    expect(buildCandidates(layoutFromText('CORNER CAFE\nTOTAL 12.50'), null).total[0]!.features.ocrDoubt).toBe(0);
  });
});

describe('a two-page scan', () => {
  /** Words of one line with boxes, as one page of the OCR pool gives them. */
  const row = (text: string, y: number): OcrWord[] => text.split(' ').map((w, i) => ({ text: w, confidence: 90, bbox: { x0: 20 + 90 * i, y0: y, x1: 100 + 90 * i, y1: y + 30 } }));
  const page1 = [
    row('LAKESIDE BISTRO', 40), row('12 Harbour Road, Portsmouth', 90), row('Date: 14/09/2022 19:40', 140),
    row('Fish Pie 14.50', 300), row('Garden Salad 8.00', 800), row('Sticky Toffee 6.50', 1300),
  ].flat();
  // Page two's boxes start at the top again.
  const page2 = [row('Subtotal 29.00', 40), row('Service charge 12.5% 3.63', 90), row('Total 32.63', 140), row('Card 32.63', 190)].flat();
  const words = [...page1, ...page2];
  // The pool's text is the pages' text joined; with every word boxed the layout comes from the words.
  const text = words.map((w) => w.text).join(' ');

  it('keeps page two below page one, so their lines do not merge', () => {
    const layout = layoutFromOcr(text, words);
    expect(layout.lines.map((l) => l.text)).toEqual([
      'LAKESIDE BISTRO', '12 Harbour Road, Portsmouth', 'Date: 14/09/2022 19:40', 'Fish Pie 14.50', 'Garden Salad 8.00', 'Sticky Toffee 6.50',
      'Subtotal 29.00', 'Service charge 12.5% 3.63', 'Total 32.63', 'Card 32.63',
    ]);
  });

  it('reads the total from page two and the merchant and date from page one', () => {
    const flat = layoutFromOcr(text, words).lines.map((l) => l.text).join('\n');
    const f = extractReceiptFields(flat, words);
    expect(f.total?.cents).toBe(3263);
    expect(f.date?.value).toBe('2022-09-14');
    expect(f.merchant?.value).toBe('LAKESIDE BISTRO');
  });
});
