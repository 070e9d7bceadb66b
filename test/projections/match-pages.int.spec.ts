/**
 * A slice of a match list (visibleMatches with a page) is the same slice of the whole list, for
 * an admin and for a member whose matches are a small share of the company's, on the memory and
 * SQLite read stores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Doc, Filter, FindOptions, ReadStore } from '@paperlink/domain';
import { MATCHES, matchesProjection, RECEIPTS, TRANSACTIONS, visibleMatches, type MatchDoc } from '@paperlink/projections';
import { EmbeddedReadStore } from '../../infra/src/readstore/embedded';
import { SqliteReadStore } from '../../infra/src/readstore/sqlite';

const dir = mkdtempSync(join(tmpdir(), 'paperlink-match-pages-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function company(store: ReadStore): Promise<void> {
  const matches = new Map<string, Doc | null>();
  const receipts = new Map<string, Doc | null>();
  const txs = new Map<string, Doc | null>();
  for (let i = 0; i < 1300; i++) {
    // Every seventh pair is Bo's on both sides; every eleventh only on one side (not his to see).
    const owner = i % 7 === 0 ? 'bo' : 'ada';
    receipts.set(`r${i}`, { _id: `r${i}`, companyId: 'c1', userId: i % 11 === 0 ? 'ada' : owner });
    txs.set(`t${i}`, { _id: `t${i}`, companyId: 'c1', userId: owner });
    matches.set(`m${i}`, { _id: `m${i}`, companyId: 'c1', receiptId: `r${i}`, transactionId: `t${i}`, confidence: 60 + (i * 37) % 40, status: i % 5 === 0 ? 'confirmed' : 'pending', suggested_at: `2024-01-01T00:00:${String(i % 60).padStart(2, '0')}Z` });
  }
  await store.commit(new Map([[MATCHES, matches], [RECEIPTS, receipts], [TRANSACTIONS, txs]]), []);
}

describe.each([
  ['memory', () => new EmbeddedReadStore() as ReadStore],
  ['sqlite', () => new SqliteReadStore(join(dir, `s-${Math.random()}.sqlite`)) as ReadStore],
  ['sqlite with the projection\'s indexes', () => new SqliteReadStore(join(dir, `s-${Math.random()}.sqlite`)) as ReadStore, true],
])('a slice of a match list (%s)', (_name, open, indexed?: boolean) => {
  it('is the same slice of the whole list, for an admin and for a member', async () => {
    const store = open();
    if (indexed) await store.ensureIndexes?.(MATCHES, matchesProjection.collections[MATCHES]!);
    await company(store);
    const ids = (d: MatchDoc[]) => d.map((m) => m._id);
    for (const scope of [{}, { userId: 'bo' }]) {
      for (const statuses of [['pending'], ['pending', 'confirmed']] as const) {
        const whole = ids(await visibleMatches(store, 'c1', [...statuses], scope));
        expect(whole.length).toBeGreaterThan(scope.userId ? 100 : 1000);
        for (const page of [{ limit: 10, offset: 0 }, { limit: 25, offset: 140 }, { limit: 1000, offset: 30 }, { limit: 5, offset: whole.length }]) {
          expect(ids(await visibleMatches(store, 'c1', [...statuses], scope, page)), JSON.stringify({ scope, statuses, page })).toEqual(whole.slice(page.offset, page.offset + page.limit));
        }
      }
    }
    await store.close?.();
  });
});

it('a page of one list is read in order from an index, not sorted from every match of the company (SQLite)', async () => {
  const store = new SqliteReadStore(join(dir, `plan-${Math.random()}.sqlite`));
  await store.ensureIndexes(MATCHES, matchesProjection.collections[MATCHES]!);
  await company(store);
  // The queries visibleMatches makes, as the store is asked them.
  const asked: Array<{ filter: Filter; options: FindOptions }> = [];
  const spy = new Proxy(store, {
    get(target, prop) {
      if (prop === 'collection') {
        return (name: string) => {
          const c = target.collection(name);
          return name !== MATCHES ? c : { ...c, find: (filter: Filter, options: FindOptions = {}) => (asked.push({ filter, options }), c.find(filter, options)) };
        };
      }
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as ReadStore;
  for (const status of ['pending', 'confirmed'] as const) {
    for (const scope of [{}, { userId: 'bo' }]) await visibleMatches(spy, 'c1', [status], scope, { limit: 50, offset: 100 });
  }
  expect(asked.length).toBeGreaterThanOrEqual(4);
  for (const q of asked) {
    const plan = store.plan(MATCHES, q.filter, q.options)!.join('\n');
    expect(plan, JSON.stringify(q)).toMatch(/USING (COVERING )?INDEX/);
    expect(plan, JSON.stringify(q)).not.toMatch(/TEMP B-TREE/);
  }
  await store.close();
});

