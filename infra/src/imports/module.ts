import { importCommands, type ImportDeps } from '@paperlink/command-api';
import { getUsers, membersOfCompany, TRANSACTION_KEYS, TRANSACTIONS, transactionKeyId, type TransactionKeyDoc } from '@paperlink/projections';
import type { ReadStore } from '@paperlink/domain';
import type { Feature, Kernel } from '../boot/feature';

/** Keys asked per turn of the event loop: a 200,000-row import asks for 200,000, and 10,000 a turn held the request thread 30-50 ms under load. */
const KEYS_PER_TURN = 2000;

/** How many transactions the company holds with each of these dedup keys (a key asked twice is looked up twice). */
async function existingKeys(store: ReadStore, companyId: string, keys: string[]): Promise<Map<string, number>> {
  const held = new Map<string, number>();
  for (let i = 0; i < keys.length; i += KEYS_PER_TURN) {
    const part = keys.slice(i, i + KEYS_PER_TURN);
    const found = (await store.getMany(TRANSACTION_KEYS, part.map((k) => transactionKeyId(companyId, k)))) as Map<string, TransactionKeyDoc>;
    for (const k of part) {
      const count = found.get(transactionKeyId(companyId, k))?.count ?? 0;
      if (count > 0) held.set(k, count);
    }
    if (i + KEYS_PER_TURN < keys.length) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return held;
}

/** The same, counting only one member's transactions (a non-admin's import: ADR 0005). */
async function ownKeys(store: ReadStore, companyId: string, userId: string, keys: string[]): Promise<Map<string, number>> {
  const held = new Map<string, number>();
  const transactions = store.collection(TRANSACTIONS);
  const distinct = [...new Set(keys)];
  for (let i = 0; i < distinct.length; i += KEYS_PER_TURN) {
    const docs = await transactions.find({ companyId, userId, dedupKey: { $in: distinct.slice(i, i + KEYS_PER_TURN) } }, { hint: ['companyId', 'userId'] });
    for (const d of docs) held.set(d.dedupKey as string, (held.get(d.dedupKey as string) ?? 0) + 1);
  }
  return held;
}

const importDeps = (k: Kernel): ImportDeps => ({
  bus: k.bus,
  members: async (companyId) => {
    const memberships = await membersOfCompany(k.readStore, companyId);
    const users = await getUsers(k.readStore, memberships.map((m) => m.userId));
    return memberships.flatMap((m) => {
      const u = users.get(m.userId);
      return u ? [{ userId: m.userId, firstName: u.firstName, lastName: u.lastName, role: m.role, statementNames: m.statementNames ?? [] }] : [];
    });
  },
  existingKeys: (companyId, keys, ownerId) => (ownerId === undefined ? existingKeys(k.readStore, companyId, keys) : ownKeys(k.readStore, companyId, ownerId, keys)),
  parsers: k.cpu.parsers,
  maxRows: k.config.MAX_IMPORT_ROWS,
  answerWaitRows: k.config.IMPORT_ANSWER_WAIT_ROWS,
  decisionPosition: k.decisionPosition,
  // Large files off the request thread, beside the event store's writer (ADR 0008); not when a test wraps the store.
  ...(k.adapters.stager && !k.options.wrapEvents ? { stager: k.adapters.stager, stageBytes: k.config.IMPORT_STAGE_BYTES } : {}),
});

/** Bank and card statements imported from CSV (their transactions: the transactions feature). */
export const imports: Feature = {
  feature: 'imports',
  commands: importCommands,
  wire: (k) => ({ routes: importCommands.routers(importDeps(k)) }),
};
