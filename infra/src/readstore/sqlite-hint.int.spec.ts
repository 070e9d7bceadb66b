/**
 * FindOptions.hint on the SQLite read store: a query that names its index by fields is read by
 * that index (the planner without statistics chose the posting-day index for a window of days x
 * amounts and read every line of the days), the answer never changes, and a hint the table has
 * no index for is ignored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { Doc, Filter } from '@paperlink/domain';
import { companyPeriod, TRANSACTIONS, transactionsProjection } from '@paperlink/projections';
import { SqliteReadStore } from './sqlite';
import { listIndexes } from './sqlite-indexes';

const dir = mkdtempSync(join(tmpdir(), 'paperlink-rs-hint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const BY_DAY_AND_AMOUNT = ['companyId', 'transaction_date', 'amountCents'];

describe('a query that names its index (hint)', () => {
  it('is read by that index, with the same answer as without it', async () => {
    const file = join(dir, 'hint.sqlite');
    const store = new SqliteReadStore(file, { extraIndexes: listIndexes() });
    for (const [collection, indexes] of Object.entries(transactionsProjection.collections)) await store.ensureIndexes(collection, indexes);
    const docs = new Map<string, Doc | null>();
    for (let i = 0; i < 4000; i++) {
      const id = `t${String(i).padStart(5, '0')}`;
      docs.set(id, { _id: id, companyId: i % 10 === 0 ? 'other' : 'c1', userId: `u${i % 7}`, transaction_date: `2024-03-${String(1 + (i % 28)).padStart(2, '0')}`, amountCents: -((i * 7919) % 20_000), description: `shop ${i % 13}` });
    }
    await store.commit(new Map([[TRANSACTIONS, docs]]), []);
    const filter: Filter = { companyId: 'c1', amountCents: { $gte: -6000, $lte: -4000 }, transaction_date: { $gte: '2024-03-05', $lte: '2024-03-11' } };

    const db = new Database(file, { readonly: true });
    const index = (db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'c_transactions'").all() as Array<{ name: string; sql: string }>)
      .find((i) => /transaction_date'\), json_extract\(doc, '\$\.amountCents'\)/.test(i.sql));
    db.close();
    expect(index, 'the transactions projection declares the (companyId, transaction_date, amountCents) index').toBeDefined();
    expect(transactionsProjection.collections[TRANSACTIONS]).toContainEqual(BY_DAY_AND_AMOUNT);
    expect(store.plan(TRANSACTIONS, filter, { hint: BY_DAY_AND_AMOUNT })!.join('\n')).toMatch(new RegExp(`USING (COVERING )?INDEX ${index!.name} `));

    const ids = (d: Doc[]) => d.map((x) => x._id).sort();
    const expected = [...docs.values()].filter((d): d is Doc => {
      const t = d as unknown as { companyId: string; amountCents: number; transaction_date: string };
      return t.companyId === 'c1' && t.amountCents >= -6000 && t.amountCents <= -4000 && t.transaction_date >= '2024-03-05' && t.transaction_date <= '2024-03-11';
    });
    expect(expected.length).toBeGreaterThan(20);
    const c = store.collection(TRANSACTIONS);
    expect(ids(await c.find(filter, { hint: BY_DAY_AND_AMOUNT }))).toEqual(ids(expected));
    expect(ids(await c.find(filter))).toEqual(ids(expected));
    // Paged with a hint, and a hint of an index the collection does not have: the same rows.
    expect(ids(await c.find(filter, { hint: BY_DAY_AND_AMOUNT, limit: 1000 }))).toEqual(ids(expected));
    expect(ids(await c.find(filter, { hint: ['companyId', 'nothing'] }))).toEqual(ids(expected));
    // A hint whose index cannot answer the filter (another field first) falls back to the planner.
    expect(ids(await c.find({ userId: 'u3', companyId: 'c1' }, { hint: BY_DAY_AND_AMOUNT }))).toEqual(ids([...docs.values()].filter((d): d is Doc => (d as { userId?: string; companyId?: string }).userId === 'u3' && (d as { companyId?: string }).companyId === 'c1')));
    await store.close();
  });

  it("reads a company's period (first and last posting day) from the posting-day index, not by sorting its lines", async () => {
    const store = new SqliteReadStore(join(dir, 'period.sqlite'), { extraIndexes: listIndexes() });
    for (const [collection, indexes] of Object.entries(transactionsProjection.collections)) await store.ensureIndexes(collection, indexes);
    const docs = new Map<string, Doc | null>();
    for (let i = 0; i < 3000; i++) {
      const id = `t${i}`;
      docs.set(id, { _id: id, companyId: i % 3 === 0 ? 'other' : 'c1', userId: 'u1', transaction_date: `20${16 + (i % 5)}-0${1 + (i % 9)}-1${i % 10}`, amountCents: -100, description: 'shop' });
    }
    await store.commit(new Map([[TRANSACTIONS, docs]]), []);
    const mine = [...docs.values()].map((d) => d as unknown as { companyId: string; transaction_date: string }).filter((d) => d.companyId === 'c1').map((d) => d.transaction_date).sort();
    expect(await companyPeriod(store, 'c1')).toEqual({ from: mine[0], to: mine[mine.length - 1] });
    expect(await companyPeriod(store, 'nobody')).toBeUndefined();
    for (const order of [1, -1] as const) {
      const plan = store.plan(TRANSACTIONS, { companyId: 'c1' }, { sort: { transaction_date: order }, limit: 1, hint: ['companyId', 'transaction_date'] })!.join('\n');
      expect(plan).toMatch(/USING (COVERING )?INDEX/);
      // Ties of the first (or last) day are put in id order; the company's lines are never sorted whole.
      expect(plan, plan).not.toMatch(/TEMP B-TREE FOR ORDER BY/);
    }
    await store.close();
  });
});
