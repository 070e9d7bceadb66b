import { created, ok, type CommandModule } from '../core/module';
import { eventTypes, type CompanyEvent } from '@paperlink/domain';
import type { Operation } from '../http/openapi';
import { CompanyUserParams, IdParams, UserIdParams } from '../http/params';
import { companyRouter, CompanyUpdateBody, InviteBody, RoleBody, StatementNamesBody, type CompanyDeps } from './routes';

const companyOps = (prefix: '/companies/current' | '/companies/:id'): Operation[] => {
  const auth = prefix === '/companies/current' ? ('company' as const) : ('company-path' as const);
  const where = prefix === '/companies/current' ? {} : { params: IdParams };
  const member = prefix === '/companies/current' ? UserIdParams : CompanyUserParams;
  const of = prefix === '/companies/current' ? 'the current company' : 'the company in the path';
  return [
    { method: 'put', path: prefix, summary: `Rename ${of} or set its domain`, tags: ['companies'], auth, roles: ['admin'], ...where, body: { json: CompanyUpdateBody }, concurrency: 'if-match', success: ok('The company after the change') },
    { method: 'post', path: `${prefix}/invite`, summary: `Add the account of an e-mail to ${of}, if there is one (the answer is the same either way)`, tags: ['companies'], auth, roles: ['admin'], ...where, body: { json: InviteBody }, success: created('{invited: {email, role}, message}, naming no one') },
    { method: 'put', path: `${prefix}/users/:userId/role`, summary: `Change a member's role in ${of}`, tags: ['companies'], auth, roles: ['admin'], params: member, body: { json: RoleBody }, success: ok('The member after the change') },
    { method: 'put', path: `${prefix}/users/:userId/statement-names`, summary: `Set the names on statements whose card lines are this member's, in ${of} (imports assign lines by these, never by the member's own profile name)`, tags: ['companies'], auth, roles: ['admin'], params: member, body: { json: StatementNamesBody }, success: ok('{userId, statementNames}') },
    { method: 'delete', path: `${prefix}/users/:userId`, summary: `Remove a member from ${of} (their access ends at once)`, tags: ['companies'], auth, roles: ['admin'], params: member, success: ok('Removed') },
  ];
};

/** A company's name, domain and members. */
export const companyCommands: CommandModule<CompanyDeps> = {
  feature: 'companies',
  events: eventTypes<CompanyEvent>({ CompanyRegistered: true, CompanyUpdated: true, MemberJoined: true, MemberRoleChanged: true, MemberRemoved: true, MemberStatementNamesSet: true }),
  operations: [
    // companies
    ...companyOps('/companies/current'),
    ...companyOps('/companies/:id'),
  ],
  routers: (deps) => [companyRouter(deps)],
};
