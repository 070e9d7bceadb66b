/**
 * Moved to lib/session.ts: the session is shared by the shell and every feature, and features
 * do not import each other (eslint.config.js). This re-export keeps older imports compiling;
 * import from lib/session instead.
 * @deprecated
 */
export * from '../../../lib/session';
