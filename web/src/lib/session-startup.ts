import { decodeToken, isExpired, type TokenPayload } from './jwt';
import type { Company, CompanyRef, User } from './auth-api';

export interface StartupDeps {
  storage: {
    access(): string | null;
    refresh(): string | null;
    companyId(): string | null;
    setTokens(access: string, refresh?: string): void;
    setCompanyId(id: string | null): void;
    clear(): void;
  };
  /** POST /auth/refresh; returns the new tokens or throws. */
  refresh(refreshToken: string): Promise<{ accessToken: string; refreshToken?: string }>;
  companies(): Promise<Company[]>;
  now?: () => number;
}

export type StartupResult =
  | { kind: 'anonymous' }
  | { kind: 'authenticated'; user: User; companies: CompanyRef[]; currentCompanyId: string | null; fromTokenOnly: boolean };

const httpStatus = (e: unknown) => (e as { response?: { status?: number } })?.response?.status;

function userFromToken(payload: TokenPayload, companies: CompanyRef[], current: CompanyRef | null): User {
  return {
    id: payload.id,
    email: payload.email,
    firstName: payload.firstName,
    lastName: payload.lastName,
    currentRole: current?.role ?? null,
    currentCompany: current,
    companies,
  };
}

/**
 * Spec section 4, start-up: decode the stored access token (undecodable: clear the session),
 * refresh it when expired, fetch the companies (one retry; then a placeholder from the stored
 * company id), choose the stored company or the first; keep the session on network and server
 * errors other than 401/403, building the user from the token only.
 */
export async function startSession(deps: StartupDeps): Promise<StartupResult> {
  const { storage } = deps;
  const now = deps.now ?? Date.now;
  let access = storage.access();
  if (!access) return { kind: 'anonymous' };
  const decoded = decodeToken(access);
  if (!decoded || !decoded.id) {
    storage.clear();
    return { kind: 'anonymous' };
  }
  let payload: TokenPayload = decoded;
  if (isExpired(access, now())) {
    const refreshToken = storage.refresh();
    if (!refreshToken || isExpired(refreshToken, now())) {
      storage.clear();
      return { kind: 'anonymous' };
    }
    try {
      const tokens = await deps.refresh(refreshToken);
      storage.setTokens(tokens.accessToken, tokens.refreshToken);
      access = tokens.accessToken;
      const fresh = decodeToken(access);
      if (!fresh) throw new Error('undecodable token after refresh');
      payload = fresh;
    } catch (error) {
      const status = httpStatus(error);
      if (status === undefined || status === 401 || status === 403 || status < 500) {
        storage.clear();
        return { kind: 'anonymous' };
      }
      // A server error while refreshing: keep the session, from the token only.
      return { kind: 'authenticated', user: userFromToken(payload, [], null), companies: [], currentCompanyId: storage.companyId(), fromTokenOnly: true };
    }
  }
  let companies: CompanyRef[] | undefined;
  let lastError: unknown;
  for (let attempt = 0; attempt < 2 && !companies; attempt++) {
    try {
      companies = (await deps.companies()).map((c) => ({ id: c.id, name: c.name, role: c.role }));
    } catch (error) {
      lastError = error;
      const status = httpStatus(error);
      if (status === 401 || status === 403) {
        storage.clear();
        return { kind: 'anonymous' };
      }
    }
  }
  if (!companies) {
    // Both tries failed for another reason: keep the session with a placeholder company.
    const storedId = storage.companyId();
    const placeholder: CompanyRef[] = storedId ? [{ id: storedId, name: 'Current company', role: payload.role ?? 'user' }] : [];
    void lastError;
    return { kind: 'authenticated', user: userFromToken(payload, placeholder, placeholder[0] ?? null), companies: placeholder, currentCompanyId: storedId, fromTokenOnly: true };
  }
  const stored = storage.companyId();
  const current = companies.find((c) => c.id === stored) ?? companies[0] ?? null;
  storage.setCompanyId(current?.id ?? null);
  return { kind: 'authenticated', user: userFromToken(payload, companies, current), companies, currentCompanyId: current?.id ?? null, fromTokenOnly: false };
}
