/**
 * The bulk writer of the SQLite event store: a thread with its own connection to the same file
 * that runs large appends (an import of 200,000 rows is 30 MB of events and an fsync), so the
 * request thread only waits for the answer. Same transaction, same checks, same durability
 * (WAL, synchronous=FULL); SQLite's lock orders it with the request thread's own appends.
 */
import { Worker } from 'node:worker_threads';
import { ConcurrencyError, ConflictError, type AppendResult, type EventMetadata, type ExpectedRevision } from '@paperlink/domain';

export interface PreparedAppend {
  streamId: string;
  expectedRevision: ExpectedRevision;
  events: Array<{ id: string; type: string; metadata: EventMetadata; json: string }>;
}

/**
 * An append travels as its events in slices (a turn of the request thread's event loop
 * between them: copying 30 MB of JSON into one message held it for a third of a second), then
 * the order to write them.
 */
export type BulkRequest =
  | { kind: 'events'; id: number; append: number; events: PreparedAppend['events'] }
  | { kind: 'write'; id: number; appends: Array<Omit<PreparedAppend, 'events'>> };
const EVENTS_PER_MESSAGE = 8;
export type BulkAnswer =
  | { id: number; results: AppendResult[] }
  | { id: number; error: { name: string; message: string; code?: string; details?: unknown; streamId?: string; expected?: string; actual?: string } };

const ENTRY = new URL('./sqlite-bulk-entry.mjs', import.meta.url);

export class BulkWriter {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (r: AppendResult[]) => void; reject: (e: unknown) => void }>();
  private nextId = 1;

  constructor(file: string, synchronous: 'FULL' | 'NORMAL') {
    this.worker = new Worker(ENTRY, { workerData: { file, synchronous }, execArgv: [] });
    this.worker.unref();
    this.worker.on('message', (answer: BulkAnswer) => {
      const p = this.pending.get(answer.id);
      if (!p) return;
      this.pending.delete(answer.id);
      if ('results' in answer) p.resolve(answer.results);
      else p.reject(revive(answer.error));
    });
    const fail = (error: unknown) => {
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the event store's bulk writer stopped (exit code ${code})`)));
  }

  async append(appends: PreparedAppend[]): Promise<AppendResult[]> {
    const id = this.nextId++;
    const answer = new Promise<AppendResult[]>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    for (const [index, a] of appends.entries()) {
      for (let i = 0; i < a.events.length; i += EVENTS_PER_MESSAGE) {
        this.worker.postMessage({ kind: 'events', id, append: index, events: a.events.slice(i, i + EVENTS_PER_MESSAGE) } satisfies BulkRequest);
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    this.worker.postMessage({ kind: 'write', id, appends: appends.map((a) => ({ streamId: a.streamId, expectedRevision: a.expectedRevision })) } satisfies BulkRequest);
    return answer;
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

function revive(e: Extract<BulkAnswer, { error: unknown }>['error']): Error {
  if (e.name === 'ConcurrencyError') return new ConcurrencyError(e.streamId!, e.expected!, e.actual!);
  if (e.name === 'ConflictError') return new ConflictError(e.message, e.code, e.details);
  const error = new Error(e.message);
  error.name = e.name;
  return error;
}
