import { describe, expect, it } from 'vitest';
import { companyDateOrder, decideDateOrder, merchantDateOrders, type PastReceipt } from './date-order';
import { extractReceiptFields } from './extract';

// Invented receipts (not from the data sets).
const receipt = (merchant: string, date: string) => [merchant, '12 Harbour Road', `Date: ${date}  14:05`, 'Flat white      4.50', 'Croissant       3.20', 'TOTAL           7.70', 'Thank you'].join('\n');
const past = (merchant: string, order: 'day-first' | 'month-first', over: Partial<PastReceipt> = {}): PastReceipt => ({
  merchant, dateOrder: { order, evidence: 'receipt' }, readDate: '2026-03-25', date: '2026-03-25', dateCorrected: false, ...over,
});

describe('decideDateOrder (precedence)', () => {
  it('the receipt beats the merchant, the merchant beats the company, then day first', () => {
    expect(decideDateOrder({ receipt: 'month-first', merchant: 'day-first', company: 'day-first' })).toEqual({ order: 'month-first', evidence: 'receipt' });
    expect(decideDateOrder({ merchant: 'day-first', company: 'month-first' })).toEqual({ order: 'day-first', evidence: 'merchant' });
    expect(decideDateOrder({ company: 'month-first' })).toEqual({ order: 'month-first', evidence: 'company' });
    expect(decideDateOrder({})).toEqual({ order: 'day-first', evidence: 'default' });
  });

  it('maps the company setting; auto gives no hint', () => {
    expect(companyDateOrder('auto')).toBeUndefined();
    expect(companyDateOrder(undefined)).toBeUndefined();
    expect(companyDateOrder('month-first')).toBe('month-first');
  });
});

describe('merchantDateOrders', () => {
  it('keeps orders proven on the receipt or by a correction, by normalised name, majority wins', () => {
    const orders = merchantDateOrders([
      past('Bluebell Bakery Ltd', 'month-first'),
      past('BLUEBELL BAKERY', 'month-first'),
      past('bluebell bakery.', 'day-first'),
      // Decided only by the company setting: proves nothing.
      past('Quayside Books', 'month-first', { dateOrder: { order: 'month-first', evidence: 'company' } }),
      // Read 2026-04-03 day first, a person swapped it to 2026-03-04: month first.
      past('Corner Hardware', 'day-first', { dateOrder: { order: 'day-first', evidence: 'default' }, readDate: '2026-04-03', date: '2026-03-04', dateCorrected: true }),
      // A tie gives nothing.
      past('Tidewater Fuel', 'day-first'),
      past('Tidewater Fuel', 'month-first'),
    ]);
    expect(orders).toEqual({ 'BLUEBELL BAKERY': 'month-first', 'CORNER HARDWARE': 'month-first' });
  });
});

describe('extractReceiptFields decides the order from evidence', () => {
  const ambiguous = receipt('BLUEBELL BAKERY', '03/04/2026');

  it('a day above 12 on the receipt decides, whatever the history and the company say', () => {
    const f = extractReceiptFields(receipt('BLUEBELL BAKERY', '04/25/2026'), undefined, { monthFirst: false, merchantDateOrders: { 'BLUEBELL BAKERY': 'day-first' } });
    expect(f.date?.value).toBe('2026-04-25');
    expect(f.dateOrder).toEqual({ order: 'month-first', evidence: 'receipt' });
  });

  it('an ambiguous date follows the merchant history, day first', () => {
    const f = extractReceiptFields(ambiguous, undefined, { merchantDateOrders: { 'BLUEBELL BAKERY': 'day-first' } });
    expect(f.date?.value).toBe('2026-04-03');
    expect(f.dateOrder).toEqual({ order: 'day-first', evidence: 'merchant' });
  });

  it('an ambiguous date follows the merchant history, month first', () => {
    const f = extractReceiptFields(ambiguous, undefined, { merchantDateOrders: { 'BLUEBELL BAKERY': 'month-first' } });
    expect(f.date?.value).toBe('2026-03-04');
    expect(f.dateOrder).toEqual({ order: 'month-first', evidence: 'merchant' });
  });

  it('the company setting decides when the merchant has no history', () => {
    const f = extractReceiptFields(ambiguous, undefined, { monthFirst: true, merchantDateOrders: { 'OTHER SHOP': 'day-first' } });
    expect(f.date?.value).toBe('2026-03-04');
    expect(f.dateOrder).toEqual({ order: 'month-first', evidence: 'company' });
  });

  it('the merchant history beats the company setting when they conflict', () => {
    const f = extractReceiptFields(ambiguous, undefined, { monthFirst: true, merchantDateOrders: { 'BLUEBELL BAKERY': 'day-first' } });
    expect(f.date?.value).toBe('2026-04-03');
    expect(f.dateOrder?.evidence).toBe('merchant');
  });

  it('no evidence at all: day first, said so', () => {
    const f = extractReceiptFields(ambiguous);
    expect(f.date?.value).toBe('2026-04-03');
    expect(f.dateOrder).toEqual({ order: 'day-first', evidence: 'default' });
  });
});
