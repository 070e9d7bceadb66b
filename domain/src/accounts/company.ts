import { type Decider } from '../core/decider';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../core/errors';
import type { Role } from '../core/context';
import { ROLES } from '../core/context';
import { hasUnsafeCharacters, unsafeTextMessage } from '../core/text';

/** A company as the spec's client reads it (company list, switcher, settings), with the caller's role. */
export interface CompanyView {
  id: string;
  name: string;
  role: Role;
  domain: string | null;
  planType: string;
  userCount: number;
  transactionCount: number;
  receiptCount: number;
  matchRate: number;
  createdAt: string;
  updatedAt: string;
  /** The company record's revision (also its ETag): send it back in If-Match to edit this version. */
  revision: number;
}

export type CompanyEvent =
  | { type: 'CompanyRegistered'; data: { companyId: string; name: string; planType: string; createdBy: string; createdAt: string } }
  | { type: 'CompanyUpdated'; data: { companyId: string; name: string; domain: string | null; updatedAt: string } }
  | {
    type: 'MemberJoined';
    data: {
      companyId: string; userId: string; role: Role; invitedBy?: string; joinedAt: string;
      /** The member's name when she was added, as the admin added her: her first statement names (events of older versions have none). */
      statementNames?: string[];
    };
  }
  | { type: 'MemberRoleChanged'; data: { companyId: string; userId: string; role: Role; previousRole: Role; changedBy: string } }
  | { type: 'MemberRemoved'; data: { companyId: string; userId: string; removedBy: string } }
  /** The names a member's card lines carry, as an admin set them: imports assign lines by these only. */
  | { type: 'MemberStatementNamesSet'; data: { companyId: string; userId: string; names: string[]; setBy: string } };

export type CompanyState =
  | { status: 'none' }
  | {
    status: 'active'; companyId: string; name: string; domain: string | null; members: ReadonlyMap<string, Role>;
    /** Statement names by member, as admins set them (absent: none set; the member's own profile name never counts). */
    statementNames?: ReadonlyMap<string, readonly string[]>;
  };

export type CompanyCommand =
  | { type: 'RegisterCompany'; companyId: string; name: string; adminUserId: string; now: string; adminName?: string }
  | { type: 'UpdateCompany'; actorId: string; name: string; domain: string | null; now: string }
  | { type: 'InviteMember'; actorId: string; userId: string; role: Role; now: string; name?: string }
  | { type: 'ChangeMemberRole'; actorId: string; userId: string; role: Role }
  | { type: 'RemoveMember'; actorId: string; userId: string }
  | { type: 'SetStatementNames'; actorId: string; userId: string; names: readonly string[] };

/** Statement names a member may have, and their length: the import's limit for a name cell. */
export const MAX_STATEMENT_NAMES = 10;
export const MAX_STATEMENT_NAME_LENGTH = 100;

/** The names as kept: spaces collapsed, blanks and case-insensitive repeats dropped; refused past the limits. */
export function statementNamesOf(names: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of names) {
    const name = raw.replace(/\s+/g, ' ').trim();
    if (!name || seen.has(name.toLowerCase())) continue;
    const problem = name.length > MAX_STATEMENT_NAME_LENGTH ? `A statement name has at most ${MAX_STATEMENT_NAME_LENGTH} characters` : hasUnsafeCharacters(name) ? unsafeTextMessage('Statement name') : null;
    if (problem) throw new ValidationError(problem, [{ field: 'names', message: problem }]);
    seen.add(name.toLowerCase());
    out.push(name);
  }
  if (out.length > MAX_STATEMENT_NAMES) throw new ValidationError(`A member has at most ${MAX_STATEMENT_NAMES} statement names`, [{ field: 'names', message: `At most ${MAX_STATEMENT_NAMES} names` }]);
  return out;
}

const DOMAIN_PATTERN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

function requireAdmin(state: Extract<CompanyState, { status: 'active' }>, actorId: string, what: string): void {
  const role = state.members.get(actorId);
  if (!role) throw new ForbiddenError('You are not a member of this company', 'not_a_member');
  if (role !== 'admin') throw new ForbiddenError(`Only company admins can ${what}`, 'admin_required');
}

function checkRole(role: string): asserts role is Role {
  if (!(ROLES as readonly string[]).includes(role)) {
    throw new ValidationError('Role must be user, manager, admin or auditor', [{ field: 'role', message: 'Role must be user, manager, admin or auditor' }]);
  }
}

export function companyNameProblems(name: string): void {
  if (!name.trim()) throw new ValidationError('Company name is required', [{ field: 'name', message: 'Company name is required' }]);
  if (name.trim().length > 120) throw new ValidationError('Company name must be at most 120 characters', [{ field: 'name', message: 'Company name must be at most 120 characters' }]);
  if (hasUnsafeCharacters(name)) throw new ValidationError(unsafeTextMessage('Company name'), [{ field: 'name', message: unsafeTextMessage('Company name') }]);
}

