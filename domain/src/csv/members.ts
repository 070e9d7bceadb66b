/**
 * Who each imported line belongs to: the member whose statement names (set by an admin) the line
 * carries (first and last name columns, or one name column), else the company admin the import
 * falls back to. A member's own profile name never decides: lines named `J,Smith` went to
 * another member once she renamed herself "J Smith", and she could read them.
 */
import { matchName, nameParts } from './names';
import type { NameParts } from './names';
import type { Role } from '../core/context';
export type AssignmentStatus = 'name_matched' | 'no_match_found' | 'no_names_provided' | 'error';

export interface Member {
  userId: string;
  /** The profile's name: shown in the answer, never matched. */
  firstName: string;
  lastName: string;
  role: Role;
  /** The names an admin set for the member's card lines (company.ts SetStatementNames): the only ones matched. */
  statementNames?: readonly string[];
}

export interface NamedRow {
  row: number;
  description: string;
  firstName?: string;
  lastName?: string;
  fullName?: string;
}

export interface AssignmentDetail {
  row: number;
  description: string;
  /** The name as written on the line ('' when none). */
  providedName: string;
  assignedTo: string;
  assignedToName: string;
  status: AssignmentStatus;
  /** Why, for 'error' (two members fit the name). */
  reason?: string;
}

export interface AssignmentResult {
  details: AssignmentDetail[];
  /**
   * A partition of the rows: matched (name_matched), unmatched (a name that fits no one,
   * or more than one: no_match_found and error), adminAssigned (no_names_provided). Rows
   * not matched are all assigned to the fallback admin.
   */
  totals: { matched: number; unmatched: number; adminAssigned: number };
}

/**
 * Whom an importer's rows may go to. An admin's rows go to the member each line names, else
 * to the company admin. Everyone else's rows are always their own: the names on the lines are
 * read against the importer alone, so no other member is looked up, assigned or named.
 */
export function importAssignees(members: readonly Member[], importer: { userId: string; role: Role }): { members: Member[]; fallbackId: string } {
  if (importer.role === 'admin') {
    const admin = members.find((m) => m.role === 'admin') ?? members.find((m) => m.userId === importer.userId);
    return { members: [...members], fallbackId: admin?.userId ?? importer.userId };
  }
  const self = members.find((m) => m.userId === importer.userId) ?? { userId: importer.userId, firstName: '', lastName: '', role: importer.role };
  return { members: [self], fallbackId: self.userId };
}

export function assignRowsToMembers(rows: readonly NamedRow[], members: readonly Member[], fallbackAdminId: string): AssignmentResult {
  const admin = members.find((m) => m.userId === fallbackAdminId);
  const adminName = admin ? displayName(admin) : '';
  const people = members.flatMap((m) => (m.statementNames ?? []).flatMap((name) => {
    const parts = nameParts(undefined, undefined, name)[0];
    return parts ? [{ member: m, parts }] : [];
  }));
  const cache = new Map<string, Pick<AssignmentDetail, 'assignedTo' | 'assignedToName' | 'status' | 'reason'>>();
  const totals = { matched: 0, unmatched: 0, adminAssigned: 0 };
  const details: AssignmentDetail[] = [];
  for (const r of rows) {
    const providedName = providedNameOf(r);
    const key = `${r.firstName ?? ''}\u0000${r.lastName ?? ''}\u0000${r.fullName ?? ''}`;
    let outcome = cache.get(key);
    if (!outcome) {
      outcome = decide(r, people, fallbackAdminId, adminName);
      cache.set(key, outcome);
    }
    if (outcome.status === 'name_matched') totals.matched++;
    else if (outcome.status === 'no_names_provided') totals.adminAssigned++;
    else totals.unmatched++;
    details.push({ row: r.row, description: r.description, providedName, ...outcome });
  }
  return { details, totals };
}

function decide(
  r: NamedRow,
  people: { member: Member; parts: NameParts }[],
  adminId: string,
  adminName: string,
): Pick<AssignmentDetail, 'assignedTo' | 'assignedToName' | 'status' | 'reason'> {
  const toAdmin = { assignedTo: adminId, assignedToName: adminName };
  const readings = nameParts(r.firstName, r.lastName, r.fullName);
  if (readings.length === 0) return { ...toAdmin, status: 'no_names_provided' };
  // The first reading that fits anyone wins; within it, exact given names beat initials.
  for (const reading of readings) {
    const exact = people.filter((p) => matchName(reading, p.parts) === 'exact');
    const fits = exact.length > 0 ? exact : people.filter((p) => matchName(reading, p.parts) === 'initial');
    const ids = new Set(fits.map((p) => p.member.userId));
    if (ids.size === 1 && fits[0]) {
      return { assignedTo: fits[0].member.userId, assignedToName: displayName(fits[0].member), status: 'name_matched' };
    }
    if (ids.size > 1) {
      const names = fits.map((p) => displayName(p.member)).join(', ');
      return { ...toAdmin, status: 'error', reason: `more than one member fits this name: ${names}` };
    }
  }
  return { ...toAdmin, status: 'no_match_found' };
}

function providedNameOf(r: NamedRow): string {
  const parts = [r.firstName, r.lastName].map((s) => s?.trim() ?? '').filter((s) => s !== '');
  return parts.length > 0 ? parts.join(' ') : r.fullName?.trim() ?? '';
}

function displayName(m: Member): string {
  return `${m.firstName} ${m.lastName}`.trim();
}
