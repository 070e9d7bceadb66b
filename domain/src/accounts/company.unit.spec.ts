import { describe, expect, it } from 'vitest';
import { companyDecider, type CompanyCommand, type CompanyEvent, type CompanyState } from './company';

const NOW = '2026-03-01T00:00:00.000Z';
const fold = (events: CompanyEvent[]): CompanyState => events.reduce(companyDecider.evolve, companyDecider.initialState());
const run = (events: CompanyEvent[], command: CompanyCommand): CompanyEvent[] => companyDecider.decide(command, fold(events));

describe('statement names: the names card lines are assigned by', () => {
  const registered = companyDecider.decide({ type: 'RegisterCompany', companyId: 'c1', name: 'Acme', adminUserId: 'ada', now: NOW, adminName: 'Ada  Admin' }, companyDecider.initialState());
  const joined = run(registered, { type: 'InviteMember', actorId: 'ada', userId: 'bo', role: 'user', now: NOW, name: 'Bo Plain' });
  const history = [...registered, ...joined];

  it('a member starts with her name as the admin added her', () => {
    expect(registered[1]).toMatchObject({ type: 'MemberJoined', data: { userId: 'ada', statementNames: ['Ada Admin'] } });
    expect(joined[0]).toMatchObject({ type: 'MemberJoined', data: { userId: 'bo', statementNames: ['Bo Plain'] } });
    const state = fold(history);
    expect(state.status === 'active' && state.statementNames?.get('bo')).toEqual(['Bo Plain']);
  });

  it('an admin sets them, cleaned; setting the same again records nothing', () => {
    const set = run(history, { type: 'SetStatementNames', actorId: 'ada', userId: 'bo', names: [' J   Smith ', 'j smith', '', 'Smith, J'] });
    expect(set).toEqual([{ type: 'MemberStatementNamesSet', data: { companyId: 'c1', userId: 'bo', names: ['J Smith', 'Smith, J'], setBy: 'ada' } }]);
    expect(run([...history, ...set], { type: 'SetStatementNames', actorId: 'ada', userId: 'bo', names: ['J Smith', 'Smith, J'] })).toEqual([]);
  });

  it('only an admin, for a member, within the limits', () => {
    expect(() => run(history, { type: 'SetStatementNames', actorId: 'bo', userId: 'bo', names: ['Anyone'] })).toThrow(expect.objectContaining({ status: 403 }));
    expect(() => run(history, { type: 'SetStatementNames', actorId: 'ada', userId: 'zed', names: ['Zed'] })).toThrow(expect.objectContaining({ status: 404 }));
    expect(() => run(history, { type: 'SetStatementNames', actorId: 'ada', userId: 'bo', names: ['x'.repeat(101)] })).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => run(history, { type: 'SetStatementNames', actorId: 'ada', userId: 'bo', names: Array.from({ length: 11 }, (_, i) => `Name ${i}`) })).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('a removed member\'s names go with her', () => {
    const removed = run(history, { type: 'RemoveMember', actorId: 'ada', userId: 'bo' });
    const state = fold([...history, ...removed]);
    expect(state.status === 'active' && state.statementNames?.has('bo')).toBe(false);
  });
});
