import { describe, expect, it } from 'vitest';
import { checkYear, inPeriod, OUTSIDE_PERIOD_CONFIDENCE } from './date-period';
import { extractReceiptFields } from './extract';
import { CONFIDENT_AT } from './learned/model';
import { countDigitConfusions, slipsFor } from './learned/digit-confusions';
import type { DigitConfusions } from './learned/digit-confusions';
import committed from './learned/digit-confusions.json' with { type: 'json' };

/** Invented slips: 3 read for 8 five times, for 5 twice; 1 read for 7 once (under the count). */
const TABLE: DigitConfusions = { counts: { '3': { '8': 5, '5': 2 }, '1': { '7': 1 }, '6': { '8': 4, '5': 3 } }, words: 100 };
const PERIOD = { from: '2021-02-01', to: '2023-11-30' };

describe('inPeriod', () => {
  it('holds the period give or take a quarter, and everything without a period', () => {
    expect(inPeriod('2022-06-01', { period: PERIOD })).toBe(true);
    expect(inPeriod('2020-11-15', { period: PERIOD })).toBe(true);
    expect(inPeriod('2020-10-15', { period: PERIOD })).toBe(false);
    expect(inPeriod('2024-02-20', { period: PERIOD })).toBe(true);
    expect(inPeriod('2024-03-15', { period: PERIOD })).toBe(false);
    expect(inPeriod('2013-01-01', {})).toBe(true);
    expect(inPeriod('2013-01-01', { period: { from: 'soon', to: '2023-01-01' } })).toBe(true);
  });
});

describe('checkYear', () => {
  it('leaves a date inside the period, and every date without one, as read', () => {
    expect(checkYear({ value: '2022-03-18', confidence: 0.97 }, { period: PERIOD }, TABLE)).toEqual({ value: '2022-03-18', confidence: 0.97 });
    expect(checkYear({ value: '2013-03-18', confidence: 0.97 }, {}, TABLE)).toEqual({ value: '2013-03-18', confidence: 0.97 });
  });

  it('mends a year one learned slip away from the period, and marks it doubtful', () => {
    // 2023 read as 2028? No: 8 is never read for 3 in the table. 2013 -> 2018 is outside too.
    expect(checkYear({ value: '2028-05-02', confidence: 0.99 }, { period: PERIOD }, TABLE)).toEqual({ value: '2028-05-02', confidence: OUTSIDE_PERIOD_CONFIDENCE });
    // 2033 read for 2023? The slips of 3 are 8 and 5: 2038 / 2035 / 2083 / 2053 all outside.
    expect(checkYear({ value: '2033-05-02', confidence: 0.99 }, { period: PERIOD }, TABLE).value).toBe('2033-05-02');
    // 2026 read for 2022 is not a slip of the table; 2026 for 2028/2025 outside: kept, doubtful.
    expect(checkYear({ value: '2016-05-02', confidence: 0.99 }, { period: PERIOD }, TABLE)).toEqual({ value: '2016-05-02', confidence: OUTSIDE_PERIOD_CONFIDENCE });
  });

  it('takes the slip seen most often when several land inside, then the later year', () => {
    const wide = { from: '2014-01-01', to: '2019-12-31' };
    // 2013: the 3 read for 8 (5 times) or for 5 (2 times): 2018 and 2015 both inside.
    expect(checkYear({ value: '2013-07-09', confidence: 0.96 }, { period: wide }, TABLE)).toEqual({ value: '2018-07-09', confidence: OUTSIDE_PERIOD_CONFIDENCE });
    // Equal counts: the later year.
    const even: DigitConfusions = { counts: { '3': { '8': 2, '5': 2 } }, words: 10 };
    expect(checkYear({ value: '2013-07-09', confidence: 0.96 }, { period: wide }, even).value).toBe('2018-07-09');
    // Inside the lines' own days before the slack: the period ends 2019-01-26, so 2019-03-18 (3 read
    // for 9, seen as often as for 8 here) is only in the slack, and 2018-03-18 is taken.
    const tie: DigitConfusions = { counts: { '3': { '8': 4, '9': 4 } }, words: 10 };
    expect(checkYear({ value: '2013-03-18', confidence: 0.96 }, { period: { from: '2016-01-09', to: '2019-01-26' } }, tie).value).toBe('2018-03-18');
    expect(checkYear({ value: '2013-01-10', confidence: 0.96 }, { period: { from: '2016-01-09', to: '2019-01-26' } }, tie).value).toBe('2019-01-10');
    // A slip seen once is not a slip: 2011 -> 2017 is not taken.
    expect(checkYear({ value: '2011-07-09', confidence: 0.96 }, { period: wide }, TABLE).value).toBe('2011-07-09');
  });

  it('never makes a day that does not exist, and never raises a confidence', () => {
    // 2016-02-29 read, the period is 2018: 2018-02-29 does not exist, so the date stays as read.
    const eights: DigitConfusions = { counts: { '6': { '8': 3 } }, words: 10 };
    expect(checkYear({ value: '2016-02-29', confidence: 0.9 }, { period: { from: '2018-01-01', to: '2018-12-31' } }, eights)).toEqual({ value: '2016-02-29', confidence: OUTSIDE_PERIOD_CONFIDENCE });
    expect(checkYear({ value: '2013-05-05', confidence: 0.3 }, { period: { from: '2018-01-01', to: '2018-12-31' } }, TABLE).confidence).toBe(0.3);
  });
});

