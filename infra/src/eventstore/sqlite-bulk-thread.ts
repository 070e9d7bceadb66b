/** The bulk writer thread: its own SqliteEventStore connection, one append at a time. */
import { parentPort, workerData } from 'node:worker_threads';
import type { BulkAnswer, BulkRequest } from './sqlite-bulk';
import { SqliteEventStore } from './sqlite';

const { file, synchronous } = workerData as { file: string; synchronous: 'FULL' | 'NORMAL' };
const store = new SqliteEventStore(file, { synchronous });

parentPort!.on('message', ({ id, appends }: BulkRequest) => {
  let answer: BulkAnswer;
  try {
    answer = { id, results: store.appendPrepared(appends) };
  } catch (error) {
    const e = error as Error & { code?: string; details?: unknown; streamId?: string; expected?: string; actual?: string };
    answer = { id, error: { name: e.name, message: e.message, code: e.code, details: e.details, streamId: e.streamId, expected: e.expected, actual: e.actual } };
  }
  parentPort!.postMessage(answer);
});
