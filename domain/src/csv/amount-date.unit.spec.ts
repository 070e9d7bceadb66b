import { describe, expect, it } from 'vitest';
import { detectDecimalMark, parseAmount } from './amount';
import { dateOrderEvidence, decideDateOrder, parseDate } from './date';

describe('parseAmount', () => {
  it.each([
    ['-12.34', '.', -1234, undefined],
    ['12.34-', '.', -1234, undefined],
    ['(12.34)', '.', -1234, undefined],
    ['($1,234.56)', '.', -123456, 'USD'],
    ['-$1,234.56', '.', -123456, 'USD'],
    ['$-1,234.56', '.', -123456, 'USD'],
    ['+5', '.', 500, undefined],
    ['1,234', '.', 123400, undefined],
    ['1.234', ',', 123400, undefined],
    ['1.234,56', ',', 123456, undefined],
    ['-1.234,56', '.', -123456, undefined],
    ['1 234,56 €', ',', 123456, 'EUR'],
    ["1'234.50 CHF", '.', 123450, 'CHF'],
    ['£3.20', '.', 320, 'GBP'],
    ['RM 24.31', '.', 2431, 'MYR'],
    ['USD 10', '.', 1000, 'USD'],
    ['12,5', '.', 1250, undefined],
    ['12.340', '.', 1234, undefined],
    ['1,23,456.78', '.', 12345678, undefined],
    ['45.00 CR', '.', 4500, undefined],
    ['45.00 DR', '.', -4500, undefined],
    ['-0.00', '.', 0, undefined],
    ['="12.00"', '.', 1200, undefined],
  ])('%s (decimal %s) is %d cents', (raw, mark, cents, currency) => {
    const parsed = parseAmount(raw, mark as '.' | ',');
    expect(parsed).toEqual(currency ? { cents, currency } : { cents });
    expect(Object.is(parsed?.cents, -0)).toBe(false);
  });

  it.each(['', 'abc', '12.3.4', '1,2,3', '--5', '12abc', '1,2345.6', '1.234.5', '(12'])('%j is not an amount', (raw) => {
    expect(parseAmount(raw, '.')).toBeNull();
  });

  // One money rule for import and edit: the money rule an edit applies (two decimals at most) holds for files too.
  it.each(['12.345', '$1,234.567', '0.001', '1.2345 CR'])('%j has more than two decimals: not an amount', (raw) => {
    expect(parseAmount(raw, '.')).toBeNull();
    expect(parseAmount(raw, '.', true)).not.toBeNull();
  });

  it('decides the decimal mark from the whole column', () => {
    expect(detectDecimalMark(['1,234', '12,50', '3,00'], '.')).toBe(',');
    expect(detectDecimalMark(['1,234', '12.50'], ',')).toBe('.');
    expect(detectDecimalMark(['1.234,00'], '.')).toBe(',');
    expect(detectDecimalMark(['1,234', '100'], ',')).toBe(',');
  });
});

describe('parseDate', () => {
  it.each([
    ['2024-01-05', 'mdy', '2024-01-05'],
    ['2024-01-05 10:21:33', 'mdy', '2024-01-05'],
    ['2024-01-05T23:59:59Z', 'dmy', '2024-01-05'],
    ['2024/1/5', 'dmy', '2024-01-05'],
    ['01/05/2024', 'mdy', '2024-01-05'],
    ['01/05/2024', 'dmy', '2024-05-01'],
    ['1/5/24', 'mdy', '2024-01-05'],
    ['05.01.24', 'dmy', '2024-01-05'],
    ['31.12.1999', 'dmy', '1999-12-31'],
    ['05-01-2024', 'dmy', '2024-01-05'],
    ['20240105', 'mdy', '2024-01-05'],
    ['5 Jan 2024', 'mdy', '2024-01-05'],
    ['05-Jan-24', 'mdy', '2024-01-05'],
    ['Jan 5, 2024', 'dmy', '2024-01-05'],
    ['January 15th, 2024', 'dmy', '2024-01-15'],
    ['3 mars 2024', 'mdy', '2024-03-03'],
    ['12. Dez. 2023', 'mdy', '2023-12-12'],
    ['1 juil. 2024', 'mdy', '2024-07-01'],
    ['29/02/2024', 'dmy', '2024-02-29'],
  ])('%s (%s) is %s', (raw, order, iso) => {
    expect(parseDate(raw, order as 'dmy' | 'mdy')).toBe(iso);
  });

  it.each(['', 'yesterday', '2024-13-01', '31/31/2024', '29/02/2023', '2024-02-30', '13/01/2024 as mdy'])('%j is not a date (month-first)', (raw) => {
    expect(parseDate(raw, 'mdy')).toBeNull();
  });

  it('decides the order from the whole file, else the fallback', () => {
    expect(decideDateOrder(dateOrderEvidence(['01/02/2024', '13/02/2024']), 'mdy')).toBe('dmy');
    expect(decideDateOrder(dateOrderEvidence(['01/02/2024', '02/13/2024']), 'dmy')).toBe('mdy');
    expect(decideDateOrder(dateOrderEvidence(['01/02/2024', '03/04/2024']), 'dmy')).toBe('dmy');
    expect(decideDateOrder(dateOrderEvidence(['01/02/2024', '03/04/2024']), 'mdy')).toBe('mdy');
    expect(dateOrderEvidence(['01.02.2024', '2024-01-02']).dotted).toBe(1);
  });
});
