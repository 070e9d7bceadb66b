import { describe, expect, it } from 'vitest';
import { fold } from '../core/decider';
import { skipHeldDuplicates } from '../csv/dedupe';
import { decideImport, decideImportInParts, dedupKeyOf, IMPORT_CHUNK_ROWS, ledgerDecider, type CandidateRow, type ImportEvent, type ImportStatementCommand } from './import';

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

describe('decideImportInParts: the same decision a part at a time', () => {
  const rows = (n: number): CandidateRow[] => Array.from({ length: n }, (_, i) => ({
    ...line(i + 2, `SHOP ${i % 700}`, -100 - (i % 700), `2024-05-${String(1 + (i % 28)).padStart(2, '0')}`),
    assignment: (['name_matched', 'no_match_found', 'no_names_provided', 'error'] as const)[i % 4]!,
  }));
  const command = (all: CandidateRow[], held: Array<[string, number]>, fileHash = 'f'): ImportStatementCommand => ({
    importId: 'i1', companyId: 'c', importedBy: 'u1', fileName: 'f.csv', fileHash, layout: 'paperlink', rows: all,
    rowErrors: Array.from({ length: 130 }, (_, i) => ({ row: 5000 + i, reason: 'bad date' })), existingKeys: new Map(held), newIds: all.map((_, i) => `t${i}`),
  });
  const inParts = (cmd: ImportStatementCommand, size: number, ledger = { fileHashes: {} as Record<string, string> }) => {
    const { rows: all, newIds, ...rest } = cmd;
    const parts: CandidateRow[][] = [];
    for (let i = 0; i < all.length; i += size) parts.push(all.slice(i, i + size));
    const events: ImportEvent[] = [];
    let next = 0;
    const result = decideImportInParts({ ...rest, parts, nextId: () => newIds[next++]! }, ledger, (e) => events.push(e));
    return { events, result };
  };

  it('gives the events and answer of the whole file, whatever the parts (duplicates across part boundaries included)', () => {
    // 2,500 rows, 700 distinct keys: each key 3-4 times; the company holds some keys 1-3 times.
    const all = rows(2500);
    const held: Array<[string, number]> = Array.from({ length: 300 }, (_, k) => [all[k * 2]!.dedupKey, 1 + (k % 3)]);
    const whole = decideImport(command(all, held), { fileHashes: {} });
    expect(whole.result.skipped).toBeGreaterThan(300);
    const imported = whole.result.imported;
    expect(whole.events.filter((e) => e.type === 'TransactionsImported').map((e) => (e.data as { rows: unknown[] }).rows.length))
      .toEqual(Array.from({ length: Math.ceil(imported / IMPORT_CHUNK_ROWS) }, (_, i) => Math.min(IMPORT_CHUNK_ROWS, imported - i * IMPORT_CHUNK_ROWS)));
    // The rows kept are the multiset's (skipHeldDuplicates: of the rows sharing a key, the first ones are the duplicates), in file order.
    const heldCount = new Map(held);
    const kept = skipHeldDuplicates(all, (r) => r.dedupKey, (k) => heldCount.get(k) ?? 0).kept;
    const importedRows = whole.events.flatMap((e) => (e.type === 'TransactionsImported' ? e.data.rows : []));
    expect(importedRows.map((r) => r.row)).toEqual(kept.map((r) => r.row));
    expect(importedRows.map((r) => r.transactionId)).toEqual(kept.map((_, i) => `t${i}`));
    for (const size of [1, 7, 999, 1000, 1001, 2500]) expect(inParts(command(all, held), size)).toEqual(whole);
  });

  it('a file imported before, or one whose rows are all held, adds nothing in parts either', () => {
    const all = rows(50);
    const again = inParts(command(all, [], 'f'), 7, { fileHashes: { f: 'i0' } });
    expect(again).toEqual(decideImport(command(all, [], 'f'), { fileHashes: { f: 'i0' } }));
    expect(again.events).toEqual([]);
    const allHeld: Array<[string, number]> = all.map((r) => [r.dedupKey, 5]);
    expect(inParts(command(all, allHeld), 7)).toEqual(decideImport(command(all, allHeld), { fileHashes: {} }));
    expect(inParts(command(all, allHeld), 7).events).toEqual([]);
  });

  it('gives each event as soon as its rows are decided: the next part is asked for after the event of the rows before it', () => {
    const all = rows(3000);
    const emitted: ImportEvent[] = [];
    const seenWhenAsked: number[] = [];
    function* parts() {
      for (let i = 0; i < all.length; i += IMPORT_CHUNK_ROWS) {
        seenWhenAsked.push(emitted.length);
        yield all.slice(i, i + IMPORT_CHUNK_ROWS);
      }
    }
    let n = 0;
    const { newIds: _ids, rows: _rows, ...rest } = command(all, []);
    decideImportInParts({ ...rest, parts: parts(), nextId: () => `t${n++}` }, { fileHashes: {} }, (e) => emitted.push(e));
    // Part k is asked for once the k events of the parts before it are out (nothing gathered to the end).
    expect(seenWhenAsked).toEqual([0, 1, 2]);
    expect(emitted.map((e) => e.type)).toEqual(['TransactionsImported', 'TransactionsImported', 'TransactionsImported', 'StatementImported']);
  });
});
