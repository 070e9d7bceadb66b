import type { Decider } from '../core/decider';
import { skipHeldDuplicates } from '../csv/dedupe';
import type { ImportedRow } from './transaction';

/** Rows per event: keeps each event well under EventStoreDB's size limit. */
export const IMPORT_CHUNK_ROWS = 1000;
/** How many assignment details and row errors an import answer lists. */
export const IMPORT_DETAIL_LIMIT = 100;

export type ImportEvent =
  | {
      type: 'StatementImported';
      data: {
        importId: string; companyId: string; fileName: string; fileHash: string; layout: string; importedBy: string; totalRows: number; imported: number; skipped: number; rejected: number;
        /**
         * First and last posting day of the rows imported ('YYYY-MM-DD'): the block auto-match
         * runs over, once for the whole statement (ADR 0027). Absent in events written before.
         */
        days?: [string, string];
      };
    }
  | { type: 'TransactionsImported'; data: { importId: string; companyId: string; fileName: string; fileHash: string; importedBy: string; rows: ImportedRow[] } };

/**
 * The write side's index of statement files (docs/decisions/0023-decisions-and-read-model-lag.md):
 * `StatementFileClaimed` is the one event of a file's claim stream (streams.ts
 * statementFileStream), appended `no_stream` by the import that takes the file; an import reads
 * that one stream to know whether the same bytes came before. `StatementLedgerIndexed` is the
 * one event of a company's index stream: every file of its ledger up to `throughRevision` has its
 * claim, and every import after it claims its own (ledgers written before the claims existed are
 * indexed by their first import after the upgrade).
 */
export type StatementClaimEvent =
  | { type: 'StatementFileClaimed'; data: { companyId: string; fileHash: string; importId: string } }
  | { type: 'StatementLedgerIndexed'; data: { companyId: string; throughRevision: number } };

export const STATEMENT_CLAIM_EVENT_TYPES: ReadonlyArray<StatementClaimEvent['type']> = ['StatementFileClaimed', 'StatementLedgerIndexed'];

/** The key duplicates are recognised by: same date, description (case and spacing aside) and amount. */
export function dedupKeyOf(date: string, description: string, amountCents: number): string {
  return `${date}|${description.trim().replace(/\s+/g, ' ').toUpperCase()}|${amountCents}`;
}

/** The company's import ledger: which files were imported. */
export interface LedgerState {
  fileHashes: Record<string, string>;
}

export const ledgerDecider: Pick<Decider<LedgerState, never, ImportEvent>, 'initialState' | 'evolve'> = {
  initialState: () => ({ fileHashes: {} }),
  evolve: (state, event) =>
    event.type === 'StatementImported' ? { fileHashes: { ...state.fileHashes, [event.data.fileHash]: event.data.importId } } : state,
};

export interface CandidateRow extends Omit<ImportedRow, 'transactionId'> {
  dedupKey: string;
}

export interface ImportStatementCommand {
  importId: string;
  companyId: string;
  importedBy: string;
  fileName: string;
  fileHash: string;
  layout: string;
  /** Parsed and assigned rows, in file order. */
  rows: CandidateRow[];
  /** Rows that could not be read, with the reason. */
  rowErrors: Array<{ row: number; reason: string }>;
  /** How many transactions the company already holds with each dedup key of `rows` (read by the caller; absent = none). */
  existingKeys: ReadonlyMap<string, number>;
  /** Ids for new transactions, at least one per row. */
  newIds: string[];
}

export interface ImportResult {
  imported: number;
  skipped: number;
  total: number;
  rejected: number;
  alreadyImported: boolean;
  userMatching: {
    matched: number;
    unmatched: number;
    adminAssigned: number;
    details: Array<{ row: number; description: string; providedName: string | null; assignedTo: string; status: ImportedRow['assignment'] }>;
  };
  rowErrors: Array<{ row: number; reason: string }>;
  duplicates: Array<{ row: number; description: string; reason: string }>;
}

/**
 * Decides an import: a file imported before adds nothing; otherwise a row is a duplicate
 * only as many times as the company already holds its date, description and amount (a
 * multiset: identical rows of one statement are all kept). The rest become transactions, in
 * chunks of rows.
 */
/**
 * The row as an imported row: every field but the dedup key, plus its id. A plain copy loop:
 * object rest and spread cost 3-5 times as much, and a 200,000-row import does it per row.
 */
function withoutKey(r: CandidateRow, transactionId: string): ImportedRow {
  const row: Record<string, unknown> = {};
  for (const key in r) if (key !== 'dedupKey') row[key] = r[key as keyof CandidateRow];
  row.transactionId = transactionId;
  return row as unknown as ImportedRow;
}

export function decideImport(cmd: ImportStatementCommand, ledger: LedgerState): { events: ImportEvent[]; result: ImportResult } {
  const alreadyImported = cmd.fileHash in ledger.fileHashes;
  const kept: ImportedRow[] = [];
  const duplicates: ImportResult['duplicates'] = [];
  const held = new Set(alreadyImported ? cmd.rows : skipHeldDuplicates(cmd.rows, (r) => r.dedupKey, (key) => cmd.existingKeys.get(key) ?? 0).skipped);
  let nextId = 0;
  for (const r of cmd.rows) {
    if (held.has(r)) {
      duplicates.push({ row: r.row, description: r.description, reason: alreadyImported ? 'This file was imported before' : 'Same date, description and amount as an existing transaction' });
      continue;
    }
    const transactionId = cmd.newIds[nextId++];
    if (!transactionId) throw new Error('not enough ids for the import');
    kept.push(withoutKey(r, transactionId));
  }
  const matched = cmd.rows.filter((r) => r.assignment === 'name_matched').length;
  const result: ImportResult = {
    imported: kept.length,
    skipped: duplicates.length,
    total: cmd.rows.length + cmd.rowErrors.length,
    rejected: cmd.rowErrors.length,
    alreadyImported,
    userMatching: {
      matched,
      unmatched: cmd.rows.filter((r) => r.assignment === 'no_match_found' || r.assignment === 'error').length,
      adminAssigned: cmd.rows.filter((r) => r.assignment === 'no_names_provided').length,
      details: cmd.rows.slice(0, IMPORT_DETAIL_LIMIT).map((r) => ({ row: r.row, description: r.description, providedName: r.providedName ?? null, assignedTo: r.assignedTo, status: r.assignment })),
    },
    rowErrors: cmd.rowErrors.slice(0, IMPORT_DETAIL_LIMIT),
    duplicates: duplicates.slice(0, IMPORT_DETAIL_LIMIT),
  };
  if (alreadyImported || kept.length === 0) return { events: [], result };
  const base = { importId: cmd.importId, companyId: cmd.companyId, fileName: cmd.fileName, fileHash: cmd.fileHash, importedBy: cmd.importedBy };
  const events: ImportEvent[] = [];
  let first = kept[0]!.date;
  let last = first;
  for (const r of kept) {
    if (r.date < first) first = r.date;
    else if (r.date > last) last = r.date;
  }
  for (let i = 0; i < kept.length; i += IMPORT_CHUNK_ROWS) {
    events.push({ type: 'TransactionsImported', data: { ...base, rows: kept.slice(i, i + IMPORT_CHUNK_ROWS) } });
  }
  events.push({
    type: 'StatementImported',
    data: { ...base, layout: cmd.layout, totalRows: result.total, imported: result.imported, skipped: result.skipped, rejected: result.rejected, days: [first, last] },
  });
  return { events, result };
}
