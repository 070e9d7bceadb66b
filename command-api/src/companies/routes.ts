import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { companyDecider, hasUnsafeCharacters, NotFoundError, normaliseEmail, unsafeTextMessage, ValidationError, type EventStore, type RequestContext, type Role } from '@paperlink/domain';
import type { CommandBus, Plan } from '../core/bus';
import { send } from '../core/http';
import type { AccountViews } from '../core/views';
import { companyStream, userIdByEmail } from '../accounts/lookup';
import { companyFromPath, requireCompany, type AccessReader } from '../http/context';
import { validIdParams } from '../http/params';

export interface CompanyDeps {
  bus: CommandBus;
  events: EventStore;
  views: AccountViews;
  access: AccessReader;
}

export const CompanyUpdateBody = z.object({
  name: z.preprocess((v) => v ?? '', z.string({ error: 'Company name is required' }).max(1000)),
  domain: z.string().max(253, 'Domain is too long').nullable().optional(),
});
export const InviteBody = z.object({
  email: z.preprocess((v) => v ?? '', z.string({ error: 'Email address is required' }).max(254, 'Please enter a valid email address')),
  role: z.enum(['user', 'manager', 'admin', 'auditor'], { error: 'Role must be user, manager, admin or auditor' }).optional(),
});
export const RoleBody = z.object({ role: z.enum(['user', 'manager', 'admin', 'auditor'], { error: 'Role must be user, manager, admin or auditor' }) });

const SIMPLE_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Company commands for the current company (X-Company-ID) and for /companies/:id. */
export function companyRouter(deps: CompanyDeps): Router {
  const { bus, events, views } = deps;
  const router = validIdParams(Router());
  const current = requireCompany();
  const byPath = companyFromPath(deps.access);

  const load = (ctx: RequestContext) => bus.load(companyStream(ctx.companyId!), companyDecider);

  const update: RequestHandler = async (req, res) => {
    const body = CompanyUpdateBody.parse(req.body ?? {});
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const company = await load(ctx);
      const evts = companyDecider.decide({ type: 'UpdateCompany', actorId: ctx.userId!, name: body.name, domain: body.domain ?? null, now: ctx.now.toISOString() }, company.state);
      const view = await views.company(ctx.companyId!, ctx.userId!);
      const change = evts[0]?.type === 'CompanyUpdated' ? evts[0].data : undefined;
      const updated = change ? { name: change.name, domain: change.domain, updatedAt: change.updatedAt } : {};
      return {
        appends: [{ streamId: companyStream(ctx.companyId!), expectedRevision: company.expected, events: evts }],
        body: { company: view && { ...view, ...updated }, message: 'Company information updated' },
      };
    });
  };

  const invite: RequestHandler = async (req, res) => {
    const body = InviteBody.parse(req.body ?? {});
    const email = normaliseEmail(body.email);
    if (!email) throw new ValidationError('Email address is required', [{ field: 'email', message: 'Email address is required' }]);
    if (hasUnsafeCharacters(email)) throw new ValidationError(unsafeTextMessage('Email'), [{ field: 'email', message: unsafeTextMessage('Email') }]);
    if (!SIMPLE_EMAIL.test(email)) throw new ValidationError('Please enter a valid email address', [{ field: 'email', message: 'Please enter a valid email address' }]);
    const role: Role = body.role ?? 'user';
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const company = await load(ctx);
      // The role check comes first, so that only admins learn whether an address has an account.
      companyDecider.decide({ type: 'InviteMember', actorId: ctx.userId!, userId: '\u0000probe', role, now: ctx.now.toISOString() }, company.state);
      const userId = await userIdByEmail(events, email);
      if (!userId) throw new NotFoundError('No account exists with this email address. Ask them to register first, then invite them.', 'user_not_found');
      const evts = companyDecider.decide({ type: 'InviteMember', actorId: ctx.userId!, userId, role, now: ctx.now.toISOString() }, company.state);
      const invited = await views.user(userId);
      return {
        status: 201,
        appends: [{ streamId: companyStream(ctx.companyId!), expectedRevision: company.expected, events: evts }],
        body: {
          user: { id: userId, firstName: invited?.firstName ?? '', lastName: invited?.lastName ?? '', email, role },
          message: `${email} was added to the company as ${role}`,
        },
      };
    });
  };

  const changeRole: RequestHandler = async (req, res) => {
    const body = RoleBody.parse(req.body ?? {});
    const userId = String(req.params.userId);
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const company = await load(ctx);
      const evts = companyDecider.decide({ type: 'ChangeMemberRole', actorId: ctx.userId!, userId, role: body.role }, company.state);
      const member = await views.member(ctx.companyId!, userId);
      return {
        appends: [{ streamId: companyStream(ctx.companyId!), expectedRevision: company.expected, events: evts }],
        body: { user: member && { ...member, role: body.role }, message: 'Role updated' },
      };
    });
  };

  const remove: RequestHandler = async (req, res) => {
    const userId = String(req.params.userId);
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const company = await load(ctx);
      const evts = companyDecider.decide({ type: 'RemoveMember', actorId: ctx.userId!, userId }, company.state);
      return {
        appends: [{ streamId: companyStream(ctx.companyId!), expectedRevision: company.expected, events: evts }],
        body: { success: true, message: 'User removed from the company' },
      };
    });
  };

  router.put('/companies/current', current, update);
  router.post('/companies/current/invite', current, invite);
  router.put('/companies/current/users/:userId/role', current, changeRole);
  router.delete('/companies/current/users/:userId', current, remove);
  router.put('/companies/:id', byPath, update);
  router.post('/companies/:id/invite', byPath, invite);
  router.put('/companies/:id/users/:userId/role', byPath, changeRole);
  router.delete('/companies/:id/users/:userId', byPath, remove);
  return router;
}
