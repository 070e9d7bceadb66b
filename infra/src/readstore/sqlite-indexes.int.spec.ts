/**
 * The indexes an existing readmodels.sqlite holds are named by a hash of their fields
 * (SqliteReadStore: `ix_` + sha1 of the format, the collection and the fields): a declaration
 * whose fields change, even in order, builds a new index and leaves the old one behind, and a
 * data folder pays an index build per changed name at its next start. These are the names the
 * projections' declarations (with their list orders) give; a change to them is a decision.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { allProjections } from '@paperlink/projections';
import { SqliteReadStore } from './sqlite';
import { listIndexes } from './sqlite-indexes';

const dir = mkdtempSync(join(tmpdir(), 'paperlink-rs-indexes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BUILT: Record<string, string[]> = {
  c_ai_dismissed_pairs: ['ix_193ddc3a685f'],
  c_ai_duplicate_groups: ['ix_076474d689fb', 'ix_e57db893b948'],
  c_ai_feedback: ['ix_5c29ba761267', 'ix_cd3b6054b6b6'],
  c_calendar_events: ['ix_6d698d57383c', 'ix_f4b1e5d650b9'],
  c_calendars: ['ix_e8ce6111ec5a'],
  c_master_items: ['ix_9bd118961f82'],
  c_matches: ['ix_0beb78273c64', 'ix_4df94c249167', 'ix_4fec40afc2bd', 'ix_a5d1dbd9fc7c', 'ix_e5fd96687a5f'],
  c_memberships: ['ix_88f07def8292', 'ix_8ed290dcb45d'],
  c_merchant_date_orders: ['ix_070b47097a03'],
  c_receipts: ['ix_0335c874b85d', 'ix_198e4f088f37', 'ix_4721a89f5976', 'ix_477ae790ba5b', 'ix_552856e5d634', 'ix_5eea5f0a5802', 'ix_79e0bfb6d2d3', 'ix_9a1e7c5064fa'],
  c_sessions: ['ix_d77cd3713af3'],
  c_transactions: ['ix_1fbee79fff35', 'ix_47594a9f27c7', 'ix_4d5905ad6204', 'ix_a2099827d90e', 'ix_aa9276e66cee', 'ix_b6cd8caa7d52', 'ix_eb8425058d5f', 'ix_f0434c4b2276'],
  c_users: ['ix_8d33ef854150'],
};

/** The store as the product opens it, with every projection's indexes ensured. */
async function open(file: string): Promise<SqliteReadStore> {
  const store = new SqliteReadStore(file, { extraIndexes: listIndexes() });
  for (const p of allProjections()) for (const [collection, indexes] of Object.entries(p.collections)) await store.ensureIndexes(collection, indexes);
  return store;
}

function built(file: string): { indexes: Record<string, string[]>; sql: string[] } {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare("SELECT tbl_name AS t, name, sql FROM sqlite_master WHERE type = 'index' AND name LIKE 'ix_%' ORDER BY tbl_name, name").all() as Array<{ t: string; name: string; sql: string }>;
    const indexes: Record<string, string[]> = {};
    for (const r of rows) (indexes[r.t] ??= []).push(r.name);
    return { indexes, sql: rows.map((r) => r.sql) };
  } finally {
    db.close();
  }
}

describe('the indexes of the SQLite read store', () => {
  it('are declared by the projection that owns each collection', () => {
    for (const p of allProjections()) for (const collection of Object.keys(p.listIndexes ?? {})) expect(Object.keys(p.collections), `${p.name}: ${collection}`).toContain(collection);
    expect(Object.keys(listIndexes()).sort()).toEqual(['receipts', 'transactions']);
  });

  it('are the ones existing data folders were built with, and a reopened folder builds and drops none', async () => {
    const file = join(dir, 'readmodels.sqlite');
    await (await open(file)).close();
    const first = built(file);
    expect(first.indexes).toEqual(BUILT);
    await (await open(file)).close();
    expect(built(file)).toEqual(first);
  });
});
