/**
 * The learning AI's pure core on invented card lines: merchant keys, the categoriser (payee
 * memory, feedback, the linear model on merchants it never saw, the category-name fallback,
 * calibration), duplicates (pending/posted, look-alikes, recurring, dismissed, receipts) and
 * recurring series (cadences, tolerance, random look-alikes).
 */
import { describe, expect, it } from 'vitest';
import {
  buildMemory, detectRecurringPatterns, duplicatesOf, feedbackInEntry, findDuplicateGroups, fitTemperature, groupedOutOfFold, merchantKey,
  duplicatePairKey, predictCategory, trainCategorizer, type CategoryRef, type LabelledLine,
} from './index';
import { MIN_TEMPERATURE } from './categorize/categorizer';
import { duplicateGroupDecider, type AiLearningEvent } from './learning/events';
import { ConflictError, NotFoundError } from '../core/errors';

describe('merchant keys', () => {
  it.each([
    ['TST* BLUE DOOR GRILL #0042', 'BLUE DOOR GRILL'],
    ['SQ *MAPLE BAKERY', 'MAPLE BAKERY'],
    ['HOLIDAY INN EXPRESS DALLAS TX PENDING', 'HOLIDAY INN EXPRESS'],
    ['QUICKFILL 8812 SAN ANTONIO TX', 'QUICKFILL'],
    ['AMZN MKTP US*2K4RT0', 'AMZN MKTP US'],
    ['ADOBE *CREATIVE CLD', 'ADOBE CREATIVE CLD'],
    ['NORTHWIND SAFETY CO', 'NORTHWIND SAFETY'],
    ["JOE'S DINER F1180", 'JOES DINER'],
  ])('%s -> %s', (raw, key) => expect(merchantKey(raw)).toBe(key));
});

const CATS: CategoryRef[] = ['FUEL', 'MEALS', 'LODGING', 'OFFICE', 'TOOLS & EQUIPMENT', 'SHIPPING'].map((n, i) => ({ id: `c${i}`, name: n }));
const id = (name: string) => CATS.find((c) => c.name === name)!.id;
function lines(): LabelledLine[] {
  const out: LabelledLine[] = [];
  const add = (description: string, category: string, amounts: number[]) => {
    for (const a of amounts) out.push({ description, amountCents: -a, categoryId: id(category) });
  };
  add('SHELL OIL 4410', 'FUEL', [4820, 6110, 5530, 3990]);
  add('VALERO 0921', 'FUEL', [7100, 6650, 5800]);
  add('MAPLE BAKERY', 'MEALS', [1240, 980, 1530]);
  add('TST* BLUE DOOR GRILL', 'MEALS', [4130, 3820]);
  add('WENDYS 1180', 'MEALS', [1190, 1420]);
  add('HAMPTON INN DALLAS TX', 'LODGING', [21900, 24300]);
  add('STAPLES 1022', 'OFFICE', [3560, 12000, 4410]);
  add('HARBOR FREIGHT TOOLS 3', 'TOOLS & EQUIPMENT', [8999, 15499]);
  add('FEDEX 7781', 'SHIPPING', [2215, 4180]);
  return out;
}

describe('categoriser', () => {
  const history = lines();
  const model = trainCategorizer(history, CATS);
  const memory = buildMemory(history);

  it('answers a merchant it knows from the payee memory, confidently', () => {
    const p = predictCategory({ description: 'SHELL OIL 4410', amountCents: -5012 }, { model, memory, categories: CATS });
    expect(p).toMatchObject({ categoryId: id('FUEL'), source: 'memory' });
    expect(p.confidence).toBeGreaterThan(0.7);
  });

  it('answers merchants it never saw from their words and kind (a hotel brand, a fuel brand, a diner)', () => {
    expect(predictCategory({ description: 'MARRIOTT AUSTIN TX', amountCents: -31000 }, { model, memory, categories: CATS }).categoryId).toBe(id('LODGING'));
    expect(predictCategory({ description: 'CHEVRON 7781', amountCents: -5800 }, { model, memory, categories: CATS }).categoryId).toBe(id('FUEL'));
    expect(predictCategory({ description: 'SQ *ROSIES DINER', amountCents: -2210 }, { model, memory, categories: CATS }).categoryId).toBe(id('MEALS'));
    expect(predictCategory({ description: 'UPS*88123', amountCents: -1800 }, { model, memory, categories: CATS }).categoryId).toBe(id('SHIPPING'));
  });

  it('feedback moves a merchant to the right category and the next prediction follows', () => {
    const line = { description: 'MAPLE BAKERY', amountCents: -1100 };
    const before = predictCategory(line, { model, memory, categories: CATS });
    expect(before.categoryId).toBe(id('MEALS'));
    const key = merchantKey(line.description);
    const corrected = { ...memory, [key]: feedbackInEntry(memory[key]!, before.categoryId, id('OFFICE')) };
    expect(predictCategory(line, { model, memory: corrected, categories: CATS }).categoryId).toBe(id('OFFICE'));
    // A "No" without the right answer only lowers the predicted category.
    const doubted = { ...memory, [key]: feedbackInEntry(memory[key]!, before.categoryId, null) };
    expect(predictCategory(line, { model, memory: doubted, categories: CATS }).confidence).toBeLessThan(before.confidence);
  });

  it('never answers a category the company deleted', () => {
    const live = CATS.filter((c) => c.name !== 'FUEL');
    expect(predictCategory({ description: 'SHELL OIL 4410', amountCents: -5012 }, { model, memory, categories: live }).categoryId).not.toBe(id('FUEL'));
  });

  it('without any history, a category whose name says the kind of merchant is a medium-confidence answer', () => {
    const p = predictCategory({ description: 'EXXONMOBIL 1123', amountCents: -4000 }, { model: null, memory: {}, categories: CATS });
    expect(p).toMatchObject({ categoryId: id('FUEL'), source: 'name' });
    expect(p.confidence).toBeLessThanOrEqual(0.7);
    expect(predictCategory({ description: 'ZZQX 11', amountCents: -4000 }, { model: null, memory: {}, categories: CATS }).categoryId).toBeNull();
  });

  it('is calibrated by merchant-grouped cross-validation: no line is scored by a model that saw its merchant', () => {
    const oof = groupedOutOfFold(history, CATS, 3);
    expect(oof).toHaveLength(history.length);
    const t = fitTemperature(oof);
    expect(t).toBeGreaterThanOrEqual(MIN_TEMPERATURE);
    expect(model.calibration?.temperature).toBe(model.linear?.temperature);
    expect(model.linear?.temperatureUnknown).toBeGreaterThanOrEqual(MIN_TEMPERATURE);
    // A model confidently wrong on a third of the lines is cooled: its fitted temperature is larger.
    const spoiled = oof.map((o, i) => ({ ...o, scores: o.scores && i % 3 === 0 ? o.scores.slice().reverse() : o.scores }));
    expect(fitTemperature(spoiled)).toBeGreaterThan(t);
  });
});

