/** The bulk writer thread: its own SqliteEventStore connection, one append at a time; and staged statement imports. */
import { parentPort, workerData } from 'node:worker_threads';
import type { BulkAnswer, BulkRequest, PreparedAppend } from './sqlite-bulk';
import { SqliteEventStore } from './sqlite';
import { StatementStages } from './statement-stage';

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
  try {
    if (message.kind === 'stage') answer = { id, value: stages.stage(message.bytes, message.options) };
    else if (message.kind === 'decide') answer = { id, value: stages.decide(message.stage, message.input) };
    else {
      const lists = received.get(id) ?? [];
      received.delete(id);
      // Held events get their JSON here, from the staged import they belong to.
      const appends = message.appends.map((a, i) => ({ ...a, events: (lists[i] ?? []).map((e) => (e.staged ? { ...e, json: stages.json(e.staged.stage, e.staged.index) } : e)) }));
      answer = { id, results: store.appendPrepared(appends) };
    }
  } catch (error) {
    answer = failure(id, error);
  }
  parentPort!.postMessage(answer);
});
