/**
 * The statement an import benchmark sends, and the baseline it is measured against (goal:
 * "import of 100,000 rows end to end <= 2x a raw insert of the same rows into SQLite in the same
 * run"). Shared by bench/scale.ts and bench/import-cost.ts so both compare against one baseline.
 *
 * The raw insert (docs/decisions/0027-import-cost.md): the CSV split into rows, each row made a
 * JSON document with a fresh UUID, inserted into one table keyed by that id (`id TEXT PRIMARY
 * KEY, doc TEXT`) with one prepared statement, in one transaction, in WAL with synchronous=FULL
 * (as the event store). That is the least a store of these rows as documents does: the rows, as
 * documents, durable, findable by id. Until 2026-11-24 bench/scale.ts inserted them as typed
 * columns into a rowid table (no document, no key index), a floor no document store reaches.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export interface NamedMember {
  firstName: string;
  lastName: string;
}

/** The import's CSV: rows assigned to members by name (the First Name / Last Name columns), posting days over 300 days of 2026. */
export function statement(rows: number, members: NamedMember[]): Buffer {
  const merchants = ['SQ *BLUE BOTTLE COFFEE', 'SHELL OIL 57442', 'AMAZON MKTPLACE PMTS', 'UBER *TRIP', 'HOME DEPOT #4521', 'DELTA AIR 0062', 'MARRIOTT HOTELS', 'STAPLES 00123'];
  const lines = ['Transaction Date,Description,Amount,Category,Job Number,Cost Code,First Name,Last Name'];
  let s = 99;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let i = 0; i < rows; i++) {
    const day = new Date(Date.UTC(2026, 0, 1) + Math.floor(rand() * 300) * 86_400_000).toISOString().slice(0, 10);
    const m = members[i % members.length]!;
    lines.push(`${day},LOAD ${merchants[i % merchants.length]} ${i},${(-(1 + Math.floor(rand() * 50_000)) / 100).toFixed(2)},${['Travel', 'Meals', 'Fuel', 'Office'][i % 4]},J-${i % 50},0${i % 9}-1${i % 7}00,${m.firstName},${m.lastName}`);
  }
  return Buffer.from(lines.join('\n'));
}

/** The raw insert of the statement's rows (see the header): milliseconds, the database opened and closed included. */
export function rawInsert(csv: Buffer): number {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-raw-insert-'));
  try {
    const t = performance.now();
    const db = new Database(join(dir, 'raw.sqlite'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE tx (id TEXT PRIMARY KEY, doc TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO tx (id, doc) VALUES (?, ?)');
    const lines = csv.toString('utf8').split('\n').slice(1);
    db.transaction(() => {
      for (const line of lines) {
        const c = line.split(',');
        const id = randomUUID();
        const doc = { id, date: c[0], description: c[1], amountCents: Math.round(Number(c[2]) * 100), category: c[3], jobNumber: c[4], costCode: c[5], firstName: c[6], lastName: c[7] };
        insert.run(id, JSON.stringify(doc));
      }
    })();
    db.close();
    return performance.now() - t;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The floor of a read model that lists these rows (ADR 0027, amendment of 2026-12-02): the same
 * rows as transactions documents, inserted with raw SQL into a copy of a projected read-model
 * file's `transactions` table, where every index the lists need is in place (the table's own
 * indexes, as sqlite-indexes.ts declares them), in one transaction, as the raw insert above. No
 * events, no parsing, no projector, no other read model: what SQLite alone spends to keep the rows
 * findable in the lists' orders. Each document takes the shape of one of the importing company's
 * already in the table (its fields, the company's id) with the row's own id, day, description, amount, category and a
 * member of the company in turn. Milliseconds of the insert and its commit; the copy is not timed.
 */
export async function indexedInsert(csv: Buffer, readModelsFile: string, companyId: string, table = 'c_transactions'): Promise<{ ms: number; indexes: number; before: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-indexed-insert-'));
  try {
    const file = join(dir, 'readmodels.sqlite');
    // A page-for-page copy (its B-trees as full as the live file's; what a WAL beside it holds included).
    const src = new Database(readModelsFile, { readonly: true });
    await src.backup(file);
    src.close();
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('cache_size = -131072');
    if (!db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table)) throw new Error(`indexedInsert: no table ${table} in ${readModelsFile}`);
    const indexes = (db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`).get(table) as { n: number }).n;
    const before = (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    // The importing company's own line: every index starts with the company, so where the rows land depends on it.
    const sample = db.prepare(`SELECT json(doc) AS d FROM ${table} WHERE json_extract(doc, '$.companyId') = ? LIMIT 1`).get(companyId) as { d: string } | undefined;
    if (!sample) throw new Error(`indexedInsert: ${table} holds no transaction of company ${companyId} to take the shape of`);
    const template = JSON.parse(sample.d) as Record<string, unknown>;
    const users = (db.prepare(`SELECT DISTINCT json_extract(doc, '$.userId') AS u FROM ${table} WHERE json_extract(doc, '$.companyId') = ? LIMIT 1000`).all(companyId) as Array<{ u: string }>).map((r) => r.u);
    const lines = csv.toString('utf8').split('\n').slice(1);
    const insert = db.prepare(`INSERT INTO ${table} (id, doc) VALUES (?, jsonb(?))`);
    const t = performance.now();
    db.transaction(() => {
      lines.forEach((line, i) => {
        const c = line.split(',');
        const id = randomUUID();
        const amountCents = Math.round(Number(c[2]) * 100);
        const doc = { ...template, _id: id, userId: users[i % users.length], transaction_date: c[0], description: c[1], amountCents, absCents: Math.abs(amountCents), category_name: c[3], job_number_name: c[4], cost_code_name: c[5], receipt_count: 0, receipts: [], row: i + 2 };
        insert.run(id, JSON.stringify(doc));
      });
    })();
    const ms = performance.now() - t;
    db.close();
    return { ms, indexes, before };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