describe('duplicates', () => {
  const rec = (id: string, date: string, description: string, cents: number, ownerId = 'u1') => ({ id, date, description, amountCents: cents, ownerId });

  it('pairs the pending and posted forms of one charge, and the same descriptor posted twice days apart', () => {
    const groups = findDuplicateGroups([
      rec('a', '2025-03-02', 'LUMBER YARD 81', -41200), rec('b', '2025-03-04', 'LUMBER YARD 81 PENDING', -41200),
      rec('c', '2025-03-09', 'CAFE ROMA', -2350), rec('d', '2025-03-10', 'CAFE ROMA', -2350),
      rec('e', '2025-03-11', 'CAFE ROMA', -1800),
    ]);
    expect(groups.map((g) => g.ids)).toEqual([['a', 'b'], ['c', 'd']]);
    expect(groups[0]!.confidence).toBeGreaterThan(0.8);
  });

  it('look-alikes a week or more apart, other card holders and recurring occurrences are not duplicates', () => {
    expect(findDuplicateGroups([rec('a', '2025-03-02', 'CAFE ROMA', -2350), rec('b', '2025-03-10', 'CAFE ROMA', -2350)])).toEqual([]);
    expect(findDuplicateGroups([rec('a', '2025-03-02', 'CAFE ROMA', -2350), rec('b', '2025-03-03', 'CAFE ROMA', -2350, 'u2')])).toEqual([]);
    const toll = [rec('t1', '2025-03-01', 'CITY TOLLWAY', -2000), rec('t2', '2025-03-05', 'CITY TOLLWAY', -2000)];
    expect(findDuplicateGroups(toll, { recurringSeries: new Map([['t1', 's'], ['t2', 's']]) })).toEqual([]);
    expect(findDuplicateGroups(toll)).toHaveLength(1);
  });

  it('a dismissed pair is not raised again', () => {
    const rs = [rec('a', '2025-03-02', 'CAFE ROMA', -2350), rec('b', '2025-03-03', 'CAFE ROMA', -2350)];
    expect(findDuplicateGroups(rs, { dismissed: new Set([duplicatePairKey('b', 'a')]) })).toEqual([]);
    expect(duplicatesOf(rs[0]!, [rs[1]!], { dismissed: new Set([duplicatePairKey('a', 'b')]) })).toEqual([]);
  });

  it('the same receipt file, or the same merchant, date and total read from two photos', () => {
    const photo = { id: 'r1', date: '2025-04-01', amountCents: 1999, description: 'MAPLE BAKERY', ownerId: 'u1' };
    const again = duplicatesOf(photo, [{ ...photo, id: 'r2' }, { ...photo, id: 'r3', description: 'HARDWARE HUT' }]);
    expect(again.map((p) => p.b)).toEqual(['r2']);
    expect(duplicatesOf({ ...photo, fileHash: 'h' }, [{ ...photo, id: 'r4', description: '', fileHash: 'h' }])[0]?.confidence).toBeGreaterThan(0.95);
  });
});

