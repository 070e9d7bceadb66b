/**
 * The categoriser learns from the company's newest categorised lines: read newest first a page at
 * a time (never every line sorted on the request thread), the same lines on both embedded stores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Doc, ReadStore } from '@paperlink/domain';
import { TRANSACTIONS, transactionsProjection } from '@paperlink/projections';
import { EmbeddedReadStore } from '../readstore/embedded';
import { SqliteReadStore } from '../readstore/sqlite';
import { newestLabelled } from './learning';

const dir = mkdtempSync(join(tmpdir(), 'paperlink-newest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const docs: Doc[] = Array.from({ length: 60 }, (_, i) => ({
  _id: `t${String(i).padStart(3, '0')}`,
  companyId: i % 10 === 9 ? 'other' : 'c1',
  transaction_date: `2024-0${1 + ((i * 7) % 9)}-1${i % 3}`,
  description: `SHOP ${i}`,
  amountCents: -100 * i,
  category_name: i % 4 === 0 ? null : `Cat ${i % 3}`,
}));

describe.each([
  ['memory', () => new EmbeddedReadStore() as ReadStore],
  ['sqlite', () => new SqliteReadStore(join(dir, `s-${Math.random()}.sqlite`)) as ReadStore],
])('newestLabelled (%s)', (_name, open) => {
  it("is the newest `max` categorised lines of the company, oldest first, across pages", async () => {
    const store = open();
    await store.ensureIndexes(TRANSACTIONS, transactionsProjection.collections[TRANSACTIONS]!);
    await store.commit(new Map([[TRANSACTIONS, new Map(docs.map((d) => [d._id, d] as const))]]), []);
    const want = docs
      .filter((d) => d.companyId === 'c1' && d.category_name)
      .sort((a, b) => String(a.transaction_date).localeCompare(String(b.transaction_date)) || b._id.localeCompare(a._id))
      .slice(-7)
      .map((d) => d.description);
    const got = await newestLabelled(store, 'c1', 7, 4);
    expect(got.map((l) => l.description)).toEqual(want);
    expect(got.every((l) => l.categoryId.startsWith('Cat '))).toBe(true);
    expect(await newestLabelled(store, 'c1', 1000, 4)).toHaveLength(docs.filter((d) => d.companyId === 'c1' && d.category_name).length);
    await store.close();
  });
});
