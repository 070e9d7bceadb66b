import type { AccessReader } from '@paperlink/command-api';
import type { ReadStore } from '@paperlink/domain';
import { getMembership, getSession, getUser } from '@paperlink/projections';

/** The request guard's reads, over the read models; `caughtUp` waits (bounded) for them to hold the whole log. */
export function accessReader(store: ReadStore, caughtUp?: () => Promise<boolean>): AccessReader {
  return {
    ...(caughtUp ? { caughtUp } : {}),
    session: (id) => getSession(store, id),
    user: (id) => getUser(store, id),
    membership: (companyId, userId) => getMembership(store, companyId, userId),
  };
}
