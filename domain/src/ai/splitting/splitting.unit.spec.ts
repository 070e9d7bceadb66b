import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../core/errors';
import { centsFromBasisPoints, splitDecider, validateSplit, type MasterNames, type SplitCommand } from './split';
import { categoryOfItem, proposeSplit, receiptItems, spread } from './propose';

const names: MasterNames = { categories: new Set(['meals', 'fuel', 'lodging']), jobNumbers: new Set(['j-1']), costCodes: new Set(['01-3300', '01-2200']) };
const part = (amountCents: number, category = 'FUEL', costCode = '01-2200') => ({ amountCents, category, jobNumber: 'J-1', costCode });

describe('split rules', () => {
  it('percentages become cents that add up exactly (largest remainder)', () => {
    expect(centsFromBasisPoints(-41250, [3333, 3333, 3334])).toEqual([-13749, -13748, -13753]);
    expect(centsFromBasisPoints(100, [3333, 3333, 3334])).toEqual([33, 33, 34]);
    for (const total of [1, 99, 10001, -777, 123456789]) {
      const cents = centsFromBasisPoints(total, [1, 4999, 5000]);
      expect(cents.reduce((a, b) => a + b, 0)).toBe(total);
    }
  });

  it('checks the sum to the cent, the names, the sign and at least two parts', () => {
    expect(validateSplit(-6000, 'amount', [part(-3000), part(-3000, 'meals', '01-3300')], names)).toHaveLength(2);
    const fail = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(ValidationError);
        return (e as ValidationError).message;
      }
      throw new Error('no error');
    };
    expect(fail(() => validateSplit(-6000, 'amount', [part(-3000), part(-2999)], names))).toMatch(/add up to -59.99/);
    expect(fail(() => validateSplit(-6000, 'amount', [part(-6000)], names))).toMatch(/at least 2 parts/);
    expect(fail(() => validateSplit(-6000, 'amount', [part(-3000), part(-3000, 'Snacks')], names))).toMatch(/Unknown category: Snacks/);
    expect(fail(() => validateSplit(-6000, 'amount', [part(-7000), part(1000)], names))).toMatch(/sign/);
    expect(fail(() => validateSplit(-6000, 'percentage', [{ ...part(0), basisPoints: 5000 }, { ...part(0), basisPoints: 4999 }], names))).toMatch(/49.99 %|99.99 %/);
  });

  it('decides: another member\'s transaction is not found; the same split twice appends nothing; removal', () => {
    const base = { transactionId: 't', companyId: 'c', actorId: 'u', role: 'user' as const };
    const save: SplitCommand = { ...base, type: 'SaveSplit', transaction: { ownerId: 'u', amountCents: -6000, deleted: false }, mode: 'amount', source: 'manual', parts: [part(-3000), part(-3000, 'meals', '01-3300')], names };
    const events = splitDecider.decide(save, splitDecider.initialState());
    expect(events.map((e) => e.type)).toEqual(['TransactionSplitSaved']);
    const state = events.reduce(splitDecider.evolve, splitDecider.initialState());
    expect(splitDecider.decide(save, state)).toEqual([]);
    expect(() => splitDecider.decide({ ...save, transaction: { ...save.transaction, ownerId: 'other' } }, state)).toThrow(/not found/);
    const removed = splitDecider.decide({ ...base, type: 'RemoveSplit', transaction: { ownerId: 'u', deleted: false } }, state);
    expect(removed.map((e) => e.type)).toEqual(['TransactionSplitRemoved']);
    expect(splitDecider.decide({ ...base, type: 'RemoveSplit', transaction: { ownerId: 'u', deleted: false } }, removed.reduce(splitDecider.evolve, state))).toEqual([]);
  });
});

describe('split proposal', () => {
  const master = { categories: ['MEALS', 'FUEL', 'LODGING', 'TOOLS'], jobNumbers: ['J-1'], costCodes: [{ name: '01-3300', category: 'MEALS' }, { name: '01-2200', category: 'FUEL' }, { name: '01-3400', category: 'LODGING' }, { name: '01-2300', category: 'TOOLS' }] };
  it('reads item lines above the totals', () => {
    expect(receiptItems('SHOP\nHAMMER 20.00\nDRILL BITS 12.50\nSUBTOTAL 32.50\nTAX 2.60\nTOTAL 35.10')).toEqual([{ text: 'HAMMER 20.00', amountCents: 2000 }, { text: 'DRILL BITS 12.50', amountCents: 1250 }]);
  });
  it('puts an item in a company category by its words, or nowhere when nothing says', () => {
    expect(categoryOfItem('ROOM CHARGE 1 NIGHT 189.00', master.categories, master.costCodes)).toBe('LODGING');
    expect(categoryOfItem('CAESAR SALAD 12.00', master.categories, master.costCodes)).toBe('MEALS');
    expect(categoryOfItem('DIESEL 45.20 GAL', master.categories, master.costCodes)).toBe('FUEL');
    expect(categoryOfItem('ITEM 4471 9.99', master.categories, master.costCodes)).toBeNull();
  });
  it('groups by category and scales to the card amount to the cent, taxes spread in proportion (hotel folio with a dinner)', () => {
    const text = 'HOTEL FOLIO\nROOM 1 NIGHT 189.00\nOCCUPANCY TAX 20.00\nRESTAURANT DINNER 45.00\nBALANCE 254.00';
    const p = proposeSplit({ amountCents: -25400, category: 'LODGING', jobNumber: 'J-1', costCode: '01-3400', ...master, receipt: { id: 'r', text } });
    expect(p.source).toBe('receipt');
    expect(p.parts.map((x) => [x.category, x.amountCents, x.costCode])).toEqual([['LODGING', -20515, '01-3400'], ['MEALS', -4885, '01-3300']]);
    expect(p.parts.reduce((s, x) => s + x.amountCents!, 0)).toBe(-25400);
  });
  it('proposes an even split and says why when the lines give one category or there is no receipt', () => {
    const none = proposeSplit({ amountCents: -1001, category: 'FUEL', jobNumber: 'J-1', costCode: '01-2200', ...master, receipt: null });
    expect(none.source).toBe('even');
    expect(none.parts.map((x) => x.amountCents)).toEqual([-501, -500]);
    expect(none.details).toMatch(/No receipt/);
    const one = proposeSplit({ amountCents: -3000, category: 'FUEL', jobNumber: 'J-1', costCode: '01-2200', ...master, receipt: { id: 'r', text: 'UNLEADED 30.00\nTOTAL 30.00' } });
    expect(one.details).toMatch(/all fall in one category/);
  });
  it('spread keeps the total', () => {
    expect(spread(-100, [1, 1, 1])).toEqual([-34, -33, -33]);
    expect(spread(5750, [4000, 1350])).toEqual([4299, 1451]);
  });
});
