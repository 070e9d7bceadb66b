/**
 * The port through which an event store may take a large statement's work off the request
 * thread (import-staged.ts): owned by the import, implemented by infra's SQLite event store.
 */
import type { DomainEvent, ImportResult, Member, NeedsMapping, StatementParseOptions } from '@paperlink/domain';

/** A statement parsed and held by the stager: what this thread needs of it. */
export interface StagedStatement {
  stage: number;
  /** SHA-256 of the file's bytes. */
  fileHash: string;
  layout: string;
  headerKey: string;
  rows: number;
  ignoredRows: number;
  /**
   * The rows' distinct dedup keys, joined by newlines (a key has none: dedupKeyOf folds white
   * space): one string crosses threads in one copy, where 200,000 strings took one long turn.
   */
  keys: string;
}

export type StageAnswer = StagedStatement | { needsMapping: NeedsMapping; headerKey: string };

export interface StagedDecisionInput {
  importId: string;
  companyId: string;
  importedBy: string;
  fileName: string;
  fileHash: string;
  /** Who rows are assigned to (importAssignees). */
  members: Member[];
  fallbackId: string;
  /** How many transactions the company holds with each key (absent: none). */
  existingKeys: Array<[string, number]>;
  alreadyImported: boolean;
}

export interface StatementStager {
  /** Parses a statement (the bytes are moved, not copied) and holds its rows until `release`. */
  stage(bytes: Uint8Array, options: StatementParseOptions): Promise<StageAnswer>;
  /**
   * Assigns and decides the held rows (decideImport). `events` are the import's events for the
   * plan: TransactionsImported ones are placeholders that only this store's append understands.
   */
  decide(stage: number, input: StagedDecisionInput): Promise<{ result: ImportResult; events: DomainEvent[] }>;
  /** Drops a staged statement (after the answer, whatever it was). */
  release(stage: number): void;
}

