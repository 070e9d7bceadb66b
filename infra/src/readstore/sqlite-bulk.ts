import type Database from 'better-sqlite3';
import type { Checkpoint, WriteSet } from '@paperlink/domain';
import { recordKinds } from './sql-filter';
import type { Tables } from './sqlite-tables';
import { saveCheckpoints, saveKinds } from './sqlite-writes';

/** Rows per INSERT statement (two parameters each; SQLite allows 32,766 parameters). */
const ROWS_PER_STATEMENT = 200;
/** Ids per DELETE statement. */
const IDS_PER_STATEMENT = 500;

/**
 * Writes of a bulk load (SqliteReadStore.bulkLoad, docs/decisions/0028-rebuild-cost.md): rows into a
 * collection's table as multi-row `INSERT OR REPLACE ... VALUES (?, jsonb(?)), ...` statements,
 * prepared once per table and row count, in `_id` order (the primary key's index is then
 * appended to, page after page, instead of updated at random places). One statement call per
 * ROWS_PER_STATEMENT rows: the cost of a call through better-sqlite3 (binding, stepping, the
 * trip from JavaScript) is paid once per 200 documents instead of once per document.
 */
export class BulkRows {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  private statement(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  /**
   * A bulk load (ADR 0028): writes and checkpoints in one transaction of multi-row statements,
   * for collections a rebuild fills from empty that no one reads meanwhile (`make rebuild` holds
   * the data folder; a blue-green generation is not live yet). Documents replace those with the
   * same id; kept counts and page cursors of the tables are dropped, not maintained.
   */
  load(tables: Tables, writes: WriteSet, checkpoints: Checkpoint[]): void {
    // The documents' JSON and their order first, outside the transaction: the write lock is held
    // for the inserts only (a rebuild's other thread waits for it; ADR 0028 amendment).
    const loads = [...writes].map(([name, docs]) => {
      const t = tables.get(name);
      const rows: Array<[string, string]> = [];
      const gone: string[] = [];
      let newKinds = false;
      for (const [id, doc] of docs) {
        if (doc === null) {
          gone.push(id);
          continue;
        }
        if (recordKinds(doc, t.kinds)) newKinds = true;
        rows.push([id, JSON.stringify(doc)]);
      }
      BulkRows.sortRows(rows);
      return { t, rows, gone, newKinds };
    });
    this.db.transaction(() => {
      for (const { t, rows, gone, newKinds } of loads) {
        t.writes++;
        t.counts.clear();
        t.cursors.clear();
        if (gone.length > 0) this.delete(t.sql, gone);
        this.insert(t.sql, rows);
        if (newKinds) saveKinds(tables, t);
      }
      saveCheckpoints(tables, checkpoints);
    }).immediate();
  }

  /** Forgets the statements of a table (it was dropped: they are invalid). */
  forget(table: string): void {
    for (const sql of this.statements.keys()) if (sql.includes(table)) this.statements.delete(sql);
  }

  /** Sorts rows by id in place, the order insert takes them in (done before the transaction: no lock held meanwhile). */
  static sortRows(rows: Array<[string, string]>): void {
    rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }

  /** `rows` as [id, JSON text], sorted by id (sortRows). Must run inside a transaction. */
  insert(table: string, rows: Array<[string, string]>): void {
    const full = ROWS_PER_STATEMENT;
    const params: string[] = new Array(full * 2);
    let at = 0;
    for (; at + full <= rows.length; at += full) {
      for (let i = 0; i < full; i++) {
        const row = rows[at + i]!;
        params[2 * i] = row[0];
        params[2 * i + 1] = row[1];
      }
      this.statement(insertSql(table, full)).run(params);
    }
    // The rest one by one (a statement per leftover count would be prepared for every size).
    const one = at < rows.length ? this.statement(insertSql(table, 1)) : undefined;
    for (; at < rows.length; at++) one!.run(rows[at]![0], rows[at]![1]);
  }

  /** Deletes rows by id. Must run inside a transaction. */
  delete(table: string, ids: string[]): void {
    for (let at = 0; at < ids.length; at += IDS_PER_STATEMENT) {
      const part = ids.slice(at, at + IDS_PER_STATEMENT);
      this.statement(`DELETE FROM ${table} WHERE id IN (${part.map(() => '?').join(', ')})`).run(part);
    }
  }
}

function insertSql(table: string, rows: number): string {
  return `INSERT OR REPLACE INTO ${table} (id, doc) VALUES ${new Array<string>(rows).fill('(?, jsonb(?))').join(', ')}`;
}
