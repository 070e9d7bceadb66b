/**
 * Request scoping, shared by the command and the query API: the request's
 * context (ids, time), the company and role a request acts in, and the guards of routes. Neither
 * API imports the other; both import this.
 */
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { ForbiddenError, ValidationError, type RequestContext, type Role } from '@paperlink/domain';
import type { Membership } from './access';

/** Reads that the request guard needs; built over the read models by infra. */
export interface AccessReader {
  session(sessionId: string): Promise<{ userId: string; revoked: boolean; startedAt: string } | null>;
  user(userId: string): Promise<{ sessionsRevokedAt: string | null } | null>;
  membership(companyId: string, userId: string): Promise<Membership | null>;
  /**
   * Waits (bounded) until the read models hold every event appended so far; false when they did
   * not catch up in time. The guard asks only when a session, user or membership is missing, so
   * that one the read side has not projected yet (the first start after an upgrade rebuilds for
   * minutes) is answered 503 and a retry, not 401 "session ended" or 403 "not a member".
   */
  caughtUp?(): Promise<boolean>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

export function ctxOf(res: Response): RequestContext {
  const ctx = res.locals.ctx as RequestContext | undefined;
  if (!ctx) throw new Error('request context missing');
  return ctx;
}

/** The id the client gave for retries, when it gave a usable one. */
export function clientRequestId(req: Request): string | undefined {
  const id = req.header('x-request-id');
  return id && REQUEST_ID.test(id) ? id : undefined;
}

/** Sets res.locals.ctx for every request: request ids, time, address. */
export const requestContext: RequestHandler = (req, res, next) => {
  const requestId = clientRequestId(req) ?? randomUUID();
  res.setHeader('X-Request-Id', requestId);
  const ctx: RequestContext = { requestId, correlationId: req.header('x-correlation-id') ?? requestId, now: new Date(), ...(req.ip ? { ip: req.ip } : {}) };
  res.locals.ctx = ctx;
  next();
};

export const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const READ_ONLY_MESSAGE = 'Auditors can read this company but not change anything';

/** An auditor reads as an admin does (the whole company) and is marked read-only. */
export function actAs(ctx: RequestContext, role: Role): void {
  if (role === 'auditor') {
    ctx.role = 'admin';
    ctx.readOnly = true;
  } else {
    ctx.role = role;
  }
}

/** For routes that act on the current company: X-Company-ID is required. */
export function requireCompany(...roles: Role[]): RequestHandler {
  return (_req, res, next) => {
    const ctx = ctxOf(res);
    if (!ctx.companyId || !ctx.role) throw new ValidationError('X-Company-ID header is required', undefined, 'company_required');
    if (roles.length > 0 && !roles.includes(ctx.role)) {
      throw new ForbiddenError(roles.length === 1 && roles[0] === 'admin' ? 'Access denied. Admin privileges required.' : 'You do not have permission to do this', 'role_required');
    }
    next();
  };
}


/** For /companies/:id routes: the company comes from the path, with the same membership check. */
export function companyFromPath(access: AccessReader, param = 'id'): RequestHandler {
  return async (req, res, next) => {
    const ctx = ctxOf(res);
    const companyId = String(req.params[param] ?? '');
    const membership = ctx.userId ? await access.membership(companyId, ctx.userId) : null;
    if (!membership) throw new ForbiddenError('You are not a member of this company', 'not_a_member');
    // Every route under /companies/:id that is not a read changes the company: never an auditor's.
    if (membership.role === 'auditor' && !READ_METHODS.has(req.method)) throw new ForbiddenError(READ_ONLY_MESSAGE, 'read_only_role');
    ctx.companyId = companyId;
    actAs(ctx, membership.role);
    next();
  };
}
