import { create } from 'zustand';

/**
 * The moment the lists are shown as of: null is now. The API client adds it
 * as `asOf` to the transactions, receipts and matches reads (AS_OF_READ); the date picker of
 * features/history sets it.
 */
interface AsOfState {
  asOf: string | null;
  setAsOf(asOf: string | null): void;
}

export const useAsOf = create<AsOfState>((set) => ({
  asOf: null,
  setAsOf: (asOf) => set({ asOf }),
}));

/** The reads that take `asOf` (query-api/src/history/routes.ts AS_OF_PATH). */
export const AS_OF_READ = /^\/?(?:(?:transactions|receipts)(?:\/[^/?]+)?|matches(?:\/pending)?)\/?(?:\?.*)?$/;

/** The moment to add to a GET of `url`, if any. */
export function asOfFor(method: string | undefined, url: string | undefined): string | null {
  const { asOf } = useAsOf.getState();
  if (!asOf || (method ?? 'get').toLowerCase() !== 'get' || !url) return null;
  return AS_OF_READ.test(url) ? asOf : null;
}
