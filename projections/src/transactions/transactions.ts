import { dedupKeyOf, transactionStream, type Doc, type ImportEvent, type MatchEvent, type RecordedEvent, type SplitEvent, type SplitMode, type SplitPart, type SplitSource, type TransactionEvent } from '@paperlink/domain';
import type { Projection } from '../core/projection';

export const TRANSACTIONS = 'transactions';
export const TRANSACTION_KEYS = 'transaction_keys';
export const COMPANY_STATS = 'company_stats';

/** The orders the transactions list offers: the field each sorts by. */
export const TRANSACTION_SORTS = {
  transaction_date: 'transaction_date',
  description: 'description',
  amount: 'amountCents',
  category_name: 'category_name',
  cost_code_name: 'category_name',
  created_at: 'created_at',
} as const;
export type TransactionSort = keyof typeof TRANSACTION_SORTS;

/**
 * Orders left without an index: each index on a big collection costs about 12 µs of CPU per
 * written document (measured at 200,000 transactions), in rebuilds and imports. `created_at`
 * is the import time, one value for a whole statement; a list sorted by it reads every match.
 */
const UNINDEXED = new Set<string>(['created_at']);

/**
 * The fields the list filters on besides the company and the date, carried by the
 * (companyId, transaction_date) index after its keys. A list's total is a count of its filter;
 * a count the index answers alone reads its entries instead of every line's document (a company
 * of 1,000,000 lines: a category and amount range, or unmatched, read each document first).
 */
const COUNTED = ['+userId', '+category_name', '+absCents', '+receipt_count'];

/**
 * A page of a company's transactions sorted by a field is read from an index on (companyId,
 * field) instead of sorting every match. A list sorted by another field is sorted by date next
 * (listTransactions): with the date in the index a deep page is read from the index alone
 * (92,000 entries into a list by description: 40-60 ms, against 330-410 ms reading each row for
 * its date).
 */
function listIndexes(): string[][] {
  const orders = [...new Set<string>(Object.values(TRANSACTION_SORTS))].filter((f) => !UNINDEXED.has(f));
  return [
    ...orders.map((f) => (f === 'transaction_date' ? ['companyId', f, ...COUNTED] : ['companyId', f, 'transaction_date', ...COUNTED.filter((c) => c !== `+${f}`)])),
    ['companyId', 'userId', 'transaction_date', ...COUNTED.filter((c) => c !== '+userId')],
  ];
}

/** A transaction as lists show it; money in cents. */
export interface TransactionDoc extends Doc {
  companyId: string;
  /** The member it belongs to (assigned at import). */
  userId: string;
  transaction_date: string;
  description: string;
  amountCents: number;
  /** Size of the amount, for amount filters that ignore the sign. */
  absCents: number;
  salesTaxCents: number | null;
  external_transaction_id: string | null;
  currency: string | null;
  category_name: string | null;
  job_number_name: string | null;
  cost_code_name: string | null;
  receipt_count: number;
  receipts: string[];
  importId: string;
  /** Revision of the import stream's event that holds the row (where the write side finds its origin). */
  importRevision: number;
  fileHash: string;
  fileName: string;
  row: number;
  importedBy: string;
  created_at: string;
  updated_at: string;
  /** The imported card line's key (date, description and amount as the bank sent them); edits leave it. */
  dedupKey: string;
  /** The split across categories, job numbers and cost codes (ai/splitting), when there is one. */
  split?: TransactionSplitDoc | null;
  /** Events in the transaction's own stream (edits; absent: none): its ETag, what an If-Match names. */
  revision?: number;
}

/** A saved split: parts in cents that add up to `totalCents` (the amount when it was saved). */
export interface TransactionSplitDoc {
  mode: SplitMode;
  source: SplitSource;
  totalCents: number;
  receiptId: string | null;
  parts: SplitPart[];
  by: string;
  at: string;
}

/** How many live transactions of a company have one dedup key (duplicates are a multiset). */
export interface TransactionKeyDoc extends Doc {
  count: number;
}

export interface CompanyStatsDoc extends Doc {
  transactionCount: number;
}

export const transactionKeyId = (companyId: string, dedupKey: string) => `${companyId}|${dedupKey}`;

/**
 * `by` more (or fewer, when negative) transactions with a key; the key goes at zero. One
 * update per key and event: a document takes one change per event (replays are no-ops).
 */
const countKey = (id: string, by: number) => (k: TransactionKeyDoc | null): TransactionKeyDoc | null => {
  const count = (k?.count ?? 0) + by;
  return count > 0 ? { _id: id, count } : null;
};

