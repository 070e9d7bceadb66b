import { create } from 'zustand';
import axios from 'axios';
import { API_BASE } from './api-client';
import { tokenStorage } from './storage';
import { authApi, type CompanyRef, type RegisterInput, type User } from './auth-api';
import { startSession } from './session-startup';

export interface SessionState {
  initialized: boolean;
  loading: boolean;
  user: User | null;
  companies: CompanyRef[];
  currentCompanyId: string | null;
  initialize(): Promise<void>;
  login(email: string, password: string): Promise<User>;
  register(input: RegisterInput): Promise<User>;
  logout(): Promise<void>;
  switchCompany(id: string): void;
  setUser(user: User): void;
  currentCompany(): CompanyRef | null;
  role(): CompanyRef['role'] | null;
}

function adopt(user: User, companies: CompanyRef[]) {
  const stored = tokenStorage.companyId();
  const current = companies.find((c) => c.id === stored) ?? companies.find((c) => c.id === user.currentCompany?.id) ?? companies[0] ?? null;
  tokenStorage.setCompanyId(current?.id ?? null);
  return { user: { ...user, currentCompany: current, currentRole: current?.role ?? null, companies }, companies, currentCompanyId: current?.id ?? null };
}

export const useSession = create<SessionState>((set, get) => ({
  initialized: false,
  loading: true,
  user: null,
  companies: [],
  currentCompanyId: null,

  async initialize() {
    set({ loading: true });
    const result = await startSession({
      storage: tokenStorage,
      refresh: async (refreshToken) => (await axios.post(`${API_BASE}/auth/refresh`, { refreshToken }, { timeout: 30_000 })).data,
      companies: () => authApi.companies(),
    });
    if (result.kind === 'anonymous') set({ user: null, companies: [], currentCompanyId: null, initialized: true, loading: false });
    else set({ user: result.user, companies: result.companies, currentCompanyId: result.currentCompanyId, initialized: true, loading: false });
  },

  async login(email, password) {
    const res = await authApi.login(email.trim().toLowerCase(), password);
    tokenStorage.setTokens(res.accessToken, res.refreshToken);
    const companies = (res.companies ?? res.user.companies ?? []).map((c) => ({ id: c.id, name: c.name, role: c.role }));
    const next = adopt(res.user, companies);
    set({ ...next, initialized: true, loading: false });
    return next.user;
  },

  async register(input) {
    const res = await authApi.register(input);
    tokenStorage.setTokens(res.accessToken, res.refreshToken);
    const companies = (res.companies ?? (res.company ? [res.company] : [])).map((c) => ({ id: c.id, name: c.name, role: c.role }));
    tokenStorage.setCompanyId(res.company?.id ?? companies[0]?.id ?? null);
    const next = adopt(res.user, companies);
    set({ ...next, initialized: true, loading: false });
    return next.user;
  },

  async logout() {
    try {
      await authApi.logout(tokenStorage.refresh());
    } catch {
      /* the local session ends whatever the server says */
    }
    tokenStorage.clear();
    set({ user: null, companies: [], currentCompanyId: null });
  },

  switchCompany(id) {
    const company = get().companies.find((c) => c.id === id);
    if (!company) return;
    tokenStorage.setCompanyId(id);
    const user = get().user;
    set({ currentCompanyId: id, user: user && { ...user, currentCompany: company, currentRole: company.role } });
  },

  setUser(user) {
    const current = get().user;
    set({ user: { ...current, ...user, companies: current?.companies ?? user.companies ?? [], currentCompany: current?.currentCompany ?? null, currentRole: current?.currentRole ?? null } });
  },

  currentCompany() {
    const { companies, currentCompanyId } = get();
    return companies.find((c) => c.id === currentCompanyId) ?? null;
  },

  role() {
    return get().currentCompany()?.role ?? null;
  },
}));
