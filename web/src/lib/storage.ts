/** Tokens and the current company id live in local storage (spec section 9). */
export const KEYS = { access: 'accessToken', refresh: 'refreshToken', company: 'currentCompanyId', companyAlt: 'companyId' } as const;

export const tokenStorage = {
  access: () => localStorage.getItem(KEYS.access),
  refresh: () => localStorage.getItem(KEYS.refresh),
  companyId: () => localStorage.getItem(KEYS.company) ?? localStorage.getItem(KEYS.companyAlt),
  setTokens(access: string, refresh?: string) {
    localStorage.setItem(KEYS.access, access);
    if (refresh) localStorage.setItem(KEYS.refresh, refresh);
  },
  setCompanyId(id: string | null) {
    if (id) {
      localStorage.setItem(KEYS.company, id);
      localStorage.setItem(KEYS.companyAlt, id);
    } else {
      localStorage.removeItem(KEYS.company);
      localStorage.removeItem(KEYS.companyAlt);
    }
  },
  clear() {
    for (const k of Object.values(KEYS)) localStorage.removeItem(k);
  },
};
