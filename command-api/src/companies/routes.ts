import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { companyDecider, ForbiddenError, hasUnsafeCharacters, normaliseEmail, statementNamesOf, unsafeTextMessage, ValidationError, type CompanyCommand, type EventStore, type RequestContext, type Role } from '@paperlink/domain';
import { revisionOfIfMatch } from '@paperlink/domain/http/etag';
import type { CommandBus, HandleOptions, Plan } from '../core/bus';
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
export const StatementNamesBody = z.object({ names: z.array(z.string({ error: 'Each name must be text' }).max(1000), { error: 'names must be a list of names' }).max(100) });
export const RoleBody = z.object({ role: z.enum(['user', 'manager', 'admin', 'auditor'], { error: 'Role must be user, manager, admin or auditor' }) });

const SIMPLE_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const STALE_COMPANY = 'This company was changed by someone else. Reload to see the changes.';

/** Company commands for the current company (X-Company-ID) and for /companies/:id. */
export function companyRouter(deps: CompanyDeps): Router {
  const { bus, events, views } = deps;
  const router = validIdParams(Router());
  const current = requireCompany();
  const byPath = companyFromPath(deps.access);

  const handle = <C extends CompanyCommand>(ctx: RequestContext, command: C, options?: HandleOptions) => bus.handle(companyStream(ctx.companyId!), companyDecider, command, options);

  const update: RequestHandler = async (req, res) => {
    const body = CompanyUpdateBody.parse(req.body ?? {});
    const ifRevision = revisionOfIfMatch(req.header('if-match'));
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const h = await handle(ctx, { type: 'UpdateCompany', actorId: ctx.userId!, name: body.name, domain: body.domain ?? null, now: ctx.now.toISOString() }, { ifRevision, staleMessage: STALE_COMPANY });
      return { appends: [h.append], body: { message: 'Company information updated' } };
    }, undefined, { answer: async (ctx) => ({ company: await views.company(ctx.companyId!, ctx.userId!) }) });
  };

  const invite: RequestHandler = async (req, res) => {
    const body = InviteBody.parse(req.body ?? {});
    const email = normaliseEmail(body.email);
    if (!email) throw new ValidationError('Email address is required', [{ field: 'email', message: 'Email address is required' }]);
    if (hasUnsafeCharacters(email)) throw new ValidationError(unsafeTextMessage('Email'), [{ field: 'email', message: unsafeTextMessage('Email') }]);
    if (!SIMPLE_EMAIL.test(email)) throw new ValidationError('Please enter a valid email address', [{ field: 'email', message: 'Please enter a valid email address' }]);
    const role: Role = body.role ?? 'user';
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      await handle(ctx, { type: 'InviteMember', actorId: ctx.userId!, userId: '\u0000probe', role, now: ctx.now.toISOString() });
      // The answer is the same whether the address has an account or not, and names no one: an
      // invitation was a look-up of any e-mail (the person's id and full name, or 404) for any
      // account, since every account administers the company it registered.
      const answer = { status: 201, body: { invited: { email, role }, message: `If ${email} has a Paperlink account, it is now a member of the company as ${role}.` } };
      const userId = await userIdByEmail(events, email);
      if (!userId) return { ...answer, appends: [] };
      // Her name as the admin adds her is her first statement name (lines are assigned by these, ADR 0005).
      const invited = await views.user(userId);
      const name = invited ? `${invited.firstName} ${invited.lastName}` : undefined;
      const h = await handle(ctx, { type: 'InviteMember', actorId: ctx.userId!, userId, role, now: ctx.now.toISOString(), ...(name ? { name } : {}) });
      return { ...answer, appends: [h.append] };
    });
  };

  const changeRole: RequestHandler = async (req, res) => {
    const body = RoleBody.parse(req.body ?? {});
    const userId = String(req.params.userId);
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const h = await handle(ctx, { type: 'ChangeMemberRole', actorId: ctx.userId!, userId, role: body.role });
      return { appends: [h.append], body: { message: 'Role updated' } };
    }, undefined, { answer: async (ctx) => ({ user: await views.member(ctx.companyId!, userId) }) });
  };

  /** The names on statements that are this member's card lines (an admin's word, never the member's own profile). */
  const statementNames: RequestHandler = async (req, res) => {
    // Refused before the body is read: a non-admin learns nothing from a validation answer.
    if ((res.locals.ctx as { role?: Role } | undefined)?.role !== 'admin') throw new ForbiddenError('Only company admins can set statement names', 'admin_required');
    const body = StatementNamesBody.parse(req.body ?? {});
    const userId = String(req.params.userId);
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const h = await handle(ctx, { type: 'SetStatementNames', actorId: ctx.userId!, userId, names: body.names });
      return { appends: [h.append], body: { userId, statementNames: statementNamesOf(body.names) } };
    });
  };

  const remove: RequestHandler = async (req, res) => {
    const userId = String(req.params.userId);
    await send(req, res, bus, async (ctx): Promise<Plan> => {
      const h = await handle(ctx, { type: 'RemoveMember', actorId: ctx.userId!, userId });
      return { appends: [h.append], body: { success: true, message: 'User removed from the company' } };
    });
  };

  router.put('/companies/current', current, update);
  router.post('/companies/current/invite', current, invite);
  router.put('/companies/current/users/:userId/role', current, changeRole);
  router.put('/companies/current/users/:userId/statement-names', current, statementNames);
  router.delete('/companies/current/users/:userId', current, remove);
  router.put('/companies/:id', byPath, update);
  router.post('/companies/:id/invite', byPath, invite);
  router.put('/companies/:id/users/:userId/role', byPath, changeRole);
  router.put('/companies/:id/users/:userId/statement-names', byPath, statementNames);
  router.delete('/companies/:id/users/:userId', byPath, remove);
  return router;
}
