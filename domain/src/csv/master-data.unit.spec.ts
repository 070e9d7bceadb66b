import { describe, expect, it } from 'vitest';
import { CsvFileError } from './errors';
import { MASTER_CSV_MAX_BYTES, parseMasterDataCsv } from './master-data';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('parseMasterDataCsv', () => {
  it('reads a Name column, flags empty names and duplicates within the file', () => {
    const r = parseMasterDataCsv(utf8('Name,Notes\nTravel,\n  Meals  ,food\n,blank\ntravel,again\nOffice Supplies,\n'), 'categories');
    expect(r.nameColumn).toBe('Name');
    expect(r.rows).toEqual([{ row: 2, name: 'Travel' }, { row: 3, name: 'Meals' }, { row: 6, name: 'Office Supplies' }]);
    expect(r.errors).toEqual([{ row: 4, error: 'Name cannot be empty.', name: '' }]);
    expect(r.duplicates).toEqual([{ row: 5, name: 'travel', reason: 'Duplicate of row 2 in this file' }]);
    expect(r.totalRows).toBe(5);
  });

  it.each([
    ['categories', 'Category\nTravel\n', 'Category'],
    ['job_numbers', 'Job Number,Description\nJ-1001,Main St\n', 'Job Number'],
    ['job_numbers', 'Item\nJ-1001\n', 'Item'],
    ['categories', '\ufeffCATEGORY NAME\r\nTravel\r\n', 'CATEGORY NAME'],
  ] as const)('%s: detects the %j header', (kind, text, column) => {
    const r = parseMasterDataCsv(utf8(text), kind);
    expect(r.nameColumn).toBe(column);
    expect(r.rows[0]?.row).toBe(2);
  });

  it('cost codes carry their category, and an empty category is an error', () => {
    const r = parseMasterDataCsv(utf8('Cost Code;Category\n01-3114;PROJECT MANAGER\n02-2000;Materials\n03-1000;\n'), 'cost_codes');
    expect(r.nameColumn).toBe('Cost Code');
    expect(r.rows).toEqual([
      { row: 2, name: '01-3114', category: 'PROJECT MANAGER' },
      { row: 3, name: '02-2000', category: 'Materials' },
    ]);
    expect(r.errors).toEqual([{ row: 4, error: 'Category cannot be empty for a cost code.', name: '03-1000' }]);
  });

  it('a single column without a known header is a bare list of names', () => {
    const r = parseMasterDataCsv(utf8('Travel\nMeals\n'), 'categories');
    expect(r.nameColumn).toBeNull();
    expect(r.rows.map((x) => [x.row, x.name])).toEqual([[1, 'Travel'], [2, 'Meals']]);
  });

  it.each([
    ['categories', 'Foo,Bar\n1,2\n', 'missing_column'],
    ['cost_codes', 'Cost Code\n01-3114\n', 'missing_column'],
    ['categories', 'Name\n', 'header_only'],
    ['categories', '', 'empty_file'],
  ] as const)('%s %j: %s', (kind, text, code) => {
    let error: unknown;
    try {
      parseMasterDataCsv(utf8(text), kind);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CsvFileError);
    expect((error as CsvFileError).code).toBe(code);
  });

  it('exports the 5 MB limit', () => {
    expect(MASTER_CSV_MAX_BYTES).toBe(5 * 1024 * 1024);
  });
});
