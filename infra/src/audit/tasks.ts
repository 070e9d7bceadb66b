/** The chain walk on a read-only connection of its own (a pool worker, `make verify`, the bench). */
import Database from 'better-sqlite3';
import { verifyChain, type ChainReport } from '../eventstore/chain';

export function verifyChainFile(file: string): ChainReport {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('cache_size = -65536');
    const hashed = db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('events') WHERE name = 'hash'").get();
    if (!hashed) throw new Error('This event store was written by a version without event hashes: start the server once, it adds them (an upgrade step), then verify.');
    // One read transaction: the walk sees one state of the log while appends go on.
    return db.transaction(() => verifyChain(db))();
  } finally {
    db.close();
  }
}
