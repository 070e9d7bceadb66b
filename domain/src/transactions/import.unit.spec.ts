import { describe, expect, it } from 'vitest';
import { fold } from '../core/decider';
import { decideImport, dedupKeyOf, ledgerDecider, type CandidateRow, type ImportEvent, type ImportStatementCommand } from './import';

const line = (row: number, description: string, amountCents: number, date = '2024-05-02'): CandidateRow => ({
  row, date, description, amountCents, assignedTo: 'u1', assignment: 'no_names_provided', dedupKey: dedupKeyOf(date, description, amountCents),
});

/** A company's imports, decided one after another against what the earlier ones added. */
function company() {
  const events: ImportEvent[] = [];
  const held = new Map<string, number>();
  let n = 0;
  const importFile = (fileHash: string, rows: CandidateRow[]) => {
    const cmd: ImportStatementCommand = {
      importId: `i${++n}`, companyId: 'c', importedBy: 'u1', fileName: `${fileHash}.csv`, fileHash, layout: 'paperlink', rows, rowErrors: [],
      existingKeys: new Map(rows.flatMap((r) => (held.has(r.dedupKey) ? [[r.dedupKey, held.get(r.dedupKey)!] as const] : []))),
      newIds: rows.map((_, i) => `t${n}-${i}`),
    };
    const out = decideImport(cmd, fold(ledgerDecider, events));
    events.push(...out.events);
    for (const e of out.events) {
      if (e.type !== 'TransactionsImported') continue;
      for (const r of e.data.rows) {
        const key = dedupKeyOf(r.date, r.description, r.amountCents);
        held.set(key, (held.get(key) ?? 0) + 1);
      }
    }
    return out.result;
  };
  return { importFile, held, remove: (key: string) => held.set(key, held.get(key)! - 1) };
}

describe('decideImport: duplicates as a multiset', () => {
  it('imports both of two identical coffees on one day', () => {
    const c = company();
    const r = c.importFile('a', [line(2, 'COFFEE', -350), line(3, 'COFFEE', -350), line(4, 'TEA', -200)]);
    expect(r).toMatchObject({ imported: 3, skipped: 0, duplicates: [] });
  });

  it('a file imported again adds nothing, by its hash and by its rows', () => {
    const c = company();
    const rows = [line(2, 'COFFEE', -350), line(3, 'COFFEE', -350)];
    c.importFile('a', rows);
    expect(c.importFile('a', rows)).toMatchObject({ imported: 0, skipped: 2, alreadyImported: true });
    // The same lines in another file (another layout, other bytes) are held twice already.
    expect(c.importFile('b', [line(7, 'coffee ', -350), line(8, 'Coffee', -350)])).toMatchObject({ imported: 0, skipped: 2, alreadyImported: false });
  });

  it('three identical rows where the company holds one add two, and report the first as the duplicate', () => {
    const c = company();
    c.importFile('a', [line(2, 'COFFEE', -350)]);
    const r = c.importFile('b', [line(2, 'COFFEE', -350), line(3, 'COFFEE', -350), line(4, 'COFFEE', -350)]);
    expect(r).toMatchObject({ imported: 2, skipped: 1 });
    expect(r.duplicates).toEqual([{ row: 2, description: 'COFFEE', reason: 'Same date, description and amount as an existing transaction' }]);
    expect(c.held.get(dedupKeyOf('2024-05-02', 'COFFEE', -350))).toBe(3);
  });

  it('a deleted transaction no longer counts as held', () => {
    const c = company();
    c.importFile('a', [line(2, 'COFFEE', -350), line(3, 'COFFEE', -350)]);
    c.remove(dedupKeyOf('2024-05-02', 'COFFEE', -350));
    expect(c.importFile('b', [line(2, 'COFFEE', -350), line(3, 'COFFEE', -350), line(4, 'CAKE', -500)])).toMatchObject({ imported: 2, skipped: 1 });
  });

  it('only the same date, description and amount are duplicates', () => {
    const c = company();
    c.importFile('a', [line(2, 'COFFEE', -350)]);
    expect(c.importFile('b', [line(2, 'COFFEE', -350, '2024-05-03'), line(3, 'COFFEE', -360), line(4, 'COFFEE SHOP', -350)])).toMatchObject({ imported: 3, skipped: 0 });
  });
});

describe('decideImport: the days auto-match runs over (ADR 0027)', () => {
  it('StatementImported names the first and last posting day of the rows imported, not of the duplicates', () => {
    const c = company();
    c.importFile('a', [line(2, 'HOTEL', -9000, '2024-01-01')]);
    const events: ImportEvent[] = [];
    const rows = [line(2, 'TAXI', -1200, '2024-03-09'), line(3, 'HOTEL', -9000, '2024-01-01'), line(4, 'TRAIN', -800, '2024-02-14'), line(5, 'BUS', -200, '2024-03-31')];
    const out = decideImport({
      importId: 'i9', companyId: 'c', importedBy: 'u1', fileName: 'b.csv', fileHash: 'b', layout: 'paperlink', rows, rowErrors: [],
      existingKeys: new Map([[dedupKeyOf('2024-01-01', 'HOTEL', -9000), 1]]), newIds: rows.map((_, i) => `n${i}`),
    }, { fileHashes: {} });
    events.push(...out.events);
    const statement = events.find((e) => e.type === 'StatementImported');
    expect(statement?.type === 'StatementImported' && statement.data.days).toEqual(['2024-02-14', '2024-03-31']);
    expect(out.result.imported).toBe(3);
  });
});
