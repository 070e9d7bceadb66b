/** One group of a threaded `make rebuild` (rebuild-threads.ts), on a worker thread. */
import { parentPort, workerData } from 'node:worker_threads';
import { rebuildGroup, type FromRebuildThread, type RebuildGroupData } from './rebuild-threads';

const port = parentPort;
if (!port) throw new Error('rebuild-thread.ts runs in a worker thread');
const post = (m: FromRebuildThread) => port.postMessage(m);
try {
  const result = await rebuildGroup(workerData as RebuildGroupData, (progress) => post({ kind: 'progress', progress }));
  post({ kind: 'done', result });
} catch (error) {
  post({ kind: 'failed', error: error instanceof Error ? error.message : String(error) });
}