describe('a date after the day it is read', () => {
  const eights: DigitConfusions = { counts: { '8': { '3': 3 } }, words: 10 };

  it('is outside whatever the period says, flagged as read without a period, mended with one', () => {
    expect(inPeriod('2023-12-03', { notAfter: '2023-12-02' })).toBe(false);
    expect(inPeriod('2023-12-02', { notAfter: '2023-12-02' })).toBe(true);
    expect(inPeriod('2023-12-03', { period: { from: '2023-01-01', to: '2023-11-30' }, notAfter: '2023-12-02' })).toBe(false);
    // No period: which year, nothing says; the date stays, doubtful.
    expect(checkYear({ value: '2028-05-02', confidence: 0.99 }, { notAfter: '2023-12-02' }, eights)).toEqual({ value: '2028-05-02', confidence: OUTSIDE_PERIOD_CONFIDENCE });
    expect(checkYear({ value: '2023-05-02', confidence: 0.99 }, { notAfter: '2023-12-02' }, eights)).toEqual({ value: '2023-05-02', confidence: 0.99 });
    // With a period reaching past today: the future year mended (8 read for 3), never to a future one.
    expect(checkYear({ value: '2028-05-02', confidence: 0.99 }, { period: { from: '2021-02-01', to: '2023-11-30' }, notAfter: '2023-12-02' }, eights).value).toBe('2023-05-02');
    expect(checkYear({ value: '2028-12-20', confidence: 0.99 }, { period: { from: '2021-02-01', to: '2023-11-30' }, notAfter: '2023-12-02' }, eights)).toEqual({ value: '2028-12-20', confidence: OUTSIDE_PERIOD_CONFIDENCE });
  });

  it('reaches up to the day it is read: a receipt newer than the last statement keeps its year', () => {
    // Card lines imported up to June; November's receipt is read in November. Its year, 2026, is
    // one learned slip (6 read for 5) from 2025, inside the lines' days: still not mended.
    const stale = { from: '2024-01-01', to: '2026-06-30' };
    expect(inPeriod('2026-11-20', { period: stale, notAfter: '2026-11-21' })).toBe(true);
    expect(inPeriod('2026-11-20', { period: stale })).toBe(false);
    expect(checkYear({ value: '2026-11-20', confidence: 0.98 }, { period: stale, notAfter: '2026-11-21' }, TABLE)).toEqual({ value: '2026-11-20', confidence: 0.98 });
    // Before the first line it is still out of place, and mended (2013 -> 2018, 3 read for 8).
    expect(checkYear({ value: '2013-06-14', confidence: 0.98 }, { period: { from: '2017-09-01', to: '2019-01-31' }, notAfter: '2026-11-21' }, TABLE)).toEqual({ value: '2018-06-14', confidence: OUTSIDE_PERIOD_CONFIDENCE });
  });

  it('flags a future date in extraction when only the day is known', () => {
    const text = ['WILLOW BAKERY', 'Date: 14/06/2029 10:22', 'TOTAL  5.40'].join('\n');
    expect(extractReceiptFields(text).date?.value).toBe('2029-06-14');
    const read = extractReceiptFields(text, undefined, { notAfter: '2026-11-26' });
    expect(read.date?.value).toBe('2029-06-14');
    expect(read.date!.confidence).toBeLessThan(CONFIDENT_AT);
  });
});