describe('recurring series', () => {
  const series = (start: string, stepDays: number, n: number, description: string, cents: number, jitter: number[] = []) =>
    Array.from({ length: n }, (_, i) => {
      const d = new Date(`${start}T00:00:00Z`);
      d.setUTCDate(d.getUTCDate() + i * stepDays + (jitter[i % Math.max(1, jitter.length)] ?? 0));
      return { id: `${description}-${i}`, date: d.toISOString().slice(0, 10), amountCents: cents, description };
    });

  it('finds weekly, biweekly, monthly, quarterly and yearly series with their next date', () => {
    const monthly = ['2024-01-15', '2024-02-14', '2024-03-16', '2024-04-15', '2024-05-13'].map((date, i) => ({ id: `m${i}`, date, amountCents: -5999 - (i === 2 ? 250 : 0), description: 'CLOUDNOTE SUBSCR' }));
    const quarterly = ['2023-01-10', '2023-04-11', '2023-07-09', '2023-10-10'].map((date, i) => ({ id: `q${i}`, date, amountCents: -120000, description: 'STATE INSURANCE FUND' }));
    const yearly = ['2021-06-01', '2022-06-02', '2023-05-31'].map((date, i) => ({ id: `y${i}`, date, amountCents: -9900, description: 'DOMAINS R US' }));
    const found = detectRecurringPatterns([
      ...series('2024-01-06', 7, 10, 'CITY TOLLWAY', -2000, [0, 1, 0, 2, 1]), ...series('2024-01-03', 14, 5, 'CLEANING CREW', -18000), ...monthly, ...quarterly, ...yearly,
    ]);
    const by = Object.fromEntries(found.map((p) => [p.description, [p.frequency, p.occurrenceCount]]));
    expect(by).toEqual({
      'CITY TOLLWAY': ['weekly', 10], 'CLEANING CREW': ['biweekly', 5], 'CLOUDNOTE SUBSCR': ['monthly', 5], 'STATE INSURANCE FUND': ['quarterly', 4], 'DOMAINS R US': ['yearly', 3],
    });
    expect(found.find((p) => p.description === 'CLOUDNOTE SUBSCR')).toMatchObject({ lastDate: '2024-05-13', nextExpectedDate: '2024-06-13' });
  });

  it('needs three occurrences, amounts within about 7.5 %, and dates that keep the rhythm', () => {
    expect(detectRecurringPatterns(series('2024-01-06', 7, 2, 'CITY TOLLWAY', -2000))).toEqual([]);
    const drifting = series('2024-01-06', 30, 4, 'PHONECO', -10000).map((r, i) => ({ ...r, amountCents: -10000 - i * 1200 }));
    expect(detectRecurringPatterns(drifting)).toEqual([]);
    // A shop visited at random dates with similar amounts is no subscription.
    const random = ['2024-01-02', '2024-01-09', '2024-01-12', '2024-01-16', '2024-01-19', '2024-01-23', '2024-01-27'].map((date, i) => ({ id: `f${i}`, date, amountCents: -5000 - (i % 3) * 100, description: 'GAS N GO' }));
    expect(detectRecurringPatterns(random)).toEqual([]);
  });
});

describe('duplicate group decider', () => {
  const detect = { type: 'DetectDuplicateGroup' as const, companyId: 'co', groupId: 'g1', kind: 'transaction' as const, memberIds: ['a', 'b'], ownerIds: ['u1'], confidence: 0.95, reasons: ['same amount'] };
  const resolve = (status: 'confirmed' | 'dismissed', companyId = 'co') => ({ type: 'ResolveDuplicateGroup' as const, companyId, groupId: 'g1', userId: 'u1', status, pairKeys: [duplicatePairKey('a', 'b')] });
  const given = (...events: AiLearningEvent[]) => events.reduce(duplicateGroupDecider.evolve, duplicateGroupDecider.initialState());

  it('is detected once: detecting it again appends nothing', () => {
    const [detected] = duplicateGroupDecider.decide(detect, given());
    expect(detected).toMatchObject({ type: 'DuplicateGroupDetected', data: { groupId: 'g1', memberIds: ['a', 'b'] } });
    expect(duplicateGroupDecider.decide(detect, given(detected!))).toEqual([]);
  });

  it('a pending group is confirmed or dismissed once; the other way after that is a conflict', () => {
    const [detected] = duplicateGroupDecider.decide(detect, given());
    const [dismissed] = duplicateGroupDecider.decide(resolve('dismissed'), given(detected!));
    expect(dismissed).toEqual({ type: 'DuplicateGroupDismissed', data: { companyId: 'co', groupId: 'g1', userId: 'u1', pairKeys: ['a|b'] } });
    expect(duplicateGroupDecider.decide(resolve('dismissed'), given(detected!, dismissed!))).toEqual([]);
    expect(() => duplicateGroupDecider.decide(resolve('confirmed'), given(detected!, dismissed!))).toThrow(ConflictError);
  });

  it("another company's group, or none, is not found", () => {
    const [detected] = duplicateGroupDecider.decide(detect, given());
    expect(() => duplicateGroupDecider.decide(resolve('confirmed', 'other'), given(detected!))).toThrow(NotFoundError);
    expect(() => duplicateGroupDecider.decide(resolve('confirmed'), given())).toThrow(NotFoundError);
  });
});
