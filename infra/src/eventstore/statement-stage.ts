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
import {
  assignRowsToMembers,
  decideImport,
  dedupKeyOf,
  parseBankStatement,
  type ImportResult,
  type Member,
  type StatementParseOptions,
  type StatementParseResult,
} from '@paperlink/domain';
import { newId } from '@paperlink/command-api/src/core/ids';
import { candidateRow } from '@paperlink/command-api/src/transactions/import-rows';
import type { StageAnswer, StagedDecisionInput } from '@paperlink/command-api/src/transactions/import-staged';
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
  /** Canonical JSON of the last decision's TransactionsImported events. */
  events: string[];
}

export class StatementStages {
  private next = 1;
  private readonly stages = new Map<number, Stage>();

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
    const members = input.members as Member[];
    const { details } = assignRowsToMembers(parsed.rows, members, input.fallbackId);
    const rows = parsed.rows.map((r, i) => candidateRow(r, details[i]!));
    const newIds = rows.map(() => newId());
    const { events, result } = decideImport(
      { importId: input.importId, companyId: input.companyId, importedBy: input.importedBy, fileName: input.fileName, fileHash: input.fileHash, layout: parsed.layout, rows, rowErrors: parsed.rowErrors.map((e) => ({ row: e.row, reason: e.reason })), existingKeys: new Map(input.existingKeys), newIds },
      { fileHashes: input.alreadyImported ? { [input.fileHash]: input.importId } : {} },
    );
    stage.events = events.filter((e) => e.type === 'TransactionsImported').map((e) => canonicalJson(e.data));
    const statement = events.find((e) => e.type === 'StatementImported');
    return { result, transactionEvents: stage.events.length, statementImported: statement ? (statement.data as unknown as Record<string, unknown>) : null };
  }

  /** The JSON of a held event, for the append. */
  json(id: number, index: number): string {
    const json = this.stages.get(id)?.events[index];
    if (json === undefined) throw new Error(`staged statement ${id} holds no event ${index}`);
    return json;
  }

  release(id: number): void {
    this.stages.delete(id);
  }
}
