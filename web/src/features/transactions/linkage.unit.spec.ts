import { describe, expect, it } from 'vitest';
import { costCodesFor, onCategoryChange, onCostCodeChange } from './linkage';

const codes = [
  { name: '01-3114', category_name: 'PROJECT MANAGER' },
  { name: '01-3115', category_name: 'PROJECT MANAGER' },
  { name: '02-100', category_name: 'Travel' },
  { name: '03-100', category_name: 'Fuel' },
  { name: '03-200', category_name: 'Fuel' },
];

describe('category and cost code linkage (spec section 4)', () => {
  it('narrows the cost codes to the chosen category', () => {
    expect(costCodesFor('Fuel', codes).map((c) => c.name)).toEqual(['03-100', '03-200']);
    expect(costCodesFor('', codes)).toHaveLength(5);
  });

  it('sets 01-3114 for PROJECT MANAGER when it exists, else clears the cost code', () => {
    expect(onCategoryChange('PROJECT MANAGER', '03-100', codes)).toEqual({ category: 'PROJECT MANAGER', costCode: '01-3114' });
    expect(onCategoryChange('PROJECT MANAGER', '03-100', codes.filter((c) => c.name !== '01-3114'))).toEqual({ category: 'PROJECT MANAGER', costCode: '' });
  });

  it('auto-selects the only cost code of a category', () => {
    expect(onCategoryChange('Travel', '', codes)).toEqual({ category: 'Travel', costCode: '02-100' });
  });

  it('clears a cost code that does not belong to the chosen category, keeps one that does', () => {
    expect(onCategoryChange('Fuel', '02-100', codes)).toEqual({ category: 'Fuel', costCode: '' });
    expect(onCategoryChange('Fuel', '03-200', codes)).toEqual({ category: 'Fuel', costCode: '03-200' });
  });

  it('sets the category from the chosen cost code, and PROJECT MANAGER for 01-3114', () => {
    expect(onCostCodeChange('03-100', 'Travel', codes)).toEqual({ category: 'Fuel', costCode: '03-100' });
    expect(onCostCodeChange('01-3114', 'Fuel', [])).toEqual({ category: 'PROJECT MANAGER', costCode: '01-3114' });
  });
});
