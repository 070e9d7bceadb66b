/**
 * Counts for the SQLite read store (sqlite-counter.ts, countOffThread) on a read connection of their
 * own, so a count that reads every row of a big collection never holds the request thread.
 * Plain JavaScript: it needs nothing but better-sqlite3.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.file, { readonly: true });
db.pragma('cache_size = -16384');
const statements = new Map();

parentPort.on('message', ({ id, sql, params }) => {
  try {
    let statement = statements.get(sql);
    if (!statement) {
      if (statements.size >= 64) statements.clear();
      statement = db.prepare(sql).pluck();
      statements.set(sql, statement);
    }
    parentPort.postMessage({ id, n: statement.get(...params) });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
