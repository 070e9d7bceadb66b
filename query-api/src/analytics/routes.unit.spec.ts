import { describe, expect, it } from 'vitest';
import { dashboardFigures, emptyTally } from '@paperlink/domain';
import { csvCell, figureRows } from './routes';

describe('analytics export cells', () => {
  it.each([
    ['=SUM(A1:A9)', "'=SUM(A1:A9)"],
    ['+1+1', "'+1+1"],
    ['-2+3', "'-2+3"],
    ['@cmd', "'@cmd"],
    ['\tTab', "\"'\tTab\""],
    ['\rCR', "\"'\rCR\""],
    ['\nLF', "\"'\nLF\""],
    ['  =HYPERLINK("x")', '"\'  =HYPERLINK(""x"")"'],
    ['Travel, local', '"Travel, local"'],
    ['Meals', 'Meals'],
  ])('%j is written as %s', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it('numbers stay numbers, negative ones too', () => {
    expect(csvCell(-12.5)).toBe('-12.5');
    expect(csvCell(Number.NaN)).toBe('');
  });

  it('rows name every figure of the dashboard', () => {
    const rows = figureRows(dashboardFigures(emptyTally(), 0));
    expect(rows.filter((r) => r[0] === 'financial').map((r) => r[1])).toEqual(['totalExpenses', 'matchedExpenses', 'unmatchedExpenses', 'matchRate']);
    expect(rows.filter((r) => r[0] === 'processing')).toHaveLength(8);
    expect(rows.filter((r) => r[0] === 'missingFields')).toHaveLength(10);
  });
});
