/**
 * Statement imports staged in the event store's bulk writer thread (ADR 0008, fourth pass): the
 * file is parsed, its rows assigned and decided, and the import's events turned into canonical
 * JSON here, next to the connection that appends them, so a 200,000-row import's rows (millions
 * of small objects) and its 30 MB of event JSON never exist on the request thread. The request
 * thread gets what it decides and answers with: the file's hash, its distinct dedup keys (to
 * look up in the read model), the decision's result, and placeholders (StagedData) that the
 * append turns back into these events inside its one transaction.
 */
import { createHash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  assignRowsToMembers,
  decideImportInParts,
  dedupKeyOf,
  IMPORT_CHUNK_ROWS,
  parseBankStatement,
  type CandidateRow,
  type ImportResult,
  type Member,
  type ParsedRow,
  type StatementParseOptions,
  type StatementParseResult,
} from '@paperlink/domain';
import { candidateRow, newId, type StageAnswer, type StagedDecisionInput } from '@paperlink/command-api/stage';
import { canonicalJson } from './chain';

/** What the thread answers to a decision: the events it holds are only counted. */
export interface StageDecided {
  result: ImportResult;
  /** TransactionsImported events held here (appended through StagedData placeholders), in order. */
  transactionEvents: number;
  /** The StatementImported event's data (small), when the import adds rows. */
  statementImported: Record<string, unknown> | null;
}

interface Stage {
  parsed: StatementParseResult;
  /**
   * Canonical JSON of the last decision's TransactionsImported events, as UTF-8 bytes. The
   * strings canonicalJson built piece by piece were ropes of thousands of pieces per event: a
   * 100,000-row import held 160 MB of this thread's heap for its 26 MB of JSON until the
   * release; as bytes it is their length, outside the heap (ADR 0029, memory). Its
   * JSON.stringify path (ADR 0030) makes flat strings, which cost two bytes a character in the
   * heap when not ASCII: bytes still.
   */
  events: Buffer[];
}

let collector: (() => void) | null | undefined;

/**
 * A full garbage collection of this thread's heap, so that V8 gives the pages back to the
 * system. An idle thread has no allocation to set one off: after a 100,000-row import the
 * writer thread kept 300-400 MB of garbage through the whole projection of its events (the
 * import's peak). `gc` is exposed for one new context only (the flag is set back at once, unless
 * the process was started with it); where that is refused, nothing happens.
 */
export function collectGarbage(): void {
  if (collector === undefined) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (typeof exposed === 'function') collector = exposed;
    else {
      try {
        setFlagsFromString('--expose-gc');
        collector = runInNewContext('gc') as () => void;
      } catch {
        collector = null;
      } finally {
        setFlagsFromString('--no-expose-gc');
      }
    }
  }
  collector?.();
}

/**
 * The statement's rows as candidate rows (assigned to members, with their dedup keys), `size`
 * at a time, each part made only when the decision asks for the next: with the decision taking
 * them in turn (decideImportInParts), at most one part's candidate and imported rows exist at
 * once. Assignment is row by row, so parts answer as the whole file would.
 */
export function* candidateParts(rows: readonly ParsedRow[], members: readonly Member[], fallbackId: string, size = IMPORT_CHUNK_ROWS): Generator<CandidateRow[]> {
  for (let i = 0; i < rows.length; i += size) {
    const part = rows.slice(i, i + size);
    const { details } = assignRowsToMembers(part, members, fallbackId);
    yield part.map((r, j) => candidateRow(r, details[j]!));
  }
}

export interface StatementStagesOptions {
  /** Run once the last held statement is released (default collectGarbage; tests count it). */
  collect?: () => void;
}

export class StatementStages {
  private next = 1;
  private readonly stages = new Map<number, Stage>();
  private readonly collect: () => void;

  constructor(options: StatementStagesOptions = {}) {
    this.collect = options.collect ?? collectGarbage;
  }

  stage(bytes: Uint8Array, options: StatementParseOptions): StageAnswer {
    const fileHash = createHash('sha256').update(bytes).digest('hex');
    const parsed = parseBankStatement(bytes, options);
    if (parsed.needsMapping) return { needsMapping: parsed.needsMapping, headerKey: parsed.headerKey };
    const id = this.next++;
    this.stages.set(id, { parsed, events: [] });
    const keys = new Set<string>();
    for (const r of parsed.rows) keys.add(dedupKeyOf(r.date, r.description, r.amountCents));
    return {
      stage: id,
      fileHash,
      layout: parsed.layout,
      headerKey: parsed.headerKey,
      rows: parsed.rows.length,
      ignoredRows: parsed.ignoredRows.length,
      keys: [...keys].join('\n'),
    };
  }

  decide(id: number, input: StagedDecisionInput): StageDecided {
    const stage = this.stages.get(id);
    if (!stage) throw new Error(`no staged statement ${id}`);
    const { parsed } = stage;
    // A decision made again (the plan retried) replaces the events of the one before.
    const events: Buffer[] = (stage.events = []);
    let statementImported: Record<string, unknown> | null = null;
    const result = decideImportInParts(
      {
        importId: input.importId, companyId: input.companyId, importedBy: input.importedBy, fileName: input.fileName, fileHash: input.fileHash, layout: parsed.layout,
        rowErrors: parsed.rowErrors.map((e) => ({ row: e.row, reason: e.reason })), existingKeys: new Map(input.existingKeys),
        parts: candidateParts(parsed.rows, input.members, input.fallbackId), nextId: newId,
      },
      { fileHashes: input.alreadyImported ? { [input.fileHash]: input.importId } : {} },
      // Each event's rows become its canonical JSON as soon as they are decided, and are dropped.
      (e) => {
        if (e.type === 'TransactionsImported') events.push(Buffer.from(canonicalJson(e.data), 'utf8'));
        else statementImported = e.data as unknown as Record<string, unknown>;
      },
    );
    return { result, transactionEvents: events.length, statementImported };
  }

  /** The JSON of a held event, for the append. */
  json(id: number, index: number): string {
    const bytes = this.stages.get(id)?.events[index];
    if (bytes === undefined) throw new Error(`staged statement ${id} holds no event ${index}`);
    return bytes.toString('utf8');
  }

  /** Statements held now. */
  get held(): number {
    return this.stages.size;
  }

  /**
   * Drops a statement; once none is held, the thread's heap is collected (see collectGarbage),
   * at once or, with `collectLater`, by that function (after the caller's turn, when what it still
   * holds of the statement is unreferenced).
   */
  release(id: number, collectLater?: (collect: () => void) => void): void {
    if (!this.stages.delete(id) || this.stages.size > 0) return;
    if (collectLater) collectLater(this.collect);
    else this.collect();
  }
}
