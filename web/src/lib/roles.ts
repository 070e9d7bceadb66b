import type { Role } from './auth-api';
import { useSession } from './session';

/**
 * What each role may do in the web app. The server decides (an auditor's
 * writes are refused with 403 `read_only_role`, command-api/src/http/read-only.ts); the app only
 * spares the auditor controls that would fail: an auditor reads the whole company as an admin
 * does and sees no write control anywhere.
 */
export const roles = {
  /** May change anything at all in the company (import, upload, edit, match, delete...). */
  canWrite: (role: Role | null): boolean => role !== 'auditor',
  /** Reads every member's records and the admin figures (admins; auditors, read-only). */
  seesWholeCompany: (role: Role | null): boolean => role === 'admin' || role === 'auditor',
  /** Reads only, everywhere. */
  isReadOnly: (role: Role | null): boolean => role === 'auditor',
};

/** The current company's role may write. */
export const useCanWrite = (): boolean => useSession((s) => roles.canWrite(s.role()));
/** The current company's role reads the whole company. */
export const useSeesWholeCompany = (): boolean => useSession((s) => roles.seesWholeCompany(s.role()));
/** The current company's role is read-only (auditor). */
export const useReadOnly = (): boolean => useSession((s) => roles.isReadOnly(s.role()));

/** The sentence shown (and read by screen readers) wherever a write control is left out. */
export const READ_ONLY_NOTE = 'You are an auditor in this company: you can read everything, including history and past states, but not change anything.';
