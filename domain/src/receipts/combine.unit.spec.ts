import { describe, expect, it } from 'vitest';
import { combineReadings, needsAnotherReading, takeRereadFields } from './combine';
import type { ReceiptFields } from './types';

const reading = (over: Partial<ReceiptFields>): ReceiptFields => ({
  date: { value: '2018-03-12', confidence: 0.9 },
  total: { cents: 820, confidence: 0.9 },
  merchant: { value: 'UNIHAKKA INTERNATIONAL SDN BHD', confidence: 0.7 },
  tax: null,
  description: null,
  ...over,
});

describe('needsAnotherReading', () => {
  it('asks for more when the total or date is missing or unsure, or no merchant was found', () => {
    expect(needsAnotherReading(reading({}))).toBe(false);
    expect(needsAnotherReading(reading({ total: null }))).toBe(true);
    expect(needsAnotherReading(reading({ total: { cents: 820, confidence: 0.4 } }))).toBe(true);
    expect(needsAnotherReading(reading({ date: { value: '2018-03-12', confidence: 0.5 } }))).toBe(true);
    expect(needsAnotherReading(reading({ merchant: null }))).toBe(true);
  });
});

describe('combineReadings', () => {
  it('keeps a single reading as it is', () => {
    const only = reading({});
    expect(combineReadings([only])).toBe(only);
  });

  it('lets two agreeing readings outvote a more confident third', () => {
    const f = combineReadings([
      reading({ total: { cents: 555, confidence: 0.9 } }),
      reading({ total: { cents: 1999, confidence: 0.5 } }),
      reading({ total: { cents: 2000, confidence: 0.6 } }),
    ]);
    expect(f.total?.cents).toBe(2000);
  });

  it('fills a field the first reading missed', () => {
    const f = combineReadings([reading({ date: null }), reading({ date: { value: '2018-04-09', confidence: 0.8 } }), reading({ date: null })]);
    expect(f.date?.value).toBe('2018-04-09');
  });

  it('prefers the first reading on a tie', () => {
    const f = combineReadings([reading({}), reading({ date: { value: '2018-12-03', confidence: 0.9 } })]);
    expect(f.date?.value).toBe('2018-03-12');
  });

  it('groups merchant spellings that are the same name', () => {
    const f = combineReadings([
      reading({ merchant: { value: 'EEN', confidence: 0.6 } }),
      reading({ merchant: { value: 'CHECKERS ny SON BHD', confidence: 0.45 } }),
      reading({ merchant: { value: 'CHECKERS ny SDN BHD', confidence: 0.46 } }),
    ]);
    expect(f.merchant?.value).toBe('CHECKERS ny SDN BHD');
  });

  it('is less sure of a value the readings disagree on', () => {
    const f = combineReadings([reading({}), reading({ total: { cents: 9999, confidence: 0.9 } })]);
    expect(f.total?.confidence).toBeLessThan(0.9);
  });
});

describe('takeRereadFields', () => {
  const box = (y: number): { x0: number; y0: number; x1: number; y1: number } => ({ x0: 10, y0: y, x1: 200, y1: y + 20 });
  const first = reading({ date: { value: '2015-03-23', confidence: 0.9 }, boxes: { total: box(300), date: box(40), merchant: box(5) }, dateOrder: { order: 'day-first', evidence: 'receipt' } });

  it('takes the re-read fields (value, confidence, box) from the mended reading and keeps the others', () => {
    const mended = reading({ date: { value: '2018-03-23', confidence: 0.97 }, total: { cents: 9999, confidence: 0.99 }, boxes: { date: box(41), total: box(301) } });
    const f = takeRereadFields(first, mended, ['date']);
    expect(f.date).toEqual({ value: '2018-03-23', confidence: 0.97 });
    expect(f.boxes?.date).toEqual(box(41));
    expect(f.total).toEqual(first.total);
    expect(f.boxes?.total).toEqual(box(300));
    expect(f.boxes?.merchant).toEqual(box(5));
    expect(f.dateOrder).toBeUndefined();
  });

  it('drops a re-read field the mended reading did not find, with its box', () => {
    const f = takeRereadFields(first, reading({ total: null }), ['total']);
    expect(f.total).toBeNull();
    expect(f.boxes?.total).toBeUndefined();
    expect(f.date).toEqual(first.date);
  });
});
