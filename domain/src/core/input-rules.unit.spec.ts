import { describe, expect, it } from 'vitest';
import { amountToCents, centsWithinRule, MAX_AMOUNT_CENTS } from './money';
import { hasUnsafeCharacters } from './text';

/** The money rule shared by import and edit; characters no name may hold. */
describe('amountToCents (the money rule)', () => {
  it.each([
    [0, 0], [-24.31, -2431], [24.3, 2430], ['12.30', 1230], ['12.340', 1234], [' -7 ', -700], ['+5', 500], ['12.', 1200],
    [999_999_999.99, MAX_AMOUNT_CENTS], [-999_999_999.99, -MAX_AMOUNT_CENTS], ['-0', 0],
  ])('%j is %d cents', (value, cents) => {
    expect(amountToCents(value)).toBe(cents);
  });

  it.each([
    12.345, '12.345', 0.001, 0.1 + 0.2, 1_000_000_000, -1_000_000_000, 1e13, '1e3', '0x10', 'Infinity', Infinity, NaN,
    '', ' ', 'abc', '1,234.50', null, undefined, true, {}, [], '--5',
  ])('%j is refused', (value) => {
    expect(amountToCents(value)).toBeNull();
  });

  it('bounds whole cents the same way', () => {
    expect(centsWithinRule(MAX_AMOUNT_CENTS)).toBe(true);
    expect(centsWithinRule(MAX_AMOUNT_CENTS + 1)).toBe(false);
    expect(centsWithinRule(-MAX_AMOUNT_CENTS - 1)).toBe(false);
    expect(centsWithinRule(1.5)).toBe(false);
  });
});

describe('hasUnsafeCharacters', () => {
  it.each(['\u0000', '\t', '\n', '\u001b', '\u007f', '\u0085', '\u009b', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'])('%j is unsafe', (ch) => {
    expect(hasUnsafeCharacters(`Bob${ch}Smith`)).toBe(true);
  });

  it.each(['Zoë', "O'Brien", 'محمد عبدالله', 'דוד לוי', '佐藤 美咲', 'Jean-Luc', 'a.b+tag@example.com', 'Ünïcödé Ltd.', 'Ω'])('%j is fine', (text) => {
    expect(hasUnsafeCharacters(text)).toBe(false);
  });
});
