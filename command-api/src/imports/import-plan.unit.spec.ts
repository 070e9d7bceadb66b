import { describe, expect, it } from 'vitest';
import { decideImport, importStream, ledgerStream, statementFileStream, type CandidateRow, type EventStore, type RecordedEvent } from '@paperlink/domain';
import { completeImport, importAppends, resumeOf, type ResumedImport } from './import-plan';
import type { LedgerView } from './ledger';

const ids = { companyId: 'c1', importId: 'imp-1', fileHash: 'f'.repeat(64), importedBy: 'u1' };
const row = (n: number, date = `2026-01-${String(n).padStart(2, '0')}`): CandidateRow => ({
  row: n + 1, date, description: `Shop ${n}`, amountCents: -100 * n, assignedTo: 'u1', assignment: 'no_names_provided', dedupKey: `${date}|SHOP ${n}|${-100 * n}`,
});
const decide = (rows: CandidateRow[], existing: Map<string, number> = new Map(), importId = ids.importId) =>
  decideImport({ importId, companyId: 'c1', importedBy: 'u1', fileName: 'march.csv', fileHash: ids.fileHash, layout: 'generic', rows, rowErrors: [], existingKeys: existing, newIds: rows.map((_, i) => `t${i}`) }, { fileHashes: {} });
const ledger: Pick<LedgerView, 'expected' | 'indexAppends'> = { expected: 6, indexAppends: [] };
const shape = (appends: ReturnType<typeof importAppends>) => appends.map((a) => [a.streamId, a.expectedRevision, a.events.map((e) => e.type).join(',')]);

describe('the plan order of an import (ADR 0016)', () => {
  const claim = statementFileStream('c1', ids.fileHash);

  it('takes the file first, then the rows, the ledger after every row, the claim, the index and the mapping last', () => {
    const { events } = decide([row(1), row(2)]);
    const index = [{ streamId: 'statementindex-c1', expectedRevision: 'no_stream' as const, events: [{ type: 'StatementLedgerIndexed', data: {} }] }];
    const appends = importAppends(ids, events, { expected: 6, indexAppends: index }, { headerKey: 'h', mapping: {} });
    expect(shape(appends)).toEqual([
      [claim, 'no_stream', 'StatementFileTaken'],
      [importStream('imp-1'), 'no_stream', 'TransactionsImported'],
      [ledgerStream('c1'), 6, 'StatementImported'],
      [claim, 0, 'StatementFileClaimed'],
      ['statementindex-c1', 'no_stream', 'StatementLedgerIndexed'],
      [expect.stringMatching(/^csvmapping-/), 'any', 'ColumnMappingSaved'],
    ]);
    expect(appends[0]!.events[0]!.data).toEqual({ companyId: 'c1', fileHash: ids.fileHash, importId: 'imp-1', importedBy: 'u1' });
  });

  it('writes no row before the take and no ledger event before the last row, whatever prefix of the plan is written', () => {
    const { events } = decide(Array.from({ length: 2500 }, (_, i) => row(i % 28 + 1, `2026-0${1 + (i % 9)}-01`)));
    const appends = importAppends(ids, events, ledger, undefined);
    const kinds = appends.map((a) => a.events[0]!.type);
    expect(kinds.indexOf('StatementFileTaken')).toBe(0);
    expect(kinds.indexOf('TransactionsImported')).toBeGreaterThan(kinds.indexOf('StatementFileTaken'));
    expect(kinds.lastIndexOf('TransactionsImported')).toBeLessThan(kinds.indexOf('StatementImported'));
    expect(kinds.indexOf('StatementImported')).toBeLessThan(kinds.indexOf('StatementFileClaimed'));
    expect(appends.find((a) => a.streamId === importStream('imp-1'))!.events).toHaveLength(3);
  });

  it('takes nothing for an import that adds no row', () => {
    const { events } = decide([row(1)], new Map([[row(1).dedupKey, 1]]));
    expect(events).toEqual([]);
    expect(importAppends(ids, events, ledger, { headerKey: 'h', mapping: {} })).toEqual([]);
  });

  it('completes a taken import: no second take, rows at the stream revision, then the ledger and the claim; only the claim once the ledger holds it', () => {
    const { events } = decide([row(3)]);
    expect(shape(importAppends(ids, events, ledger, undefined, { revision: 1, ledgerDone: false }))).toEqual([
      [importStream('imp-1'), 1, 'TransactionsImported'],
      [ledgerStream('c1'), 6, 'StatementImported'],
      [claim, 0, 'StatementFileClaimed'],
    ]);
    expect(shape(importAppends(ids, [], ledger, undefined, { revision: 1, ledgerDone: true }))).toEqual([[claim, 0, 'StatementFileClaimed']]);
  });
});

