/**
 * The projector thread (PROJECTOR=thread, ADR 0008): every projection runs here, on its own
 * connections to the event log and the read models, so the request thread only appends, reads
 * and answers. It is the only writer of the read models; it tells the request thread after
 * every commit (which then reads the new checkpoints and so ends read-your-writes waits).
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { allProjections, GenerationalReadStore, ProjectionRunner } from '@paperlink/projections';
import { SqliteEventStore } from '../eventstore/sqlite';
import { SqliteReadStore } from '../readstore/sqlite';
import { listIndexes } from '../readstore/sqlite-indexes';
import type { FromProjector, ProjectorData, ToProjector } from './protocol';

const port = parentPort;
if (!port) throw new Error('thread.ts runs in a worker thread');
// Below the request thread (nice 5, this thread only on Linux), above OCR and parsing (nice 10).
try {
  setPriority(5);
} catch {
  // not permitted or not supported: normal priority
}

const { eventsFile, readModelsFile } = workerData as ProjectorData;
const post = (message: FromProjector) => port.postMessage(message);
const events = new SqliteEventStore(eventsFile);
const inner = new SqliteReadStore(readModelsFile, { extraIndexes: listIndexes() });
const projections = allProjections();
let runner: ProjectionRunner | undefined;
let store: GenerationalReadStore | undefined;
/** The head this thread commits at once when it reaches (see commitWhenCaughtUp). */
let target = 0;
let reportedFailure = false;

inner.onCommitted = () => post({ kind: 'committed', rebuilds: runner?.rebuilds() ?? [] });

/**
 * The read store groups commits for up to 200 ms (fewer log writes during an import); once the
 * projections have reached the head of the log the group is committed at once, so a request
 * waiting for its own write is answered without that delay.
 */
async function commitWhenCaughtUp(): Promise<void> {
  const head = await events.headPosition();
  if (!runner || !store || head <= target) return;
  target = head;
  if (await runner.waitFor(head, 60_000)) await store.flush();
}

function checkFailure(): void {
  if (reportedFailure || runner?.failed === undefined) return;
  reportedFailure = true;
  const error = runner.failed;
  post({ kind: 'failed', error: error instanceof Error ? error.message : String(error) });
}

const started = (async () => {
  store = await GenerationalReadStore.open(inner, projections);
  runner = new ProjectionRunner(events, store, projections);
  await runner.start();
  await store.flush();
  post({ kind: 'ready', rebuilds: runner.rebuilds() });
})();
const watch = setInterval(checkFailure, 200);

port.on('message', (message: ToProjector) => {
  if (message.kind === 'appended') {
    events.wake();
    void started.then(commitWhenCaughtUp).then(checkFailure, (error: unknown) => console.error('projector thread:', error));
  } else if (message.kind === 'checkpoints') {
    inner.commit(new Map(), message.checkpoints).catch((error: unknown) => console.error('reactor checkpoint failed:', error));
  } else {
    void (async () => {
      clearInterval(watch);
      await started.catch(() => undefined);
      await runner?.stop();
      await store?.close();
      await events.close();
      post({ kind: 'stopped' });
    })().catch((error: unknown) => {
      console.error('projector thread stop:', error);
      post({ kind: 'stopped' });
    });
  }
});

started.catch((error: unknown) => {
  clearInterval(watch);
  post({ kind: 'failed', error: error instanceof Error ? error.message : String(error) });
});