describe('the committed table (scripts/digit-confusions.ts on receipts-train)', () => {
  it('counts slips seen more than once, digits only', () => {
    const table = committed as DigitConfusions;
    expect(table.words).toBeGreaterThan(500);
    for (const [read, row] of Object.entries(table.counts)) {
      expect(read).toMatch(/^[0-9]$/);
      for (const truth of Object.keys(row)) expect(truth).toMatch(/^[0-9]$/);
    }
    expect(slipsFor(table, '3').length).toBeGreaterThan(0);
  });
});

describe('countDigitConfusions', () => {
  const seg = (text: string, x0: number, y0: number) => ({ text, x0, y0, x1: x0 + 200, y1: y0 + 20 });
  const word = (text: string, x0: number, y0: number) => ({ text, confidence: 80, bbox: { x0: x0 + 10, y0: y0 + 2, x1: x0 + 90, y1: y0 + 18 } });

  it('counts one-digit slips of words read over the annotated text under them', () => {
    const table = countDigitConfusions([{
      segments: [seg('DATE 12/05/2018', 0, 0), seg('TOTAL 45.60', 0, 40), seg('TEL 03-7781 2290', 0, 80)],
      words: [
        word('12/05/2013', 0, 0), // 3 read for 8
        word('45.60', 0, 40), // right
        word('03-7731', 0, 80), // 3 read for 8
        word('2100', 0, 80), // two places differ: not a slip
        word('A5.60', 0, 40), // a letter: not a digit slip (and one digit only)
        word('99', 500, 500), // on no segment
      ],
    }]);
    expect(table.counts).toEqual({ '3': { '8': 2 } });
    expect(table.words).toBe(5); // every word with a token of its length under it, read right or not
    expect(slipsFor(table, '3')).toEqual([{ digit: '8', times: 2 }]);
    expect(slipsFor(table, '3', 3)).toEqual([]);
  });
});

describe('extractReceiptFields with the company period', () => {
  // Invented receipt whose year OCR slipped on: printed 2018, read 2013.
  const text = ['KEDAI RUNCIT MAJU JAYA', 'NO 5 JALAN MERANTI 2', 'TARIKH: 14/06/2013 10:22', 'GULA 1KG        2.80', 'TOTAL           2.80', 'TUNAI           5.00'].join('\n');

  it('mends the year from the period and flags the date; without a period the date is as read', () => {
    const plain = extractReceiptFields(text);
    expect(plain.date?.value).toBe('2013-06-14');
    const withPeriod = extractReceiptFields(text, undefined, { period: { from: '2017-09-01', to: '2019-01-31' } });
    expect(withPeriod.date?.value).toBe('2018-06-14');
    expect(withPeriod.date!.confidence).toBeLessThan(CONFIDENT_AT);
    expect(withPeriod.total).toEqual(plain.total);
    expect(extractReceiptFields(text, undefined, { period: { from: '2013-01-01', to: '2013-12-31' } }).date).toEqual(plain.date);
  });
});
