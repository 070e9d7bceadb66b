import { matchCommands, type MatchDeps } from '@paperlink/command-api';
import { getMatch, getReceipt, getTransaction, matchProjections, RECEIPTS, receiptMatchInput, TRANSACTIONS, type ReceiptDoc, type TransactionDoc } from '@paperlink/projections';
import { matchQueries } from '@paperlink/query-api';
import type { Feature, JobRegistration, Kernel } from '../boot/feature';
import { reactions } from '../reactions';
import { findInPages } from '../readstore/paged';
import { knownMatches, matchBlock } from './match-block';
import { AUTO_MATCH_JOB, AUTO_MATCH_JOB_OPTIONS, autoMatchJobHandler } from './matching-job';

const asMatchReceipt = (d: ReceiptDoc) => ({ ...receiptMatchInput(d), owner: d.userId, name: d.original_filename });
const asMatchTransaction = (d: TransactionDoc) => ({ id: d._id, amountCents: d.amountCents, date: d.transaction_date, description: d.description, cardHolder: d.userId, owner: d.userId });

const matchDeps = (k: Kernel): MatchDeps => ({
  bus: k.bus,
  inputs: async (companyId, scope) => {
    const own = { companyId, ...(scope.userId ? { userId: scope.userId } : {}) };
    const [receipts, transactions] = await Promise.all([
      k.readStore.collection<ReceiptDoc>(RECEIPTS).find({ ...own, processing_status: 'completed' }),
      findInPages(k.readStore.collection<TransactionDoc>(TRANSACTIONS), own, asMatchTransaction),
    ]);
    return { receipts: receipts.map(asMatchReceipt), transactions };
  },
  autoMatch: k.cpu.autoMatch,
  threshold: async (companyId) => (await k.settingsOf(companyId)).autoMatchThreshold,
  receipt: async (companyId, id) => {
    const d = await getReceipt(k.readStore, companyId, id);
    return d ? asMatchReceipt(d) : null;
  },
  transaction: async (companyId, id) => {
    const d = await getTransaction(k.readStore, companyId, id);
    return d ? asMatchTransaction(d) : null;
  },
  matchSides: async (companyId, id) => {
    const m = await getMatch(k.readStore, companyId, id);
    return m ? { receiptId: m.receiptId, transactionId: m.transactionId } : null;
  },
  // Auto-match after new evidence: its candidate block only, by indexed queries (ADR 0021).
  block: matchBlock(k.readStore, asMatchReceipt, asMatchTransaction),
  matchesOf: knownMatches(k.readStore),
});

/** Receipt-to-transaction matches: suggested, auto-matched after new evidence, decided by people. */
export const matches: Feature = {
  feature: 'matches',
  commands: matchCommands,
  queries: matchQueries,
  projections: matchProjections,
  reactions: [reactions.autoMatch],
  wire: (k) => {
    const deps = matchDeps(k);
    const autoMatch: JobRegistration = {
      type: AUTO_MATCH_JOB,
      handler: autoMatchJobHandler({ match: deps, events: k.events, caughtUp: (p) => k.runner.waitFor(p), log: (m) => console.warn(m), pause: k.activity.yieldToRequests }) as JobRegistration['handler'],
      options: AUTO_MATCH_JOB_OPTIONS,
    };
    return { routes: [...matchQueries.routers!({ store: k.readStore }), ...matchCommands.routers(deps)], jobs: [autoMatch] };
  },
};
