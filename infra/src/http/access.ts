import type { AccessReader } from '@paperlink/command-api';
import type { ReadStore } from '@paperlink/domain';
import { getMembership, getSession, getUser } from '@paperlink/projections';

/** The request guard's reads, over the read models. */
export function accessReader(store: ReadStore): AccessReader {
  return {
    session: (id) => getSession(store, id),
    user: (id) => getUser(store, id),
    membership: (companyId, userId) => getMembership(store, companyId, userId),
  };
}
