/** The bulk writer thread: its own SqliteEventStore connection, one append at a time; and staged statement imports. */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { BulkAnswer, BulkRequest, PreparedAppend } from './sqlite-bulk';
import { SqliteEventStore } from './sqlite';
import { StatementStages } from './statement-stage';

// Lower priority (nice 10, this thread only on Linux), as the pool's workers: a staged import's
// parse and decision (seconds of CPU) and a large append never take a core from the request thread.
try {
  setPriority(10);
} catch {
  // not permitted or not supported: normal priority
}

const { file, synchronous } = workerData as { file: string; synchronous: 'FULL' | 'NORMAL' };
const store = new SqliteEventStore(file, { synchronous });
const stages = new StatementStages();

const received = new Map<number, Array<PreparedAppend['events']>>();

function failure(id: number, error: unknown): BulkAnswer {
  const e = error as Error & { status?: number; code?: string; details?: unknown; streamId?: string; expected?: string; actual?: string };
  let details = e.details;
  try {
    structuredClone(details);
  } catch {
    details = undefined;
  }
  return { id, error: { name: e.name, message: e.message, status: typeof e.status === 'number' ? e.status : undefined, code: e.code, details, streamId: e.streamId, expected: e.expected, actual: e.actual } };
}

parentPort!.on('message', (message: BulkRequest) => {
  const { id } = message;
  if (message.kind === 'events') {
    let lists = received.get(id);
    if (!lists) received.set(id, (lists = []));
    const list = (lists[message.append] ??= []);
    for (const e of message.events) list.push(e);
    return;
  }
  if (message.kind === 'release') {
    stages.release(message.stage);
    return;
  }
  let answer: BulkAnswer;
  /** Staged statements whose events this append wrote. */
  const written = new Set<number>();
  try {
    if (message.kind === 'stage') answer = { id, value: stages.stage(message.bytes, message.options) };
    else if (message.kind === 'decide') answer = { id, value: stages.decide(message.stage, message.input) };
    else {
      const lists = received.get(id) ?? [];
      received.delete(id);
      // Held events get their JSON here, from the staged import they belong to.
      const appends = message.appends.map((a, i) => ({ ...a, events: (lists[i] ?? []).map((e) => (e.staged ? { ...e, json: stages.json(e.staged.stage, e.staged.index) } : e)) }));
      answer = { id, results: store.appendPrepared(appends) };
      for (const list of lists) for (const e of list) if (e.staged) written.add(e.staged.stage);
    }
  } catch (error) {
    answer = failure(id, error);
  }
  // Written: nothing asks for these statements again (a plan is decided again only after an
  // append that failed), so their rows and JSON go now, not at the request's answer, which
  // waits for the projections (they once overlapped the projection's own peak). Dropped
  // before the answer is posted (dropped after it, a request that the answer let through could
  // still find the statement: it did once in CI); the heap's collection after this turn, so that
  // it finds nothing of the append still referenced.
  for (const stage of written) stages.release(stage, (collect) => setImmediate(collect));
  parentPort!.postMessage(answer);
});
