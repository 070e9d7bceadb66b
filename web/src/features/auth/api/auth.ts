/**
 * Moved to lib/auth-api.ts (shared by the session store, profile and company screens).
 * This re-export keeps older imports compiling; import from lib/auth-api instead.
 * @deprecated
 */
export * from '../../../lib/auth-api';
