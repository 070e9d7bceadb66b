/**
 * The order of an import's appends, and the completion of an import stopped half-way
 * (docs/decisions/0016-multi-stream-commands-on-eventstoredb.md). On EventStoreDB the appends of a
 * plan are written one after another, a large one in chunks, and a failure keeps what came before:
 *
 * 1. the file's take (`no_stream`): of two imports of one file, one takes it before any row is
 *    written; the other is planned again and finds the file taken or imported;
 * 2. the rows (the import's stream), in chunks;
 * 3. the ledger's `StatementImported` (at the ledger's revision), after every row, as auto-match needs;
 * 4. the file's claim (after the take: one completion), then the ledger's index and the mapping.
 *
 * A take without its claim is completed by the next import of the file by whoever took it (their
 * retry): the rows written are in the read model once it holds every event so far, so the new
 * decision holds only the rest, which go on the same stream at its revision; the ledger's event
 * is written unless one for the import was written after the take; then the claim. Anyone else
 * is told the file is being imported (409).
 */
import { ConflictError, ledgerStream, importStream, type EventStore, type ImportEvent, type ImportResult } from '@paperlink/domain';
import { columnMappingStream } from '@paperlink/domain';
import type { Plan } from '../core/bus';
import { claimAppend, takeAppend, type LedgerView } from './ledger';

type Append = Plan['appends'][number];

/** An import taken and not finished, that this plan completes. */
export interface ResumedImport {
  importId: string;
  /** Rows already on the import's stream: how many, their line numbers and posting days. */
  written: { rows: number; rowNumbers: Set<number>; first?: string; last?: string };
  /** Revision of the import stream's last event (-1: none). */
  revision: number;
  /** Whether the ledger already holds the import's StatementImported (written after the take). */
  ledgerDone: boolean;
}

/** Ledger events read at a time, going back from the tail. */
const LEDGER_PAGE = 16;

/** Whether the ledger holds `importId`'s StatementImported among the events appended after `since` (a global position). */
async function ledgerHolds(events: EventStore, companyId: string, tail: number, importId: string, since: number): Promise<boolean> {
  for (let to = tail; to >= 0; to -= LEDGER_PAGE) {
    const from = Math.max(0, to - LEDGER_PAGE + 1);
    const page = await events.readStream(ledgerStream(companyId), { fromRevision: from, maxCount: to - from + 1 });
    for (let i = page.length - 1; i >= 0; i--) {
      const e = page[i]!;
      if (e.position <= since) return false;
      if (e.type === 'StatementImported' && (e.data as { importId?: unknown }).importId === importId) return true;
    }
  }
  return false;
}

/**
 * The import this plan completes, when the file is taken and not finished (read before the
 * read-side wait, so that the read model then holds every row read here); none when not taken.
 * Refused (409) when someone else took it.
 */
export async function resumeOf(events: EventStore, ledger: LedgerView, companyId: string, userId: string): Promise<ResumedImport | undefined> {
  const taken = ledger.taken;
  if (!taken || ledger.alreadyImported) return undefined;
  if (taken.importedBy !== userId) {
    throw new ConflictError('This statement is being imported by another member of the company. Try again in a minute.', 'statement_import_in_progress');
  }
  const recorded = await events.readStream(importStream(taken.importId));
  const written: ResumedImport['written'] = { rows: 0, rowNumbers: new Set() };
  for (const e of recorded) {
    if (e.type !== 'TransactionsImported') continue;
    for (const r of (e.data as Extract<ImportEvent, { type: 'TransactionsImported' }>['data']).rows) {
      written.rows++;
      written.rowNumbers.add(r.row);
      if (!written.first || r.date < written.first) written.first = r.date;
      if (!written.last || r.date > written.last) written.last = r.date;
    }
  }
  const ledgerDone = await ledgerHolds(events, companyId, ledger.tail, taken.importId, taken.position);
  return { importId: taken.importId, written, revision: recorded.length - 1, ledgerDone };
}

/** What a created StatementImported needs that the decision does not carry when it imported nothing new. */
export interface ImportBase {
  importId: string;
  companyId: string;
  fileName: string;
  fileHash: string;
  importedBy: string;
  layout: string;
}

/**
 * A resumed import's decision (only the rows not written yet) made into the whole import's: the
 * answer and the ledger's StatementImported count the rows written before, and their days.
 */
export function completeImport(decided: { events: Plan['appends'][number]['events']; result: ImportResult }, resume: ResumedImport, base: ImportBase): { events: Plan['appends'][number]['events']; result: ImportResult } {
  const { written } = resume;
  const imported = decided.result.imported + written.rows;
  const result: ImportResult = {
    ...decided.result,
    imported,
    skipped: decided.result.total - decided.result.rejected - imported,
    duplicates: decided.result.duplicates.filter((d) => !written.rowNumbers.has(d.row)),
  };
  const events = decided.events.filter((e) => e.type !== 'StatementImported');
  if (imported > 0) {
    const before = decided.events.find((e) => e.type === 'StatementImported')?.data as { days?: [string, string] } | undefined;
    const firsts = [before?.days?.[0], written.first].filter((d): d is string => !!d).sort();
    const lasts = [before?.days?.[1], written.last].filter((d): d is string => !!d).sort();
    const days: [string, string] | undefined = firsts.length > 0 ? [firsts[0]!, lasts[lasts.length - 1]!] : undefined;
    events.push({
      type: 'StatementImported',
      data: { ...base, totalRows: result.total, imported, skipped: result.skipped, rejected: result.rejected, ...(days ? { days } : {}) },
    } satisfies ImportEvent);
  }
  return { events, result };
}

/**
 * An import's appends, in the order above. `resume`: the take is this plan's to complete (no new
 * take; rows at the stream's revision; no second ledger event). A plan that imports nothing and
 * completes nothing takes nothing. The column mapping the caller chose is kept with an import's events.
 */
export function importAppends(
  ids: { companyId: string; importId: string; fileHash: string; importedBy: string },
  events: Append['events'],
  ledger: Pick<LedgerView, 'expected' | 'indexAppends'>,
  chosen: { headerKey: string; mapping: unknown } | undefined,
  resume?: Pick<ResumedImport, 'revision' | 'ledgerDone'>,
): Plan['appends'] {
  const { companyId, importId, fileHash, importedBy } = ids;
  const rows = events.filter((e) => e.type === 'TransactionsImported');
  const statement = events.filter((e) => e.type === 'StatementImported');
  const appends: Plan['appends'] = [];
  if (resume || statement.length > 0) {
    if (!resume) appends.push(takeAppend(companyId, fileHash, importId, importedBy));
    if (!resume?.ledgerDone) {
      const revision = resume?.revision ?? -1;
      appends.push({ streamId: importStream(importId), expectedRevision: revision < 0 ? 'no_stream' : revision, events: rows });
      appends.push({ streamId: ledgerStream(companyId), expectedRevision: ledger.expected, events: statement });
    }
    appends.push(claimAppend(companyId, fileHash, importId, true));
  }
  appends.push(...ledger.indexAppends);
  if (chosen && (events.length > 0 || resume)) {
    appends.push({ streamId: columnMappingStream(companyId, chosen.headerKey), expectedRevision: 'any', events: [{ type: 'ColumnMappingSaved', data: { companyId, headerKey: chosen.headerKey, mapping: chosen.mapping } }] });
  }
  return appends;
}
