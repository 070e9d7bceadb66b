import type { Checkpoint, Doc } from '@paperlink/domain';
import { recordKinds } from './sql-filter';
import type { ChangeTracker } from './sqlite-notices';
import type { Table, Tables } from './sqlite-tables';

/** Rows per multi-row INSERT of a commit (writeChunk); two parameters each. */
const INSERT_ROWS = 100;

/**
 * One chunk of a commit's documents (null: deleted) and the checkpoints, as one unit (a savepoint
 * inside the open group transaction). Kept counts of the tables are brought through the change;
 * a tracked group records each document before and after for its commit notice (ADR 0029).
 */
export function writeChunk(tables: Tables, tracker: ChangeTracker | undefined, entries: Array<[Table, string, Doc | null]>, checkpoints: Checkpoint[]): void {
  const counted: Array<[Table, Doc | null, Doc | null]> = [];
  const newKinds = new Set<Table>();
  try {
    tables.db.transaction(() => {
      // Per table (ids are unique within a table's writes, so their order does not matter):
      // the documents before, for kept counts, in one read; deletes; then the documents as
      // multi-row upserts, INSERT_ROWS per statement call (ADR 0027).
      const byTable = new Map<Table, Array<[string, Doc | null]>>();
      for (const [t, id, doc] of entries) {
        let docs = byTable.get(t);
        if (!docs) byTable.set(t, (docs = []));
        docs.push([id, doc]);
      }
      for (const [t, docs] of byTable) {
        t.writes += docs.length;
        // A reader following this writer gets a small commit's documents before and after (ADR 0029).
        const track = tracker?.wants(t.name, docs.length) ?? false;
        if (t.counts.size > 0 || track) {
          const before = tables.readDocs(t, docs.map(([id]) => id));
          for (const [id, doc] of docs) {
            if (t.counts.size > 0) counted.push([t, before.get(id) ?? null, doc]);
            if (track) tracker!.record(t.name, before.get(id) ?? null, doc === null ? null : structuredClone(doc));
          }
        }
        const rows: string[] = [];
        for (const [id, doc] of docs) {
          if (doc === null) {
            tables.stmt(`DELETE FROM ${t.sql} WHERE id = ?`).run(id);
            continue;
          }
          if (recordKinds(doc, t.kinds)) newKinds.add(t);
          rows.push(id, JSON.stringify(doc));
        }
        upsertRows(tables, t, rows);
      }
      for (const t of newKinds) saveKinds(tables, t);
      saveCheckpoints(tables, checkpoints);
    }).immediate();
  } catch (error) {
    for (const [t] of entries) t.counts.clear();
    throw error;
  }
  for (const [t, before, after] of counted) {
    for (const kept of t.counts.values()) kept.n += (after !== null && kept.test(after) ? 1 : 0) - (before !== null && kept.test(before) ? 1 : 0);
  }
}

/** The kinds of a table's paths (sql-filter.ts), after a write that found new ones. Inside a transaction. */
export function saveKinds(tables: Tables, t: Table): void {
  for (const [path, bits] of t.kinds) tables.stmt('INSERT INTO _kinds (coll, path, bits) VALUES (?, ?, ?) ON CONFLICT (coll, path) DO UPDATE SET bits = excluded.bits').run(t.name, path, bits);
}

/** Projectors' checkpoints, with the writes they cover. Inside a transaction. */
export function saveCheckpoints(tables: Tables, checkpoints: Checkpoint[]): void {
  for (const cp of checkpoints) {
    tables.stmt('INSERT INTO _checkpoints (name, version, position) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET version = excluded.version, position = excluded.position').run(cp.name, cp.version, cp.position);
  }
}

/** Documents as [id, JSON, id, JSON, ...]: INSERT_ROWS per statement call, the rest one at a time. Inside a transaction. */
function upsertRows(tables: Tables, t: Table, rows: string[]): void {
  const upsert = (n: number) => tables.stmt(`INSERT INTO ${t.sql} (id, doc) VALUES ${new Array<string>(n).fill('(?, jsonb(?))').join(', ')} ON CONFLICT (id) DO UPDATE SET doc = excluded.doc`);
  const full = 2 * INSERT_ROWS;
  let at = 0;
  if (rows.length >= full) {
    const many = upsert(INSERT_ROWS);
    for (; at + full <= rows.length; at += full) many.run(rows.slice(at, at + full));
  }
  if (at < rows.length) {
    const one = upsert(1);
    for (; at < rows.length; at += 2) one.run(rows[at], rows[at + 1]);
  }
}
