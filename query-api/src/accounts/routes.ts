import { Router, type RequestHandler } from 'express';
import { NotFoundError, UnauthorizedError, type RequestContext } from '@paperlink/domain';
import { companyFromPath, requireCompany, type AccessReader } from '@paperlink/domain/http/context';
import { validIdParams } from '@paperlink/domain/http/params';
import { setEtag } from '@paperlink/domain/http/etag';
import type { AccountViewsImpl } from './views';

const ctxOf = (res: { locals: Record<string, unknown> }) => res.locals.ctx as RequestContext;

/** Reads for the signed-in user: profile, their companies, a company's team. */
export function accountQueryRouter(views: AccountViewsImpl, access: AccessReader): Router {
  const router = validIdParams(Router());

  router.get('/auth/profile', async (_req, res) => {
    const ctx = ctxOf(res);
    const user = await views.user(ctx.userId!, ctx.companyId);
    if (!user) throw new UnauthorizedError('Your account no longer exists', 'user_missing');
    res.json({ user });
  });

  router.get('/companies', async (_req, res) => {
    res.json({ companies: await views.companies(ctxOf(res).userId!) });
  });

  const company: RequestHandler = async (_req, res) => {
    const ctx = ctxOf(res);
    const found = await views.company(ctx.companyId!, ctx.userId!);
    if (!found) throw new NotFoundError('Company not found', 'company_not_found');
    setEtag(res, found.revision);
    res.json({ company: found });
  };
  // Team members: admins and managers (spec section 6).
  const team = requireCompany('admin', 'manager');
  const users: RequestHandler = async (_req, res) => {
    res.json({ users: await views.members(ctxOf(res).companyId!) });
  };
  const filterUsers: RequestHandler = async (_req, res) => {
    const members = await views.members(ctxOf(res).companyId!);
    res.json({ users: members.map((m) => ({ id: m.id, fullName: `${m.firstName} ${m.lastName}`.trim(), role: m.role })) });
  };

  router.get('/companies/current', requireCompany(), company);
  router.get('/companies/current/users', requireCompany(), team, users);
  router.get('/companies/current/users/filter', requireCompany(), team, filterUsers);
  const byPath = companyFromPath(access);
  router.get('/companies/:id', byPath, company);
  router.get('/companies/:id/users', byPath, team, users);
  router.get('/companies/:id/users/filter', byPath, team, filterUsers);
  return router;
}
