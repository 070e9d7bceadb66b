/**
 * The projector thread (PROJECTOR=thread, ADR 0008): every projection runs here, on its own
 * connections to the event log and the read models, so the request thread only appends, reads
 * and answers. It is the only writer of the read models; it tells the request thread after
 * every commit (which then reads the new checkpoints and so ends read-your-writes waits).
 * The reactors run here as well; their jobs run in the request thread's job queue.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { allProjections, GenerationalReadStore, ProjectionRunner } from '@paperlink/projections';
import { SqliteEventStore } from '../eventstore/sqlite';
import { BULK_GROUPS, SqliteReadStore } from '../readstore/sqlite';
import { listIndexes } from '../readstore/sqlite-indexes';
import { Reactor } from '../jobs/reactor';
import { allReactions } from '../reactions';
import type { FromProjector, ProjectorData, ToProjector } from './protocol';
import type { Job, JobQueue } from '@paperlink/domain';

const port = parentPort;
if (!port) throw new Error('thread.ts runs in a worker thread');
// At the request thread's priority (nice 0), above OCR and parsing (nice 10): at nice 5 on the
// shared 2-core machine the read models fell twice as far behind an import (listed after 122 s
// instead of 55 s) for no better answer times; each thread has its own core when two are free.

const { eventsFile, readModelsFile } = workerData as ProjectorData;
const post = (message: FromProjector) => port.postMessage(message);
const events = new SqliteEventStore(eventsFile);
// Its commits never run on the request thread: a bulk flow (an import's rows) may keep its group open longer (ADR 0027 amendment).
const inner = new SqliteReadStore(readModelsFile, { extraIndexes: listIndexes(), ...BULK_GROUPS });
const projections = allProjections();
let runner: ProjectionRunner | undefined;
let store: GenerationalReadStore | undefined;
/** The head this thread commits at once when it reaches (see commitWhenCaughtUp). */
let target = 0;
let reportedFailure = false;
const reactors: Reactor[] = [];

/**
 * The reactors run here too: they read every event of the log (an import's 30 MB of rows, parsed
 * twice on the request thread before) and submit the jobs events call for to the request
 * thread's job queue, whose answer (settled) moves their checkpoints, written here.
 */
const settling = new Map<number, (result: 'done' | 'failed') => void>();
let nextJob = 1;
const requestThreadJobs: JobQueue = {
  kind: 'request-thread',
  register() {
    throw new Error('jobs are registered on the request thread');
  },
  submit(job: Job) {
    const id = nextJob++;
    post({ kind: 'job', id, job });
    return new Promise((resolve) => settling.set(id, resolve));
  },
  pending: () => settling.size,
  close: async () => {},
};

// Each commit says what it changed, so the request thread keeps its counts and page anchors (ADR 0029).
inner.trackChanges();
inner.onCommitted = (notice) => post({ kind: 'committed', rebuilds: runner?.rebuilds() ?? [], ...(notice ? { notice } : {}) });

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
  } else if (message.kind === 'settled') {
    const resolve = settling.get(message.id);
    settling.delete(message.id);
    resolve?.(message.result);
  } else if (message.kind === 'reactors') {
    void started.then(async () => {
      reactors.push(...allReactions.map((r) => new Reactor(r.name, events, store!, requestThreadJobs, r.jobsFrom)));
      for (const r of reactors) await r.start();
    }).catch((error: unknown) => console.error('projector thread: reactors did not start:', error));
  } else if (message.kind === 'stopReactors') {
    void (async () => {
      for (const r of reactors.splice(0)) await r.stop();
    })().catch((error: unknown) => console.error('projector thread: stopping the reactors:', error)).finally(() => post({ kind: 'reactorsStopped' }));
  } else {
    void (async () => {
      clearInterval(watch);
      await started.catch(() => undefined);
      for (const r of reactors.splice(0)) await r.stop();
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
