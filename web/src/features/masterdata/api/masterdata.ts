/**
 * Moved to lib/masterdata-api.ts (the transactions screen uses the lists too, and features do
 * not import each other). This re-export keeps older imports compiling; import from lib instead.
 * @deprecated
 */
export * from '../../../lib/masterdata-api';
