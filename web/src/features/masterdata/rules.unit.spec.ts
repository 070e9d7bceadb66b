import { describe, expect, it } from 'vitest';
import { importFileProblem, importOutcome, MASTER_CSV_MAX_BYTES, nameProblem } from './rules';

const result = (imported: number, errors: number) => ({ summary: { imported, skipped: 0, errors, totalRows: imported + errors }, details: { duplicates: [], errors: [] } });

describe('master data rules (spec sections 5 and 8)', () => {
  it('refuses an empty name', () => {
    expect(nameProblem('   ')).toBe('Name cannot be empty.');
    expect(nameProblem('Fuel')).toBeNull();
  });
  it('checks the import file: present, .csv, under 5 MB', () => {
    expect(importFileProblem(null)).toBe('Please select a CSV file to import.');
    expect(importFileProblem({ name: 'codes.xlsx', size: 10 })).toBe('Please upload a CSV file.');
    expect(importFileProblem({ name: 'codes.CSV', size: MASTER_CSV_MAX_BYTES })).toBe('File size must be less than 5MB.');
    expect(importFileProblem({ name: 'codes.csv', size: MASTER_CSV_MAX_BYTES - 1 })).toBeNull();
  });
  it('picks the outcome toast', () => {
    expect(importOutcome(result(3, 1), 'categories')).toEqual({ level: 'warning', text: 'Import completed with 1 errors. Check the details below.' });
    expect(importOutcome(result(0, 0), 'categories')).toEqual({ level: 'info', text: 'No new items were imported. All items may already exist.' });
    expect(importOutcome(result(1, 0), 'cost_codes')).toEqual({ level: 'success', text: 'Successfully imported 1 cost code.' });
  });
});
