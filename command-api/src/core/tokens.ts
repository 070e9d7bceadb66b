import { createHmac, timingSafeEqual } from 'node:crypto';
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
 * Access tokens are short HS256 JWTs. Refresh tokens are `<sessionId>.<generation>.<mac>`:
 * the server recomputes the MAC instead of storing tokens, each refresh moves the session
 * to the next generation, and an older generation coming back revokes the session.
 */
export class TokenService {
  private readonly key: Uint8Array;

  constructor(
    private readonly secret: string,
    readonly accessTtlSeconds = 900,
    readonly refreshTtlSeconds = 30 * 24 * 3600,
  ) {
    if (secret.length < 32) throw new Error('JWT secret must be at least 32 characters');
    this.key = new TextEncoder().encode(secret);
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
    return { accessToken, refreshToken: this.refreshToken(grant.sessionId, grant.generation) };
  }

  refreshToken(sessionId: string, generation: number): string {
    return `${sessionId}.${generation}.${this.mac(`${sessionId}.${generation}`)}`;
  }

  private mac(text: string): string {
    return createHmac('sha256', this.secret).update(`refresh:${text}`).digest('base64url');
  }

  /** The session and generation a refresh token stands for; throws 401 when it is not ours. */
  parseRefreshToken(token: unknown): { sessionId: string; generation: number } {
    const invalid = new UnauthorizedError('Invalid refresh token', 'invalid_refresh_token');
    if (typeof token !== 'string' || token.length > 200) throw invalid;
    const parts = token.split('.');
    if (parts.length !== 3) throw invalid;
    const [sessionId, gen, mac] = parts as [string, string, string];
    if (!/^\d{1,9}$/.test(gen)) throw invalid;
    const expected = Buffer.from(this.mac(`${sessionId}.${gen}`));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid;
    return { sessionId, generation: Number(gen) };
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
