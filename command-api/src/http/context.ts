import type { RequestHandler } from 'express';
import { ForbiddenError, UnauthorizedError } from '@paperlink/domain';
import { actAs, ctxOf, type AccessReader } from '@paperlink/domain/http/context';
import { ReadSideBehindError } from '../core/read-side';
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
    const read = () => Promise.all([access.session(claims.sid), access.user(claims.id)]);
    let [session, user] = await read();
    // A signed token whose session or user is not in the read models: ended only if the read
    // side holds everything appended so far; otherwise it may not be projected yet (ADR 0023).
    if ((!session || !user) && (await readSideBehind(access))) throw new ReadSideBehindError();
    if (!session || !user) [session, user] = await read();
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
      let membership = await access.membership(companyId, claims.id);
      if (!membership && (await readSideBehind(access))) throw new ReadSideBehindError();
      if (!membership) membership = await access.membership(companyId, claims.id);
      if (!membership) throw new ForbiddenError('You are not a member of this company', 'not_a_member');
      ctx.companyId = companyId;
      actAs(ctx, membership.role);
    }
    next();
  };
}

/** True when the read models did not catch up with the log within the reader's wait. */
async function readSideBehind(access: AccessReader): Promise<boolean> {
  return access.caughtUp ? !(await access.caughtUp()) : false;
}
