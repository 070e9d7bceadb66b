import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { ForbiddenError, UnauthorizedError, ValidationError, type RequestContext, type Role } from '@paperlink/domain';
import type { TokenService } from '../core/tokens';
import type { Membership } from './access';

/** Reads that the request guard needs; built over the read models by infra. */
export interface AccessReader {
  session(sessionId: string): Promise<{ userId: string; revoked: boolean; startedAt: string } | null>;
  user(userId: string): Promise<{ sessionsRevokedAt: string | null } | null>;
  membership(companyId: string, userId: string): Promise<Membership | null>;
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

/**
 * Checks the bearer token and its session (not logged out, not revoked), then the company in
 * X-Company-ID: the caller must be a member, and their role there comes from the membership.
 */
export function authenticate(tokens: TokenService, access: AccessReader): RequestHandler {
  return async (req, res, next) => {
    const header = req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw new UnauthorizedError('Authentication required', 'missing_token');
    const claims = await tokens.verifyAccess(match[1]!);
    const [session, user] = await Promise.all([access.session(claims.sid), access.user(claims.id)]);
    if (!session || session.revoked || session.userId !== claims.id || !user) {
      throw new UnauthorizedError('Your session has ended. Please sign in again.', 'session_revoked');
    }
    if (user.sessionsRevokedAt && session.startedAt <= user.sessionsRevokedAt) {
      throw new UnauthorizedError('Your session has ended. Please sign in again.', 'session_revoked');
    }
    const ctx = ctxOf(res);
    ctx.userId = claims.id;
    ctx.email = claims.email;
    ctx.sessionId = claims.sid;
    const companyId = req.header('x-company-id');
    if (companyId) {
      const membership = await access.membership(companyId, claims.id);
      if (!membership) throw new ForbiddenError('You are not a member of this company', 'not_a_member');
      ctx.companyId = companyId;
      actAs(ctx, membership.role);
    }
    next();
  };
}

export const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const READ_ONLY_MESSAGE = 'Auditors can read this company but not change anything';

/** An auditor reads as an admin does (the whole company) and is marked read-only. */
function actAs(ctx: RequestContext, role: Role): void {
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