/** Streams in memory with global positions, for the reads resumeOf makes. */
function memoryStore(streams: Record<string, Array<{ type: string; data: unknown; position: number }>>): EventStore {
  return {
    readStream: async (streamId: string, options: { fromRevision?: number; maxCount?: number } = {}) => {
      const from = options.fromRevision ?? 0;
      return (streams[streamId] ?? []).slice(from, from + (options.maxCount ?? Infinity)).map((e, i): RecordedEvent => ({ id: `${streamId}#${from + i}`, metadata: { occurredAt: '' }, streamId, revision: from + i, ...e }));
    },
  } as unknown as EventStore;
}

describe('resuming an import taken and not finished', () => {
  const taken = { importId: 'imp-1', importedBy: 'u1', position: 100 };
  const view = (tail: number): LedgerView => ({ alreadyImported: false, expected: tail < 0 ? 'no_stream' : tail, tail, indexAppends: [], taken });
  const written = decide([row(1), row(2)]).events.filter((e) => e.type === 'TransactionsImported');

  it('reads the rows written and whether the ledger holds the import since the take', async () => {
    const ledgerEvents = [
      { type: 'StatementImported', data: { importId: 'imp-1' }, position: 50 }, // before the take: another life of the id, not this import
      { type: 'StatementImported', data: { importId: 'imp-0' }, position: 120 },
    ];
    const store = memoryStore({ [importStream('imp-1')]: written.map((e, i) => ({ ...e, position: 110 + i })), [ledgerStream('c1')]: ledgerEvents });
    const resume = await resumeOf(store, view(1), 'c1', 'u1');
    expect(resume).toEqual({ importId: 'imp-1', revision: 0, ledgerDone: false, written: { rows: 2, rowNumbers: new Set([2, 3]), first: '2026-01-01', last: '2026-01-02' } });
    const done = memoryStore({ [ledgerStream('c1')]: [...ledgerEvents, { type: 'StatementImported', data: { importId: 'imp-1' }, position: 130 }] });
    expect((await resumeOf(done, view(2), 'c1', 'u1'))!.ledgerDone).toBe(true);
  });

  it('tells anyone but the person who took the file that it is being imported', async () => {
    await expect(resumeOf(memoryStore({}), view(-1), 'c1', 'u2')).rejects.toMatchObject({ status: 409, code: 'statement_import_in_progress' });
    expect(await resumeOf(memoryStore({}), { ...view(-1), taken: undefined }, 'c1', 'u1')).toBeUndefined();
  });

  it('counts the rows written before in the answer and in the ledger event, with their days', () => {
    const resume: ResumedImport = { importId: 'imp-1', revision: 0, ledgerDone: false, written: { rows: 2, rowNumbers: new Set([2, 3]), first: '2026-01-01', last: '2026-01-02' } };
    const all = [row(1), row(2), row(5)];
    // The read model holds the two rows written: the new decision has the third only.
    const decided = decide(all, new Map([[row(1).dedupKey, 1], [row(2).dedupKey, 1]]));
    expect(decided.result).toMatchObject({ imported: 1, skipped: 2 });
    const { events, result } = completeImport(decided, resume, { ...ids, fileName: 'march.csv', layout: 'generic' });
    expect(result).toMatchObject({ imported: 3, skipped: 0, total: 3, duplicates: [] });
    expect(events.map((e) => e.type)).toEqual(['TransactionsImported', 'StatementImported']);
    expect(events[1]!.data).toMatchObject({ importId: 'imp-1', imported: 3, skipped: 0, totalRows: 3, days: ['2026-01-01', '2026-01-05'] });
    // Every row written before the stop: the ledger event is made from them alone.
    const none = completeImport(decide(all.slice(0, 2), new Map([[row(1).dedupKey, 1], [row(2).dedupKey, 1]])), resume, { ...ids, fileName: 'march.csv', layout: 'generic' });
    expect(none.events).toEqual([{ type: 'StatementImported', data: expect.objectContaining({ imported: 2, days: ['2026-01-01', '2026-01-02'] }) }]);
  });
});
