/**
 * A report's rows read by its worker (ADR 0018): on a read-only connection of its own, from the
 * projection's live generation (followed when a blue-green switch happens between pages), under
 * the scope the request side computed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Doc, ReportRow, ReportSettings } from '@paperlink/domain';
import { SqliteReadStore } from '../readstore/sqlite';
import { openOwnRows, type OwnRows } from './worker-rows';

const dir = mkdtempSync(join(tmpdir(), 'worker-rows-'));
const file = join(dir, 'readmodels.sqlite');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const settings: ReportSettings = {
  includeMatched: true, includeUnmatched: true, includeOCRData: false, maxPagesPerReceipt: 1, groupBy: 'date',
  includeAnalytics: false, includeCharts: false, includeSummary: true, includeDetails: true,
};

const tx = (id: string, userId: string, description: string): Doc => ({
  _id: id, companyId: 'c1', userId, transaction_date: '2026-01-02', description, amountCents: -100, absCents: 100, salesTaxCents: null,
  external_transaction_id: null, currency: null, category_name: null, job_number_name: null, cost_code_name: null, receipt_count: 0, receipts: [],
});

const spec = (scope: OwnRows['scope'], type: OwnRows['type'] = 'transactions'): OwnRows => ({ file, type, scope, settings, attachments: false, linkBase: 'http://localhost' });
const noFiles = { file: async () => null };

async function all(source: Awaited<ReturnType<typeof openOwnRows>>['source']): Promise<ReportRow[]> {
  const rows: ReportRow[] = [];
  for (;;) {
    const page = await source.next('summary');
    rows.push(...page.rows);
    if (page.done) return rows;
  }
}
const descriptions = (rows: ReportRow[]) => rows.map((r) => (r.type === 'transaction' ? r.description : r.type)).sort();

describe('rows read by the report worker', () => {
  it('reads the live generation under the given scope, follows a switch, and never writes', async () => {
    const writer = new SqliteReadStore(file);
    const put = (coll: string, docs: Doc[]) => new Map([[coll, new Map(docs.map((d) => [d._id, d] as [string, Doc | null]))]]);
    await writer.commit(put('transactions', [tx('t1', 'u1', 'old u1'), tx('t2', 'u2', 'old u2')]), []);
    await writer.commit(put('transactions__g1', [tx('t1', 'u1', 'new u1'), tx('t2', 'u2', 'new u2')]), []);
    await writer.commit(put('_generations', [{ _id: 'transactions', generation: 1 }]), []);
    await writer.flush();

    const member = await openOwnRows(spec({ companyId: 'c1', userId: 'u1' }), noFiles);
    const admin = await openOwnRows(spec({ companyId: 'c1' }), noFiles);
    const matches = await openOwnRows(spec({ companyId: 'c1' }, 'matches'), noFiles);
    try {
      expect(descriptions(await all(member.source))).toEqual(['new u1']);
      expect(descriptions(await all(admin.source))).toEqual(['new u1', 'new u2']);
      // A collection the file does not hold yet reads as empty.
      expect(await all(matches.source)).toEqual([]);
      // The generation switches back between pages: the next read follows it.
      await writer.commit(put('_generations', [{ _id: 'transactions', generation: 0 }]), []);
      await writer.flush();
      expect(descriptions(await admin.source.byIds!('transaction', ['t1', 't2']))).toEqual(['old u1', 'old u2']);
    } finally {
      await Promise.all([member.close(), admin.close(), matches.close()]);
      await writer.close();
    }
    // Read-only: a file that is not there is not made.
    await expect(openOwnRows({ ...spec({ companyId: 'c1' }), file: join(dir, 'missing.sqlite') }, noFiles)).rejects.toThrow();
  });
});
