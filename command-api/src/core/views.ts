import type { CompanyView, Role } from '@paperlink/domain';

/** The user object the spec's client reads (login, register, profile). */
export interface UserView {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  emailVerified: boolean;
  lastLogin: string | null;
  memberSince: string;
  currentRole: Role | null;
  currentCompany: { id: string; name: string; role: Role } | null;
  companies: Array<{ id: string; name: string; role: Role }>;
}

export type { CompanyView };

/** Read-side answers a command reply includes; infra builds them over the read models. */
export interface AccountViews {
  user(userId: string, currentCompanyId?: string): Promise<UserView | null>;
  companies(userId: string): Promise<CompanyView[]>;
  company(companyId: string, userId: string): Promise<CompanyView | null>;
  member(companyId: string, userId: string): Promise<{ id: string; firstName: string; lastName: string; email: string; role: Role } | null>;
  /** Ids of the user's sessions that are neither revoked nor expired at `now` (ISO). */
  activeSessions(userId: string, now: string): Promise<string[]>;
}
