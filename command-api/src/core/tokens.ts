import { createHmac } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { UnauthorizedError, type Role } from '@paperlink/domain';

/** Everything needed to mint a session's tokens; stored with a request's reply so a retry gets the same tokens. */
export interface SessionGrant {
  userId: string;
  email: string;
  firstName: string;
  lastName: string;
  role: Role | null;
  companyId: string | null;
  sessionId: string;
  generation: number;
  /** Epoch seconds. */
  issuedAt: number;
}

export interface AccessClaims {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  role: Role | null;
  companyId: string | null;
  sid: string;
  iat: number;
  exp: number;
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

/**
 * Access tokens are short HS256 JWTs. Refresh tokens are JWTs too (their own key), carrying
 * the session id and a generation: the server never stores tokens, each refresh moves the
 * session to the next generation, and an older generation coming back revokes the session.
 * Both are derived from the grant alone, so the same grant always gives the same tokens.
 */
export class TokenService {
  private readonly key: Uint8Array;
  private readonly refreshKey: Uint8Array;

  constructor(
    secret: string,
    readonly accessTtlSeconds = 900,
    readonly refreshTtlSeconds = 30 * 24 * 3600,
  ) {
    if (secret.length < 32) throw new Error('JWT secret must be at least 32 characters');
    this.key = new TextEncoder().encode(secret);
    this.refreshKey = new Uint8Array(createHmac('sha256', secret).update('paperlink refresh tokens').digest());
  }

  async mint(grant: SessionGrant): Promise<TokenPair> {
    const accessToken = await new SignJWT({
      id: grant.userId,
      email: grant.email,
      firstName: grant.firstName,
      lastName: grant.lastName,
      role: grant.role,
      companyId: grant.companyId,
      sid: grant.sessionId,
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(grant.userId)
      .setIssuedAt(grant.issuedAt)
      .setExpirationTime(grant.issuedAt + this.accessTtlSeconds)
      .sign(this.key);
    const refreshToken = await new SignJWT({ sid: grant.sessionId, gen: grant.generation, typ: 'refresh' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(grant.userId)
      .setIssuedAt(grant.issuedAt)
      .setExpirationTime(grant.issuedAt + this.refreshTtlSeconds)
      .sign(this.refreshKey);
    return { accessToken, refreshToken };
  }

  /** The session and generation a refresh token stands for; throws 401 when it is not ours or has expired. */
  async parseRefreshToken(token: unknown): Promise<{ sessionId: string; generation: number }> {
    const invalid = new UnauthorizedError('Invalid refresh token', 'invalid_refresh_token');
    if (typeof token !== 'string' || token.length > 2000) throw invalid;
    try {
      const { payload } = await jwtVerify(token, this.refreshKey, { algorithms: ['HS256'] });
      if (payload.typ !== 'refresh' || typeof payload.sid !== 'string' || typeof payload.gen !== 'number') throw invalid;
      return { sessionId: payload.sid, generation: payload.gen };
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new UnauthorizedError('Your session has expired. Please sign in again.', 'session_expired');
      throw invalid;
    }
  }

  async verifyAccess(token: string): Promise<AccessClaims> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] });
      return payload as unknown as AccessClaims;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new UnauthorizedError('Access token expired', 'token_expired');
      throw new UnauthorizedError('Invalid access token', 'invalid_token');
    }
  }
}
