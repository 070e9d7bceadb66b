import { ok, type QueryModule } from '../core/module';
import type { AccessReader } from '@paperlink/domain/http/context';
import type { Operation } from '@paperlink/domain/http/operation';
import { IdParams } from '@paperlink/domain/http/params';
import { accountQueryRouter } from './routes';
import type { AccountViewsImpl } from './views';

/** What the account and company reads are wired with. */
export interface AccountQueryDeps {
  views: AccountViewsImpl;
  access: AccessReader;
}

const companyReads = (prefix: '/companies/current' | '/companies/:id'): Operation[] => {
  const auth = prefix === '/companies/current' ? ('company' as const) : ('company-path' as const);
  const where = prefix === '/companies/current' ? {} : { params: IdParams };
  return [
    { method: 'get', path: prefix, summary: 'A company the caller belongs to', tags: ['companies'], auth, ...where, concurrency: 'etag', success: ok('The company') },
    { method: 'get', path: `${prefix}/users`, summary: "The company's members", tags: ['companies'], auth, roles: ['admin', 'manager'], ...where, success: ok('Members') },
    { method: 'get', path: `${prefix}/users/filter`, summary: "The company's members, for filters", tags: ['companies'], auth, roles: ['admin', 'manager'], ...where, success: ok('Members (id, name, role)') },
  ];
};

/** The signed-in user, their companies and a company's members. */
export const accountQueries: QueryModule<AccountQueryDeps> = {
  feature: 'accounts',
  operations: [
    { method: 'get', path: '/auth/profile', summary: 'The signed-in user', tags: ['auth'], auth: 'user', success: ok('The user') },
    { method: 'get', path: '/companies', summary: "The caller's companies", tags: ['companies'], auth: 'user', success: ok('Companies') },
    ...companyReads('/companies/current'),
    ...companyReads('/companies/:id'),
  ],
  routers: (deps) => [accountQueryRouter(deps.views, deps.access)],
};
