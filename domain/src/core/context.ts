/** `auditor`: reads the whole company as an admin does and writes nothing (ADR 0017). */
export type Role = 'user' | 'manager' | 'admin' | 'auditor';
export const ROLES: readonly Role[] = ['user', 'manager', 'admin', 'auditor'];

/** Who is asking, for which company, as established by the HTTP layer from the token and X-Company-ID. */
export interface RequestContext {
  requestId: string;
  correlationId: string;
  userId?: string;
  email?: string;
  sessionId?: string;
  companyId?: string;
  /**
   * The role the request acts with. An auditor's requests act as 'admin' for reads (company-wide
   * scope) with `readOnly` set: every write is refused before a router sees it (command-api/src/http/read-only.ts).
   */
  role?: Role;
  /** The caller is the company's auditor: reads only. */
  readOnly?: boolean;
  ip?: string;
  now: Date;
}
