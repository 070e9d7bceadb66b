/** The bulk writer thread: its own SqliteEventStore connection, one append at a time. */
import { parentPort, workerData } from 'node:worker_threads';
import type { BulkAnswer, BulkRequest, PreparedAppend } from './sqlite-bulk';
import { SqliteEventStore } from './sqlite';

const { file, synchronous } = workerData as { file: string; synchronous: 'FULL' | 'NORMAL' };
const store = new SqliteEventStore(file, { synchronous });

const received = new Map<number, Array<PreparedAppend['events']>>();

parentPort!.on('message', (message: BulkRequest) => {
  const { id } = message;
  if (message.kind === 'events') {
    let lists = received.get(id);
    if (!lists) received.set(id, (lists = []));
    const list = (lists[message.append] ??= []);
    for (const e of message.events) list.push(e);
    return;
  }
  const lists = received.get(id) ?? [];
  received.delete(id);
  let answer: BulkAnswer;
  try {
    answer = { id, results: store.appendPrepared(message.appends.map((a, i) => ({ ...a, events: lists[i] ?? [] }))) };
  } catch (error) {
    const e = error as Error & { code?: string; details?: unknown; streamId?: string; expected?: string; actual?: string };
    answer = { id, error: { name: e.name, message: e.message, code: e.code, details: e.details, streamId: e.streamId, expected: e.expected, actual: e.actual } };
  }
  parentPort!.postMessage(answer);
});
