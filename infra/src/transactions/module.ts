import { freshRead, transactionCommands, type TransactionDeps } from '@paperlink/command-api';
import { getTransaction, toTransactionViews, transactionProjections } from '@paperlink/projections';
import { transactionQueries } from '@paperlink/query-api';
import type { Feature, Kernel } from '../boot/feature';

const transactionDeps = (k: Kernel): TransactionDeps => ({
  bus: k.bus,
  events: k.events,
  // Where a transaction's row is never changes: a found one is right; a miss is asked again
  // once the read models hold every earlier event (a transaction imported a moment ago), else 503.
  locator: { locate: async (companyId, id) => (await getTransaction(k.readStore, companyId, id)) ?? (await freshRead(k.bus, (c: string, i: string) => getTransaction(k.readStore, c, i), k.decisionPosition)(companyId, id)) },
  view: async (companyId, id, scope) => {
    const doc = await getTransaction(k.readStore, companyId, id);
    return doc ? ((await toTransactionViews(k.readStore, [doc], undefined, scope))[0] as unknown as Record<string, unknown>) : null;
  },
});

/** Transactions: their lists and their edits. */
export const transactions: Feature = {
  feature: 'transactions',
  commands: transactionCommands,
  queries: transactionQueries,
  projections: transactionProjections,
  wire: (k) => ({ routes: [...transactionQueries.routers!({ store: k.readStore }), ...transactionCommands.routers(transactionDeps(k))] }),
};
