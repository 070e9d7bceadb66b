import { describe, expect, it } from 'vitest';
import { assignRowsToMembers, importAssignees } from './members';
import type { Member } from './members';

/** The members with the statement names an admin set: their names as written on their cards ("Last, First"). */
const members: Member[] = ([
  { userId: 'u-admin', firstName: 'Olivia', lastName: 'Admin', role: 'admin' },
  { userId: 'u-dana', firstName: 'Dana', lastName: 'Smith', role: 'user' },
  { userId: 'u-jose', firstName: 'José', lastName: 'Núñez', role: 'user' },
  { userId: 'u-maria', firstName: 'María', lastName: 'García López', role: 'manager' },
  { userId: 'u-chen', firstName: 'Chen', lastName: 'Wei', role: 'user' },
  { userId: 'u-john1', firstName: 'John', lastName: 'Brown', role: 'user' },
  { userId: 'u-john2', firstName: 'Jonathan', lastName: 'Brown', role: 'user' },
] as Member[]).map((m) => ({ ...m, statementNames: [`${m.lastName}, ${m.firstName}`] }));

const row = (n: number, names: { firstName?: string; lastName?: string; fullName?: string }) => ({ row: n, description: `LINE ${n}`, ...names });

describe('assignRowsToMembers', () => {
  it('matches names in the ways people write them and sends the rest to the admin', () => {
    const rows = [
      row(2, { firstName: 'Dana', lastName: 'Smith' }),
      row(3, { firstName: 'DANA', lastName: 'SMITH' }),
      row(4, { firstName: 'jose', lastName: 'nunez' }),
      row(5, { fullName: 'Smith, Dana' }),
      row(6, { fullName: 'Dana K. Smith' }),
      row(7, { fullName: 'WEI CHEN' }),
      row(8, { fullName: 'Maria Garcia' }),
      row(9, { fullName: 'D. Smith' }),
      row(10, { firstName: 'Dana' }),
      row(11, { fullName: 'Pat Unknown' }),
      row(12, {}),
      row(13, { fullName: 'J Brown' }),
      row(14, { fullName: 'John Brown' }),
      row(15, { fullName: 'K. Wei' }),
    ];
    const { details, totals } = assignRowsToMembers(rows, members, 'u-admin');
    expect(details.map((d) => [d.row, d.providedName, d.assignedTo, d.status])).toEqual([
      [2, 'Dana Smith', 'u-dana', 'name_matched'],
      [3, 'DANA SMITH', 'u-dana', 'name_matched'],
      [4, 'jose nunez', 'u-jose', 'name_matched'],
      [5, 'Smith, Dana', 'u-dana', 'name_matched'],
      [6, 'Dana K. Smith', 'u-dana', 'name_matched'],
      [7, 'WEI CHEN', 'u-chen', 'name_matched'],
      [8, 'Maria Garcia', 'u-maria', 'name_matched'],
      [9, 'D. Smith', 'u-dana', 'name_matched'],
      [10, 'Dana', 'u-admin', 'no_match_found'],
      [11, 'Pat Unknown', 'u-admin', 'no_match_found'],
      [12, '', 'u-admin', 'no_names_provided'],
      [13, 'J Brown', 'u-admin', 'error'],
      [14, 'John Brown', 'u-john1', 'name_matched'],
      [15, 'K. Wei', 'u-admin', 'no_match_found'],
    ]);
    expect(details[0]?.assignedToName).toBe('Dana Smith');
    expect(details[10]?.assignedToName).toBe('Olivia Admin');
    expect(details[11]?.reason).toMatch(/John Brown, Jonathan Brown/);
    expect(totals).toEqual({ matched: 9, unmatched: 4, adminAssigned: 1 });
  });

  it('keeps the row order and description of every row', () => {
    const rows = Array.from({ length: 30 }, (_, i) => row(i + 2, i % 2 ? { fullName: 'Chen Wei' } : {}));
    const { details, totals } = assignRowsToMembers(rows, members, 'u-admin');
    expect(details.map((d) => d.row)).toEqual(rows.map((r) => r.row));
    expect(details.map((d) => d.description)).toEqual(rows.map((r) => r.description));
    expect(totals).toEqual({ matched: 15, unmatched: 0, adminAssigned: 15 });
  });
});

describe('importAssignees', () => {
  const rows = [row(2, { firstName: 'Dana', lastName: 'Smith' }), row(3, { fullName: 'Olivia Admin' }), row(4, { fullName: 'Brown' }), row(5, {}), row(6, { fullName: 'Chen Wei' })];

  it('an admin’s rows go to the members the lines name', () => {
    const { members: scope, fallbackId } = importAssignees(members, { userId: 'u-admin', role: 'admin' });
    expect(fallbackId).toBe('u-admin');
    expect(assignRowsToMembers(rows, scope, fallbackId).details.map((d) => d.assignedTo)).toEqual(['u-dana', 'u-admin', 'u-admin', 'u-admin', 'u-chen']);
  });

  it('a plain user’s or a manager’s rows are all their own, and no other member is named', () => {
    for (const importer of [{ userId: 'u-chen', role: 'user' as const }, { userId: 'u-maria', role: 'manager' as const }]) {
      const { members: scope, fallbackId } = importAssignees(members, importer);
      expect(scope.map((m) => m.userId)).toEqual([importer.userId]);
      const { details } = assignRowsToMembers(rows, scope, fallbackId);
      expect(details.every((d) => d.assignedTo === importer.userId)).toBe(true);
      const named = new Set(details.map((d) => `${d.assignedToName} ${d.reason ?? ''}`));
      for (const other of members.filter((m) => m.userId !== importer.userId)) {
        for (const text of named) expect(text).not.toContain(`${other.firstName} ${other.lastName}`);
      }
    }
    const chen = importAssignees(members, { userId: 'u-chen', role: 'user' });
    expect(assignRowsToMembers(rows, chen.members, chen.fallbackId).details[4]).toMatchObject({ status: 'name_matched', assignedTo: 'u-chen' });
  });
});

describe('lines go by the names an admin set, never by a profile name', () => {
  it('a member who renamed herself to fit a colleague\'s lines gets none of them', () => {
    const team: Member[] = [
      { userId: 'u-admin', firstName: 'Olivia', lastName: 'Admin', role: 'admin', statementNames: ['Olivia Admin'] },
      { userId: 'u-john', firstName: 'John', lastName: 'Smith', role: 'user', statementNames: ['J,Smith'] },
      // Her profile now says "J Smith"; an admin set her statement names to her own.
      { userId: 'u-jane', firstName: 'J', lastName: 'Smith', role: 'user', statementNames: ['Doe, Jane'] },
    ];
    const { details } = assignRowsToMembers([row(2, { fullName: 'J,Smith' }), row(3, { firstName: 'Jane', lastName: 'Doe' })], team, 'u-admin');
    expect(details.map((d) => [d.row, d.assignedTo, d.status])).toEqual([[2, 'u-john', 'name_matched'], [3, 'u-jane', 'name_matched']]);
  });

  it('a member with no statement names set is matched by no line, whatever her profile says', () => {
    const team: Member[] = [
      { userId: 'u-admin', firstName: 'Olivia', lastName: 'Admin', role: 'admin' },
      { userId: 'u-dana', firstName: 'Dana', lastName: 'Smith', role: 'user' },
    ];
    const { details } = assignRowsToMembers([row(2, { firstName: 'Dana', lastName: 'Smith' })], team, 'u-admin');
    expect(details[0]).toMatchObject({ assignedTo: 'u-admin', status: 'no_match_found' });
  });
});
