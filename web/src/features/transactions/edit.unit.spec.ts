import { describe, expect, it } from 'vitest';
import { EDIT_AMOUNT, EDIT_REQUIRED, EDIT_TAX, validateEdit, type EditForm } from './edit';

const form: EditForm = { description: ' Fuel ', category: 'FUEL', jobNumber: 'J-1', costCode: '01-2000', amount: '-45.10', salesTax: '' };

describe('transaction edit validation (spec section 5)', () => {
  it('builds the spec payload: trimmed names, a number amount, sales tax null when empty', () => {
    expect(validateEdit(form)).toEqual({ ok: true, body: { description: 'Fuel', category: 'FUEL', amount: -45.1, sales_tax: null, job_number: 'J-1', cost_code: '01-2000' } });
  });
  it.each(['description', 'category', 'jobNumber', 'costCode'] as const)('requires %s', (field) => {
    expect(validateEdit({ ...form, [field]: '  ' })).toEqual({ ok: false, error: EDIT_REQUIRED });
  });
  it.each(['', 'abc', '1.2.3', '12,50', '--1'])('refuses the amount %j', (amount) => {
    expect(validateEdit({ ...form, amount })).toEqual({ ok: false, error: EDIT_AMOUNT });
  });
  it('accepts a sales tax number and refuses text', () => {
    expect(validateEdit({ ...form, salesTax: '3.5' })).toMatchObject({ ok: true, body: { sales_tax: 3.5 } });
    expect(validateEdit({ ...form, salesTax: 'x' })).toEqual({ ok: false, error: EDIT_TAX });
  });
});
