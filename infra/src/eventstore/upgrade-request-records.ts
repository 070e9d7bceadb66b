import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';

/**
 * Upgrade step for SQLite event stores written before request fingerprints were keyed
 * (docs/decisions/0003-request-fingerprints.md).
 *
 * Old `RequestCompleted` records hold an unsalted SHA-256 of the request's raw body, for
 * sign-ins, sign-ups and password changes too: a digest that can be cracked offline. This
 * drops the fingerprint of every record without a `fingerprintVersion` and marks it version 0
 * (the record stays, so a reuse of its request id is refused rather than run twice), then
 * rebuilds the file (VACUUM) and truncates the WAL so that the old bytes are left neither in
 * free pages nor in the log. Idempotent: a second run finds nothing to rewrite and does not
 * rebuild. Returns how many records it rewrote.
 */
export function upgradeRequestRecords(file: string): number {
  if (!existsSync(file)) return 0;
  const db = new Database(file);
  try {
    const hasEvents = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get();
    if (!hasEvents) return 0;
    const legacy = db
      .prepare<[], { position: number; data: string }>("SELECT position, data FROM events WHERE type = 'RequestCompleted' AND json_extract(data, '$.fingerprintVersion') IS NULL")
      .all();
    if (legacy.length === 0) return 0;
    db.pragma('secure_delete = ON');
    const update = db.prepare<[string, number]>('UPDATE events SET data = ? WHERE position = ?');
    db.transaction(() => {
      for (const row of legacy) {
        const data = JSON.parse(row.data) as Record<string, unknown>;
        delete data.fingerprint;
        data.fingerprintVersion = 0;
        update.run(JSON.stringify(data), row.position);
      }
    })();
    db.exec('VACUUM');
    db.pragma('wal_checkpoint(TRUNCATE)');
    return legacy.length;
  } finally {
    db.close();
  }
}
