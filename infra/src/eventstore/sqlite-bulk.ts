/**
 * The bulk writer of the SQLite event store: a thread with its own connection to the same file
 * that runs large appends (an import of 200,000 rows is 30 MB of events and an fsync), so the
 * request thread only waits for the answer. Same transaction, same checks, same durability
 * (WAL, synchronous=FULL); SQLite's lock orders it with the request thread's own appends.
 *
 * It also stages large statement imports (statement-stage.ts, command-api's StatementStager):
 * parsed, decided and made into events here, appended from here through placeholders
 * (StagedData), so their rows never exist on the request thread.
 */
import { Worker } from 'node:worker_threads';
import { AppError, ConcurrencyError, ConflictError, type AppendResult, type DomainEvent, type EventMetadata, type ExpectedRevision, type StatementParseOptions } from '@paperlink/domain';
import type { StageAnswer, StagedDecisionInput, StatementStager } from '@paperlink/command-api/stage';
import type { StageDecided } from './statement-stage';

/**
 * The data of an event that the bulk writer thread holds (a staged import's TransactionsImported
 * event): only the SQLite store that staged it can append it, and only through its bulk writer.
 */
export class StagedData {
  constructor(readonly stage: number, readonly index: number, readonly companyId: string) {}
}

export interface PreparedAppend {
  streamId: string;
  expectedRevision: ExpectedRevision;
  /** `json`: the event's data as stored; or `staged`: held by the thread (StagedData). */
  events: Array<{ id: string; type: string; metadata: EventMetadata; json: string; staged?: { stage: number; index: number } }>;
}

/**
 * An append travels as its events in slices (a turn of the request thread's event loop
 * between them: copying 30 MB of JSON into one message held it for a third of a second), then
 * the order to write them.
 */
export type BulkRequest =
  | { kind: 'events'; id: number; append: number; events: PreparedAppend['events'] }
  | { kind: 'write'; id: number; appends: Array<Omit<PreparedAppend, 'events'>> }
  | { kind: 'stage'; id: number; bytes: Uint8Array; options: StatementParseOptions }
  | { kind: 'decide'; id: number; stage: number; input: StagedDecisionInput }
  | { kind: 'release'; id: number; stage: number };
const EVENTS_PER_MESSAGE = 8;
export type BulkAnswer =
  | { id: number; results: AppendResult[] }
  | { id: number; value: unknown }
  | { id: number; error: { name: string; message: string; status?: number; code?: string; details?: unknown; streamId?: string; expected?: string; actual?: string } };

const ENTRY = new URL('./sqlite-bulk-entry.mjs', import.meta.url);

export class BulkWriter {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (r: unknown) => void; reject: (e: unknown) => void }>();
  private nextId = 1;

  constructor(file: string, synchronous: 'FULL' | 'NORMAL') {
    this.worker = new Worker(ENTRY, { workerData: { file, synchronous }, execArgv: [] });
    this.worker.unref();
    this.worker.on('message', (answer: BulkAnswer) => {
      const p = this.pending.get(answer.id);
      if (!p) return;
      this.pending.delete(answer.id);
      if ('results' in answer) p.resolve(answer.results);
      else if ('value' in answer) p.resolve(answer.value);
      else p.reject(revive(answer.error));
    });
    const fail = (error: unknown) => {
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the event store's bulk writer stopped (exit code ${code})`)));
  }

  private answer<T>(id: number): Promise<T> {
    return new Promise<T>((resolve, reject) => this.pending.set(id, { resolve: resolve as (r: unknown) => void, reject }));
  }

  async append(appends: PreparedAppend[]): Promise<AppendResult[]> {
    const id = this.nextId++;
    const answer = this.answer<AppendResult[]>(id);
    for (const [index, a] of appends.entries()) {
      for (let i = 0; i < a.events.length; i += EVENTS_PER_MESSAGE) {
        this.worker.postMessage({ kind: 'events', id, append: index, events: a.events.slice(i, i + EVENTS_PER_MESSAGE) } satisfies BulkRequest);
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    this.worker.postMessage({ kind: 'write', id, appends: appends.map((a) => ({ streamId: a.streamId, expectedRevision: a.expectedRevision })) } satisfies BulkRequest);
    return answer;
  }

  /** command-api's StatementStager, run in this thread. */
  stager(): StatementStager {
    return {
      stage: (bytes, options) => {
        const id = this.nextId++;
        const answer = this.answer<StageAnswer>(id);
        // Moved, not copied: the caller hands over bytes of their own.
        const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
        this.worker.postMessage({ kind: 'stage', id, bytes: own, options } satisfies BulkRequest, [own.buffer as ArrayBuffer]);
        return answer;
      },
      decide: async (stage, input) => {
        const id = this.nextId++;
        const answer = this.answer<StageDecided>(id);
        this.worker.postMessage({ kind: 'decide', id, stage, input } satisfies BulkRequest);
        const decided = await answer;
        const events: DomainEvent[] = [];
        for (let i = 0; i < decided.transactionEvents; i++) events.push({ type: 'TransactionsImported', data: new StagedData(stage, i, input.companyId) });
        if (decided.statementImported) events.push({ type: 'StatementImported', data: decided.statementImported });
        return { result: decided.result, events };
      },
      release: (stage) => {
        this.worker.postMessage({ kind: 'release', id: this.nextId++, stage } satisfies BulkRequest);
      },
    };
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

function revive(e: Extract<BulkAnswer, { error: unknown }>['error']): Error {
  if (e.name === 'ConcurrencyError') return new ConcurrencyError(e.streamId!, e.expected!, e.actual!);
  if (e.name === 'ConflictError') return new ConflictError(e.message, e.code, e.details);
  // A parse's refusal (too many rows, not a CSV...): the same status, code, message and details.
  if (e.status !== undefined && e.code !== undefined) {
    const error = new AppError(e.status, e.code, e.message, e.details);
    error.name = e.name;
    return error;
  }
  const error = new Error(e.message);
  error.name = e.name;
  return error;
}
