/**
 * A slice of a match list (visibleMatches with a page) is the same slice of the whole list, for
 * an admin and for a member whose matches are a small share of the company's, on the memory and
 * SQLite read stores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Doc, ReadStore } from '@paperlink/domain';
import { MATCHES, RECEIPTS, TRANSACTIONS, visibleMatches, type MatchDoc } from '@paperlink/projections';
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
])('a slice of a match list (%s)', (_name, open) => {
  it('is the same slice of the whole list, for an admin and for a member', async () => {
    const store = open();
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