export const transactionsProjection: Projection = {
  name: 'transactions',
  // 3: transaction_keys count the transactions per key (was: one transaction id per key).
  // 4: splits (TransactionSplitSaved / Removed).
  // 5: revision (the transaction stream's, for ETag / If-Match).
  // 6: the dedup key is the imported line's, edits no longer move it (counts rebuilt on upgrade).
  version: 6,
  collections: {
    // (companyId, transaction_date): auto-match's candidate block looks lines up by posting day (ADR 0021);
    // with the amount after it, a block's window (days x an amount range) is read from the index
    // alone, not every line of its days (ADR 0029, at 1,000,000 lines: 10 ms a window -> 1 ms).
    [TRANSACTIONS]: [['companyId'], ['companyId', 'userId'], ['companyId', 'transaction_date'], ['companyId', 'transaction_date', 'amountCents']],
    [TRANSACTION_KEYS]: [],
    [COMPANY_STATS]: [],
  },
  listIndexes: { [TRANSACTIONS]: listIndexes() },
  handles: new Set(['TransactionsImported', 'TransactionUpdated', 'TransactionDeleted', 'MatchConfirmed', 'MatchDeleted', 'TransactionSplitSaved', 'TransactionSplitRemoved']),
  async apply(event: RecordedEvent, view) {
    const e = event as unknown as ImportEvent | TransactionEvent | MatchEvent | SplitEvent;
    const at = event.metadata.occurredAt;
    switch (e.type) {
      case 'TransactionsImported': {
        const d = e.data;
        const keys = new Map<string, number>();
        const dedupKeys = d.rows.map((r) => dedupKeyOf(r.date, r.description, r.amountCents));
        // The event's documents in two reads (rows and keys) instead of one per document (ADR 0027).
        await view.prefetch?.(TRANSACTIONS, d.rows.map((r) => r.transactionId));
        await view.prefetch?.(TRANSACTION_KEYS, [...new Set(dedupKeys)].map((k) => transactionKeyId(d.companyId, k)));
        for (const [i, r] of d.rows.entries()) {
          const dedupKey = dedupKeys[i]!;
          await view.update<TransactionDoc>(TRANSACTIONS, r.transactionId, () => ({
            _id: r.transactionId,
            companyId: d.companyId,
            userId: r.assignedTo,
            transaction_date: r.date,
            description: r.description,
            amountCents: r.amountCents,
            absCents: Math.abs(r.amountCents),
            salesTaxCents: r.salesTaxCents ?? null,
            external_transaction_id: r.externalId ?? null,
            currency: r.currency ?? null,
            category_name: r.category ?? null,
            job_number_name: r.jobNumber ?? null,
            cost_code_name: r.costCode ?? null,
            receipt_count: 0,
            receipts: [],
            importId: d.importId,
            importRevision: event.revision,
            fileHash: d.fileHash,
            fileName: d.fileName,
            row: r.row,
            importedBy: d.importedBy,
            created_at: at,
            updated_at: at,
            dedupKey,
          }));
          keys.set(dedupKey, (keys.get(dedupKey) ?? 0) + 1);
        }
        for (const [dedupKey, n] of keys) await view.update<TransactionKeyDoc>(TRANSACTION_KEYS, transactionKeyId(d.companyId, dedupKey), countKey(transactionKeyId(d.companyId, dedupKey), n));
        await view.update<CompanyStatsDoc>(COMPANY_STATS, d.companyId, (doc) => ({ ...(doc ?? { _id: d.companyId, transactionCount: 0 }), transactionCount: (doc?.transactionCount ?? 0) + d.rows.length }));
        return;
      }
      case 'TransactionUpdated': {
        const { transactionId, changes } = e.data;
        const current = await view.get<TransactionDoc>(TRANSACTIONS, transactionId);
        if (!current) return;
        const next: TransactionDoc = {
          ...current,
          ...(changes.description !== undefined ? { description: changes.description } : {}),
          ...(changes.amountCents !== undefined ? { amountCents: changes.amountCents, absCents: Math.abs(changes.amountCents) } : {}),
          ...(changes.salesTaxCents !== undefined ? { salesTaxCents: changes.salesTaxCents } : {}),
          ...(changes.category !== undefined ? { category_name: changes.category } : {}),
          ...(changes.jobNumber !== undefined ? { job_number_name: changes.jobNumber } : {}),
          ...(changes.costCode !== undefined ? { cost_code_name: changes.costCode } : {}),
          updated_at: at,
          ...(event.streamId === transactionStream(transactionId) ? { revision: event.revision + 1 } : {}),
        };
        // The dedup key stays the card line as the bank sent it: an edit is not a new purchase.
        await view.update<TransactionDoc>(TRANSACTIONS, transactionId, () => next);
        return;
      }
      case 'MatchConfirmed':
        // receipt_count and the receipts' names come from confirmed matches.
        return view.update<TransactionDoc>(TRANSACTIONS, e.data.transactionId, (d) => d && { ...d, receipt_count: d.receipt_count + 1, receipts: [...d.receipts, e.data.receiptName] });
      case 'MatchDeleted': {
        if (!e.data.wasConfirmed) return;
        const name = e.data.receiptName;
        return view.update<TransactionDoc>(TRANSACTIONS, e.data.transactionId, (d) => {
          if (!d) return d;
          const i = d.receipts.indexOf(name);
          return { ...d, receipt_count: Math.max(0, d.receipt_count - 1), receipts: i < 0 ? d.receipts : [...d.receipts.slice(0, i), ...d.receipts.slice(i + 1)] };
        });
      }
      case 'TransactionSplitSaved': {
        const d = e.data;
        const split: TransactionSplitDoc = { mode: d.mode, source: d.source, totalCents: d.totalCents, receiptId: d.receiptId ?? null, parts: d.parts, by: d.by, at };
        return view.update<TransactionDoc>(TRANSACTIONS, d.transactionId, (doc) => doc && { ...doc, split, updated_at: at });
      }
      case 'TransactionSplitRemoved':
        return view.update<TransactionDoc>(TRANSACTIONS, e.data.transactionId, (doc) => doc && { ...doc, split: null, updated_at: at });
      case 'TransactionDeleted': {
        const current = await view.get<TransactionDoc>(TRANSACTIONS, e.data.transactionId);
        if (!current) return;
        await view.update<TransactionDoc>(TRANSACTIONS, current._id, () => null);
        await view.update<TransactionKeyDoc>(TRANSACTION_KEYS, transactionKeyId(current.companyId, current.dedupKey), countKey(transactionKeyId(current.companyId, current.dedupKey), -1));
        await view.update<CompanyStatsDoc>(COMPANY_STATS, current.companyId, (doc) => doc && { ...doc, transactionCount: Math.max(0, doc.transactionCount - 1) });
        return;
      }
    }
  },
};
