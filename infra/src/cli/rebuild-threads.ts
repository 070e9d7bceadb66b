import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { allProjections, GenerationalReadStore, rebuildInBulk, type BulkRebuildResult, type RebuildProgress } from '@paperlink/projections';
import { SqliteEventStore } from '../eventstore/sqlite';
import { SqliteReadStore } from '../readstore/sqlite';
import { listIndexes } from '../readstore/sqlite-indexes';

/**
 * `make rebuild` on several threads (ADR 0028, second round): the projections fall into groups,
 * each rebuilt in bulk (rebuildInBulk) on a thread of its own with its own connections to the
 * event log and the read models, so one group's projections run while another's flush is
 * written or its indexes built. Projections share no collection (each rebuilds alone, tested),
 * so groups need nothing from each other; they take turns for SQLite's one write lock.
 *
 * The groups: transactions alone, the others together. Measured at 250,000 transactions
 * (bench/rebuild-cost.ts, one core each): transactions' projector is cheap (2.7 s of CPU) but it
 * writes half the documents (516,005) and every list index (5.2 of the 5.7 s of index builds);
 * the others' projectors take 10.5 s (analytics 8.1). Analytics alone on the second thread was
 * as fast at that size (25.5 s against 32.4 on one thread; transactions alone 24.0 against
 * 30.1), but left the index builds, which grow fastest with size, behind every other projector.
 * Each group reads the whole log (2.5-3 s at 250,000): more threads than groups would not
 * help, and with one core one group runs as before.
 */
export const OWN_THREAD: string[][] = [['transactions']];

/** A statement waits this long for another group's write lock (a flush or an index build: seconds each at a million rows). */
const BUSY_MS = 10 * 60_000;

/** The projections' names in groups for `threads` threads (the first group: every projection no other group names). */
export function rebuildGroups(threads: number, names: string[] = allProjections().map((p) => p.name)): string[][] {
  if (threads < 2) return [names];
  const own = OWN_THREAD.slice(0, threads - 1).map((g) => g.filter((n) => names.includes(n))).filter((g) => g.length > 0);
  const taken = new Set(own.flat());
  return [names.filter((n) => !taken.has(n)), ...own].filter((g) => g.length > 0);
}

/** Threads for `make rebuild`: REBUILD_THREADS, else one per core up to the groups there are. */
export function rebuildThreads(env: NodeJS.ProcessEnv = process.env): number {
  const asked = env.REBUILD_THREADS;
  if (asked === undefined || asked === '') return Math.min(availableParallelism(), OWN_THREAD.length + 1);
  const n = Number(asked);
  if (!Number.isInteger(n) || n < 1) throw new Error(`REBUILD_THREADS must be a whole number of at least 1 (got "${asked}")`);
  return n;
}

/** REBUILD_FLUSH_DOCS: documents held in memory per thread between flushes (default: rebuildInBulk's). */
export function rebuildFlushDocs(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const asked = env.REBUILD_FLUSH_DOCS;
  if (asked === undefined || asked === '') return undefined;
  const n = Number(asked);
  if (!Number.isInteger(n) || n < 1) throw new Error(`REBUILD_FLUSH_DOCS must be a whole number of at least 1 (got "${asked}")`);
  return n;
}

export interface RebuildGroupData {
  eventsFile: string;
  readModelsFile: string;
  projections: string[];
  /** Documents per flush (tests: small, to cross many flushes). */
  flushDocs?: number;
}

/** One group's rebuild on this thread, through connections of its own. */
export async function rebuildGroup(data: RebuildGroupData, onProgress?: (p: RebuildProgress) => void): Promise<BulkRebuildResult> {
  const events = new SqliteEventStore(data.eventsFile);
  const inner = new SqliteReadStore(data.readModelsFile, { extraIndexes: listIndexes(), busyTimeoutMs: BUSY_MS });
  try {
    const store = await GenerationalReadStore.open(inner, allProjections());
    const chosen = allProjections().filter((p) => data.projections.includes(p.name));
    return await rebuildInBulk(events, store, chosen, { onProgress, flushDocs: data.flushDocs });
  } finally {
    await inner.close();
    await events.close();
  }
}

export type FromRebuildThread =
  | { kind: 'progress'; progress: RebuildProgress }
  | { kind: 'done'; result: BulkRebuildResult }
  | { kind: 'failed'; error: string };

const ENTRY = new URL('./rebuild-entry.mjs', import.meta.url);

export interface ThreadedRebuildResult {
  events: number;
  ms: number;
  /** Each group's projections and its own result (the first ran on this thread). */
  groups: Array<{ projections: string[]; result: BulkRebuildResult }>;
}

/**
 * Every group at once: the first on this thread, the others on worker threads. Progress is the
 * slowest group's. A group that fails stops the others; read models and checkpoints stay at each
 * group's last flush, and the next start goes on from there (as a stopped single rebuild).
 */
export async function rebuildInThreads(
  files: { eventsFile: string; readModelsFile: string },
  groups: string[][],
  options: { onProgress?: (p: RebuildProgress) => void; flushDocs?: number } = {},
): Promise<ThreadedRebuildResult> {
  const started = performance.now();
  const latest: Array<RebuildProgress | undefined> = groups.map(() => undefined);
  const report = (i: number, p: RebuildProgress) => {
    latest[i] = p;
    if (latest.some((l) => l === undefined)) return;
    const slowest = latest.reduce((a, b) => (b!.position < a!.position ? b : a))!;
    options.onProgress?.(slowest);
  };
  const workers: Worker[] = [];
  const others = groups.slice(1).map((projections, k) => new Promise<BulkRebuildResult>((resolve, reject) => {
    const data: RebuildGroupData = { ...files, projections, flushDocs: options.flushDocs };
    const worker = new Worker(ENTRY, { workerData: data, execArgv: [] });
    workers.push(worker);
    let settled = false;
    worker.on('message', (m: FromRebuildThread) => {
      if (m.kind === 'progress') report(k + 1, m.progress);
      else if (m.kind === 'done') {
        settled = true;
        resolve(m.result);
      } else {
        settled = true;
        reject(new Error(`rebuild of ${projections.join(', ')}: ${m.error}`));
      }
    });
    worker.on('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.on('exit', (code) => {
      if (!settled) reject(new Error(`the rebuild thread of ${projections.join(', ')} stopped (exit code ${code})`));
    });
  }));
  // This thread's group stops at its next page once another has failed (an error from its progress callback).
  let failed: unknown;
  const first = rebuildGroup({ ...files, projections: groups[0]!, flushDocs: options.flushDocs }, (p) => {
    if (failed !== undefined) throw failed;
    report(0, p);
  });
  try {
    const results = await Promise.all([first, ...others]);
    return { events: Math.max(...results.map((r) => r.events)), ms: performance.now() - started, groups: groups.map((projections, i) => ({ projections, result: results[i]! })) };
  } catch (error) {
    failed = error;
    await Promise.allSettled(workers.map((w) => w.terminate()));
    await first.catch(() => undefined);
    throw error;
  }
}
