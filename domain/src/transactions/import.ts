import type { Decider } from '../core/decider';
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
 * The write side's index of statement files (docs/decisions/0023-decisions-and-read-model-lag.md,
 * 0016-multi-stream-commands-on-eventstoredb.md): a file's claim stream (streams.ts
 * statementFileStream) says whether the same bytes came before, in one read. An import that adds
 * rows first appends `StatementFileTaken` there (`no_stream`: of two imports of one file one takes
 * it, before any row is written), then its rows and the ledger's `StatementImported`, and last
 * `StatementFileClaimed` (the file is imported). Claims written before the take existed are a
 * `StatementFileClaimed` alone. A take without its claim is an import stopped half-way, which
 * the next import of the file by the same person completes. `StatementLedgerIndexed` is the
 * one event of a company's index stream: every file of its ledger up to `throughRevision` has its
 * claim, and every import after it claims its own (ledgers written before the claims existed are
 * indexed by their first import after the upgrade).
 */
export type StatementClaimEvent =
  | { type: 'StatementFileTaken'; data: { companyId: string; fileHash: string; importId: string; importedBy: string } }
  | { type: 'StatementFileClaimed'; data: { companyId: string; fileHash: string; importId: string } }
  | { type: 'StatementLedgerIndexed'; data: { companyId: string; throughRevision: number } };

export const STATEMENT_CLAIM_EVENT_TYPES: ReadonlyArray<StatementClaimEvent['type']> = ['StatementFileTaken', 'StatementFileClaimed', 'StatementLedgerIndexed'];

/**
 * The key duplicates are recognised by: same date, description (case and spacing aside) and amount,
 * of the card line as the bank sent it (what people edit later does not change it).
 */
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
 * The row as an imported row: every field but the dedup key, plus its id. A plain copy loop:
 * object rest and spread cost 3-5 times as much, and a 200,000-row import does it per row.
 */
function withoutKey(r: CandidateRow, transactionId: string): ImportedRow {
  const row: Record<string, unknown> = {};
  for (const key in r) if (key !== 'dedupKey') row[key] = r[key as keyof CandidateRow];
  row.transactionId = transactionId;
  return row as unknown as ImportedRow;
}

/** An import decided from its rows a part at a time (decideImportInParts). */
export interface ImportInParts extends Omit<ImportStatementCommand, 'rows' | 'newIds'> {
  /**
   * The parsed and assigned rows in file order, a part at a time: each part is read once, in
   * turn, and not kept, so a caller that makes the next part only when asked (a generator)
   * never holds more than one part's rows (the staged import, ADR 0027: 100,000 candidate and
   * imported rows at once were 80 MB of the writer thread's peak).
   */
  parts: Iterable<readonly CandidateRow[]>;
  /** The id of the next new transaction (asked once per row imported, in row order). */
  nextId: () => string;
}

/**
 * Decides an import: a file imported before adds nothing; otherwise a row is a duplicate
 * only as many times as the company already holds its date, description and amount (a
 * multiset: identical rows of one statement are all kept; of the rows sharing a key, the first
 * ones are the duplicates). The rest become transactions, IMPORT_CHUNK_ROWS to an event, each
 * `TransactionsImported` event given to `emit` as soon as its rows are known, then the
 * `StatementImported` one. Returns what the answer says.
 */
export function decideImportInParts(cmd: ImportInParts, ledger: LedgerState, emit: (event: ImportEvent) => void): ImportResult {
  const alreadyImported = cmd.fileHash in ledger.fileHashes;
  const base = { importId: cmd.importId, companyId: cmd.companyId, fileName: cmd.fileName, fileHash: cmd.fileHash, importedBy: cmd.importedBy };
  /** Rows skipped so far per key: at most what the company holds. */
  const used = new Map<string, number>();
  const duplicates: ImportResult['duplicates'] = [];
  const details: ImportResult['userMatching']['details'] = [];
  let rows = 0;
  let skipped = 0;
  let imported = 0;
  let matched = 0;
  let unmatched = 0;
  let adminAssigned = 0;
  let first = '';
  let last = '';
  let chunk: ImportedRow[] = [];
  for (const part of cmd.parts) {
    for (const r of part) {
      rows++;
      if (r.assignment === 'name_matched') matched++;
      else if (r.assignment === 'no_match_found' || r.assignment === 'error') unmatched++;
      else if (r.assignment === 'no_names_provided') adminAssigned++;
      if (details.length < IMPORT_DETAIL_LIMIT) details.push({ row: r.row, description: r.description, providedName: r.providedName ?? null, assignedTo: r.assignedTo, status: r.assignment });
      let held = alreadyImported;
      if (!held) {
        const count = cmd.existingKeys.get(r.dedupKey) ?? 0;
        const sofar = used.get(r.dedupKey) ?? 0;
        if (sofar < count) {
          used.set(r.dedupKey, sofar + 1);
          held = true;
        }
      }
      if (held) {
        skipped++;
        if (duplicates.length < IMPORT_DETAIL_LIMIT) duplicates.push({ row: r.row, description: r.description, reason: alreadyImported ? 'This file was imported before' : 'Same date, description and amount as an existing transaction' });
        continue;
      }
      const transactionId = cmd.nextId();
      if (!transactionId) throw new Error('not enough ids for the import');
      const row = withoutKey(r, transactionId);
      if (imported++ === 0) first = last = row.date;
      else if (row.date < first) first = row.date;
      else if (row.date > last) last = row.date;
      chunk.push(row);
      if (chunk.length === IMPORT_CHUNK_ROWS) {
        emit({ type: 'TransactionsImported', data: { ...base, rows: chunk } });
        chunk = [];
      }
    }
  }
  if (chunk.length > 0) emit({ type: 'TransactionsImported', data: { ...base, rows: chunk } });
  const result: ImportResult = {
    imported,
    skipped,
    total: rows + cmd.rowErrors.length,
    rejected: cmd.rowErrors.length,
    alreadyImported,
    userMatching: { matched, unmatched, adminAssigned, details },
    rowErrors: cmd.rowErrors.slice(0, IMPORT_DETAIL_LIMIT),
    duplicates,
  };
  if (imported > 0) {
    emit({
      type: 'StatementImported',
      data: { ...base, layout: cmd.layout, totalRows: result.total, imported, skipped, rejected: result.rejected, days: [first, last] },
    });
  }
  return result;
}

/** decideImport in one part: every row and id given at once (the request thread's small files, tests). */
export function decideImport(cmd: ImportStatementCommand, ledger: LedgerState): { events: ImportEvent[]; result: ImportResult } {
  const { rows, newIds, ...rest } = cmd;
  const events: ImportEvent[] = [];
  let next = 0;
  const result = decideImportInParts({ ...rest, parts: [rows], nextId: () => newIds[next++]! }, ledger, (e) => events.push(e));
  return { events, result };
}
