import { beforeEach, describe, expect, it, vi } from 'vitest';
import { tokenStorage } from './storage';
import { startSession } from './session-startup';

function jwt(payload: Record<string, unknown>): string {
  const b64 = (o: unknown) => btoa(JSON.stringify(o)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${b64({ alg: 'HS256' })}.${b64(payload)}.sig`;
}
const NOW = 1_800_000_000_000;
const claims = { id: 'u1', email: 'ana@example.com', firstName: 'Ana', lastName: 'Lopez', role: 'admin' };
const live = jwt({ ...claims, exp: NOW / 1000 + 600 });
const expired = jwt({ ...claims, exp: NOW / 1000 - 1 });
const liveRefresh = jwt({ sid: 's', gen: 0, exp: NOW / 1000 + 86400 });
const companies = [
  { id: 'c1', name: 'Acme', role: 'admin' as const },
  { id: 'c2', name: 'Beta', role: 'user' as const },
];
const httpError = (status?: number) => Object.assign(new Error('x'), status ? { response: { status } } : {});

beforeEach(() => localStorage.clear());

const deps = (over: Partial<Parameters<typeof startSession>[0]> = {}) => ({
  storage: tokenStorage,
  refresh: vi.fn(async () => ({ accessToken: live, refreshToken: liveRefresh })),
  companies: vi.fn(async () => companies),
  now: () => NOW,
  ...over,
});

describe('session start-up (spec section 4)', () => {
  it('is anonymous without a stored token', async () => {
    expect(await startSession(deps())).toEqual({ kind: 'anonymous' });
  });

  it('clears the session when the token cannot be decoded', async () => {
    tokenStorage.setTokens('garbage', liveRefresh);
    tokenStorage.setCompanyId('c1');
    expect((await startSession(deps())).kind).toBe('anonymous');
    expect(tokenStorage.access()).toBeNull();
    expect(tokenStorage.companyId()).toBeNull();
  });

  it('refreshes an expired token before fetching the companies', async () => {
    tokenStorage.setTokens(expired, liveRefresh);
    const d = deps();
    const r = await startSession(d);
    expect(d.refresh).toHaveBeenCalledWith(liveRefresh);
    expect(tokenStorage.access()).toBe(live);
    expect(r.kind).toBe('authenticated');
  });

  it('ends the session when the token is expired and the refresh token is expired or refused', async () => {
    tokenStorage.setTokens(expired, jwt({ exp: NOW / 1000 - 5 }));
    expect((await startSession(deps())).kind).toBe('anonymous');
    tokenStorage.setTokens(expired, liveRefresh);
    expect((await startSession(deps({ refresh: vi.fn(async () => Promise.reject(httpError(401))) }))).kind).toBe('anonymous');
    expect(tokenStorage.access()).toBeNull();
  });

  it('chooses the stored company, else the first', async () => {
    tokenStorage.setTokens(live, liveRefresh);
    tokenStorage.setCompanyId('c2');
    const r = await startSession(deps());
    expect(r).toMatchObject({ kind: 'authenticated', currentCompanyId: 'c2', fromTokenOnly: false });
    if (r.kind === 'authenticated') expect(r.user).toMatchObject({ id: 'u1', firstName: 'Ana', currentRole: 'user', currentCompany: { id: 'c2' } });
    tokenStorage.setCompanyId('gone');
    expect(await startSession(deps())).toMatchObject({ currentCompanyId: 'c1' });
    expect(tokenStorage.companyId()).toBe('c1');
  });

  it('has no company or role when the user belongs to none', async () => {
    tokenStorage.setTokens(live, liveRefresh);
    const r = await startSession(deps({ companies: vi.fn(async () => []) }));
    expect(r).toMatchObject({ kind: 'authenticated', currentCompanyId: null });
    if (r.kind === 'authenticated') expect(r.user.currentRole).toBeNull();
  });

  it('retries the companies once, then keeps the session with a placeholder company from the stored id', async () => {
    tokenStorage.setTokens(live, liveRefresh);
    tokenStorage.setCompanyId('c7');
    const fetch = vi.fn(async () => Promise.reject(httpError(503)));
    const r = await startSession(deps({ companies: fetch }));
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(r).toMatchObject({ kind: 'authenticated', fromTokenOnly: true, currentCompanyId: 'c7' });
    if (r.kind === 'authenticated') {
      expect(r.companies).toEqual([{ id: 'c7', name: 'Current company', role: 'admin' }]);
      expect(r.user.email).toBe('ana@example.com');
    }
  });

  it('succeeds on the retry when the first fetch fails', async () => {
    tokenStorage.setTokens(live, liveRefresh);
    const fetch = vi.fn().mockRejectedValueOnce(httpError()).mockResolvedValueOnce(companies);
    expect(await startSession(deps({ companies: fetch }))).toMatchObject({ kind: 'authenticated', fromTokenOnly: false });
  });

  it('ends the session on 401 or 403 while loading user data', async () => {
    for (const status of [401, 403]) {
      tokenStorage.setTokens(live, liveRefresh);
      expect((await startSession(deps({ companies: vi.fn(async () => Promise.reject(httpError(status))) }))).kind).toBe('anonymous');
      expect(tokenStorage.access()).toBeNull();
    }
  });
});
