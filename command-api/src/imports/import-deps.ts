/** What the import route is given, and the sizes it works by (both import paths read them). */
import type { Role } from '@paperlink/domain';
import type { CommandBus, Plan } from '../core/bus';
import type { CsvParsers } from '../core/parsers';
import type { DecisionPosition } from '../core/read-side';
import type { StatementStager } from './stage-port';

/** Statements up to 25 MB (about 250,000 rows). */
export const STATEMENT_MAX_BYTES = 25 * 1024 * 1024;
/** Rows per import unless configured (MAX_IMPORT_ROWS): bench/responsiveness.ts keeps the server answering at this size. */
export const DEFAULT_MAX_IMPORT_ROWS = 200_000;

export interface ImportDeps {
  bus: CommandBus;
  /** Members of a company, for assigning rows by the statement names an admin set for them. */
  members(companyId: string): Promise<Array<{ userId: string; firstName: string; lastName: string; role: Role; statementNames?: string[] }>>;
  /**
   * How many transactions the company already holds with each of these dedup keys (absent =
   * none); with `ownerId`, only that member's (a non-admin's import, scope.ts).
   */
  existingKeys(companyId: string, keys: string[], ownerId?: string): Promise<Map<string, number>>;
  /** Statement parsing, off the request thread (infra's worker pool). */
  parsers: CsvParsers;
  /** Transactions one import takes at most (default DEFAULT_MAX_IMPORT_ROWS); the refusal states both figures. */
  maxRows?: number;
  /** The position the read models must reach before `members` and `existingKeys` decide (default: the head of the log). */
  decisionPosition?: DecisionPosition;
  /**
   * Where the event store offers one: files of at least `stageBytes` (default 1 MB) are parsed,
   * decided and turned into events beside the store's writer, off the request thread (import-staged.ts).
   */
  stager?: StatementStager;
  stageBytes?: number;
  /** Imports of more new rows than this answer without waiting for their projection (default DEFAULT_ANSWER_WAIT_ROWS). */
  answerWaitRows?: number;
}

/**
 * From this many new rows on, an import's answer does not wait for the read models (ADR 0030):
 * their projection takes longer than READ_SIDE_WAIT_MS (5 s) in every run measured here (about
 * 5,000-8,000 rows a second, ADR 0027), so the wait would only delay an answer that says
 * `X-Read-Side: behind` anyway; the web app then says the lists are filling in.
 */
export const DEFAULT_ANSWER_WAIT_ROWS = 25_000;

/** The plan's wait for an import of `imported` new rows. */
export function importAnswerWait(imported: number, deps: Pick<ImportDeps, 'answerWaitRows'>): Pick<Plan, 'readSideWaitMs'> {
  return imported > (deps.answerWaitRows ?? DEFAULT_ANSWER_WAIT_ROWS) ? { readSideWaitMs: 0 } : {};
}

/** Files from this size on go to the stager (about 10,000 rows). */
export const DEFAULT_STAGE_BYTES = 1024 * 1024;
