export interface TokenPayload {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  role: 'user' | 'manager' | 'admin' | 'auditor' | null;
  companyId?: string | null;
  exp: number;
}

/** The payload of a JWT, or null when it cannot be decoded. Nothing is verified here: the server does that. */
export function decodeToken<T = TokenPayload>(token: string | null | undefined): T | null {
  if (!token) return null;
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const b64 = parts[1]!.replace(/-/g, '+').replace(/_/g, '/');
    const json = decodeURIComponent(
      atob(b64.padEnd(b64.length + ((4 - (b64.length % 4)) % 4), '='))
        .split('')
        .map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
        .join(''),
    );
    const payload = JSON.parse(json) as unknown;
    return payload && typeof payload === 'object' ? (payload as T) : null;
  } catch {
    return null;
  }
}

/** Spec section 5: expired when exp is not in the future, or when the token cannot be decoded. */
export function isExpired(token: string | null | undefined, nowMs = Date.now()): boolean {
  const payload = decodeToken<{ exp?: unknown }>(token);
  if (!payload || typeof payload.exp !== 'number') return true;
  return payload.exp * 1000 <= nowMs;
}
