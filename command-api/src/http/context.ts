import type { RequestHandler } from 'express';
import { ForbiddenError, UnauthorizedError } from '@paperlink/domain';
import { actAs, ctxOf, type AccessReader } from '@paperlink/domain/http/context';
import type { TokenService } from '../core/tokens';

/** Request scoping moved to the module both APIs import (domain/http/context.ts). */
export * from '@paperlink/domain/http/context';

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