/** A member's name when she is added, as her first statement names (none when it is blank or not one a name may be). */
function joinNames(name: string | undefined): { statementNames?: string[] } {
  try {
    const names = statementNamesOf(name === undefined ? [] : [name]);
    return names.length > 0 ? { statementNames: names } : {};
  } catch {
    return {};
  }
}

export const companyDecider: Decider<CompanyState, CompanyCommand, CompanyEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    if (event.type === 'CompanyRegistered') {
      return { status: 'active', companyId: event.data.companyId, name: event.data.name, domain: null, members: new Map() };
    }
    if (state.status !== 'active') return state;
    switch (event.type) {
      case 'CompanyUpdated':
        return { ...state, name: event.data.name, domain: event.data.domain };
      case 'MemberJoined':
        return {
          ...state,
          members: new Map(state.members).set(event.data.userId, event.data.role),
          ...(event.data.statementNames ? { statementNames: new Map(state.statementNames).set(event.data.userId, event.data.statementNames) } : {}),
        };
      case 'MemberRoleChanged':
        return { ...state, members: new Map(state.members).set(event.data.userId, event.data.role) };
      case 'MemberRemoved': {
        const members = new Map(state.members);
        members.delete(event.data.userId);
        const statementNames = new Map(state.statementNames);
        statementNames.delete(event.data.userId);
        return { ...state, members, statementNames };
      }
      case 'MemberStatementNamesSet':
        return { ...state, statementNames: new Map(state.statementNames).set(event.data.userId, event.data.names) };
    }
  },
  decide(command, state) {
    if (command.type === 'RegisterCompany') {
      if (state.status !== 'none') throw new ConflictError('Company already exists');
      companyNameProblems(command.name);
      return [
        { type: 'CompanyRegistered', data: { companyId: command.companyId, name: command.name.trim(), planType: 'BASIC', createdBy: command.adminUserId, createdAt: command.now } },
        { type: 'MemberJoined', data: { companyId: command.companyId, userId: command.adminUserId, role: 'admin', joinedAt: command.now, ...joinNames(command.adminName) } },
      ];
    }
    if (state.status !== 'active') throw new NotFoundError('Company not found', 'company_not_found');
    const companyId = state.companyId;
    switch (command.type) {
      case 'UpdateCompany': {
        requireAdmin(state, command.actorId, 'edit company information');
        companyNameProblems(command.name);
        const domain = command.domain?.trim() ? command.domain.trim().toLowerCase() : null;
        if (domain && !DOMAIN_PATTERN.test(domain)) {
          throw new ValidationError('Domain must look like example.com', [{ field: 'domain', message: 'Domain must look like example.com' }]);
        }
        const name = command.name.trim();
        if (name === state.name && domain === state.domain) return [];
        return [{ type: 'CompanyUpdated', data: { companyId, name, domain, updatedAt: command.now } }];
      }
      case 'InviteMember': {
        requireAdmin(state, command.actorId, 'invite users');
        checkRole(command.role);
        if (state.members.has(command.userId)) throw new ConflictError('This user is already a member of the company', 'already_member');
        return [{ type: 'MemberJoined', data: { companyId, userId: command.userId, role: command.role, invitedBy: command.actorId, joinedAt: command.now, ...joinNames(command.name) } }];
      }
      case 'ChangeMemberRole': {
        if (command.actorId === command.userId) throw new ForbiddenError('You cannot change your own role', 'own_role');
        requireAdmin(state, command.actorId, 'change roles');
        checkRole(command.role);
        const previousRole = state.members.get(command.userId);
        if (!previousRole) throw new NotFoundError('User is not a member of this company', 'member_not_found');
        if (previousRole === command.role) return [];
        return [{ type: 'MemberRoleChanged', data: { companyId, userId: command.userId, role: command.role, previousRole, changedBy: command.actorId } }];
      }
      case 'RemoveMember': {
        if (command.actorId === command.userId) throw new ForbiddenError('You cannot remove yourself from the company', 'remove_self');
        requireAdmin(state, command.actorId, 'remove users');
        if (!state.members.has(command.userId)) throw new NotFoundError('User is not a member of this company', 'member_not_found');
        return [{ type: 'MemberRemoved', data: { companyId, userId: command.userId, removedBy: command.actorId } }];
      }
      case 'SetStatementNames': {
        requireAdmin(state, command.actorId, 'set statement names');
        if (!state.members.has(command.userId)) throw new NotFoundError('User is not a member of this company', 'member_not_found');
        const names = statementNamesOf(command.names);
        const current = state.statementNames?.get(command.userId) ?? [];
        if (names.length === current.length && names.every((n, i) => n === current[i])) return [];
        return [{ type: 'MemberStatementNamesSet', data: { companyId, userId: command.userId, names, setBy: command.actorId } }];
      }
    }
  },
};
