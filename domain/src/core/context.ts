export type Role = 'user' | 'manager' | 'admin';
export const ROLES: readonly Role[] = ['user', 'manager', 'admin'];

/** Who is asking, for which company, as established by the HTTP layer from the token and X-Company-ID. */
export interface RequestContext {
  requestId: string;
  correlationId: string;
  userId?: string;
  email?: string;
  sessionId?: string;
  companyId?: string;
  role?: Role;
  ip?: string;
  now: Date;
}
