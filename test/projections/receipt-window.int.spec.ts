/**
 * The receipts of a date window (advanced matching of a card line, the receipts list's date
 * filter) are read by (companyId, receipt_date), not by going through every receipt of the
 * company (200 ms of the request thread at 100,000 receipts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { RECEIPTS, receiptsProjection } from '@paperlink/projections';
import { SqliteReadStore } from '../../infra/src/readstore/sqlite';

const dir = mkdtempSync(join(tmpdir(), 'paperlink-receipt-window-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a date window of receipts is read from an index range', async () => {
  const store = new SqliteReadStore(join(dir, 'r.sqlite'));
  await store.ensureIndexes(RECEIPTS, receiptsProjection.collections[RECEIPTS]!);
  const docs = Array.from({ length: 3000 }, (_, i) => ({ _id: `r${i}`, companyId: 'c1', userId: `u${i % 7}`, processing_status: 'completed', receipt_date: `2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}` }));
  await store.commit(new Map([[RECEIPTS, new Map(docs.map((d) => [d._id, d] as const))]]), []);
  const filter = { companyId: 'c1', processing_status: 'completed', receipt_date: { $gte: '2024-03-01', $lte: '2024-03-31' } };
  const plan = store.plan(RECEIPTS, filter, {})!.join('\n');
  expect(plan).toMatch(/SEARCH \S+ USING (COVERING )?INDEX \S+ \(<expr>=\? AND <expr>>\? AND <expr><\?\)/);
  expect((await store.collection(RECEIPTS).find(filter)).length).toBe(docs.filter((d) => d.receipt_date.startsWith('2024-03')).length);
  await store.close();
});
