/**
 * The chain walk on read-only connections of its own (a pool worker, `make verify`, the bench).
 * Each link needs only the stored hash before it, so a long log is checked in ranges side by
 * side, one thread each (up to the machine's cores, at most 4).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { verifyChain, type ChainReport } from '../eventstore/chain';

/** Below this many events one thread does it all (a thread's start costs more than it saves). */
const PARALLEL_FROM = 200_000;
const MAX_THREADS = 4;
const ENTRY = new URL('./verify-entry.mjs', import.meta.url);

function open(file: string): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('cache_size = -65536');
  const hashed = db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('events') WHERE name = 'hash'").get();
  if (!hashed) {
    db.close();
    throw new Error('This event store was written by a version without event hashes: start the server once, it adds them (an upgrade step), then verify.');
  }
  return db;
}

/** Checks the chain (or positions after < p <= until) on this thread. */
export function verifyChainFile(file: string, range: { after: number; until?: number } = { after: 0 }): ChainReport {
  const db = open(file);
  try {
    // One read transaction: the walk sees one state of the log while appends go on.
    return db.transaction(() => verifyChain(db, range))();
  } finally {
    db.close();
  }
}

/** Checks the whole chain, in ranges on several threads when the log is long. */
export async function verifyChainParallel(file: string, options: { threads?: number; parallelFrom?: number } = {}): Promise<ChainReport> {
  const threads = options.threads ?? Math.min(availableParallelism(), MAX_THREADS);
  const started = performance.now();
  const db = open(file);
  const head = db.prepare<[], { position: number | null }>('SELECT MAX(position) AS position FROM events').get()?.position ?? 0;
  db.close();
  if (threads <= 1 || head < (options.parallelFrom ?? PARALLEL_FROM)) return verifyChainFile(file);
  const size = Math.ceil(head / threads);
  const ranges = Array.from({ length: threads }, (_, i) => ({ after: i * size, until: Math.min(head, (i + 1) * size) }));
  const inThread = (range: { after: number; until: number }) =>
    new Promise<ChainReport>((resolve, reject) => {
      const worker = new Worker(ENTRY, { workerData: { file, range }, execArgv: [] });
      worker.once('message', (report: ChainReport) => resolve(report));
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`chain check thread stopped (exit code ${code})`)));
    });
  const others = ranges.slice(1).map(inThread);
  // This thread takes the first range while the others run.
  const reports = [verifyChainFile(file, ranges[0]!), ...(await Promise.all(others))];
  let checked = 0;
  for (const report of reports) {
    checked += report.checked;
    if (!report.ok) return { ...report, checked, ms: Math.round(performance.now() - started) };
  }
  return { ok: true, checked, head: reports.at(-1)!.head, ms: Math.round(performance.now() - started) };
}
