import { describe, expect, it } from 'vitest';
import { masterDataDecider, type MasterDataEvent, type MasterDataState } from './masterdata';
import { companyDecider, type CompanyEvent } from '../accounts/company';
import { NotFoundError, ValidationError } from '../core/errors';

/** The states fold into maps keyed by ids from requests; prototype names are no items. */
const EVIL = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf'];
const CATEGORY = '0190a5b2-1c2d-7e3f-8a4b-5c6d7e8f9a0b';

const fold = (events: MasterDataEvent[]): MasterDataState => events.reduce(masterDataDecider.evolve, masterDataDecider.initialState());

describe('master data decider with prototype names as ids', () => {
  const state = fold([{ type: 'MasterItemAdded', data: { companyId: 'c', kind: 'categories', id: CATEGORY, name: 'Travel' } }]);

  it.each(EVIL)('%s is not an existing item: update and delete are 404', (id) => {
    expect(() => masterDataDecider.decide({ type: 'UpdateItem', companyId: 'c', role: 'admin', kind: 'categories', id, name: 'Pwned' }, state)).toThrow(NotFoundError);
    expect(() => masterDataDecider.decide({ type: 'DeleteItem', companyId: 'c', role: 'admin', kind: 'categories', id, inUse: 0 }, state)).toThrow(NotFoundError);
    expect(() => masterDataDecider.decide({ type: 'UpdateItem', companyId: 'c', role: 'admin', kind: 'categories', id, name: 'Pwned' }, masterDataDecider.initialState())).toThrow(NotFoundError);
  });

  it.each(EVIL)('%s is not an existing category for a cost code', (id) => {
    expect(() => masterDataDecider.decide({ type: 'AddItem', companyId: 'c', role: 'admin', kind: 'cost_codes', id: CATEGORY, name: '01-1', categoryId: id }, state)).toThrow(ValidationError);
  });

  it('an event stored with such an id (from before the fix) folds into an ordinary entry and changes nothing else', () => {
    const s = fold([
      { type: 'MasterItemAdded', data: { companyId: 'c', kind: 'categories', id: CATEGORY, name: 'Travel' } },
      { type: 'MasterItemUpdated', data: { companyId: 'c', kind: 'categories', id: '__proto__', name: 'Pwned' } },
    ]);
    expect([...s.items.categories.keys()]).toEqual([CATEGORY, '__proto__']);
    expect(Object.getPrototypeOf(s.items.categories)).toBe(Map.prototype);
    expect(({} as Record<string, unknown>).name).toBeUndefined();
    const gone = masterDataDecider.evolve(s, { type: 'MasterItemDeleted', data: { companyId: 'c', kind: 'categories', id: '__proto__' } });
    expect([...gone.items.categories.keys()]).toEqual([CATEGORY]);
  });
});

describe('company decider with prototype names as user ids', () => {
  const admin = '0190a5b2-1c2d-7e3f-8a4b-000000000001';
  const events: CompanyEvent[] = [
    { type: 'CompanyRegistered', data: { companyId: 'c', name: 'C', planType: 'BASIC', createdBy: admin, createdAt: '2024-01-01' } },
    { type: 'MemberJoined', data: { companyId: 'c', userId: admin, role: 'admin', joinedAt: '2024-01-01' } },
  ];
  const state = events.reduce(companyDecider.evolve, companyDecider.initialState());

  it.each(EVIL)('%s is not a member: role change and removal are 404, invite is allowed', (userId) => {
    expect(() => companyDecider.decide({ type: 'ChangeMemberRole', actorId: admin, userId, role: 'admin' }, state)).toThrow(NotFoundError);
    expect(() => companyDecider.decide({ type: 'RemoveMember', actorId: admin, userId }, state)).toThrow(NotFoundError);
    expect(companyDecider.decide({ type: 'InviteMember', actorId: admin, userId, role: 'user', now: '2024-01-02' }, state)).toHaveLength(1);
  });

  it.each(EVIL)('%s as the acting user is not a member of the company', (actorId) => {
    expect(() => companyDecider.decide({ type: 'UpdateCompany', actorId, name: 'Pwned', domain: null, now: '2024-01-02' }, state)).toThrow(/not a member/);
  });
});
