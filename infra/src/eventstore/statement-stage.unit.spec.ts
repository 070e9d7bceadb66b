/**
 * What a staged statement import holds in the bulk writer thread, and that the thread gives its
 * heap back when nothing is held any more (the writer thread once kept 300-400 MB of a
 * 100,000-row import's garbage through the whole projection of its events, the process's peak).
 */
import { describe, expect, it } from 'vitest';
import { assignRowsToMembers, IMPORT_CHUNK_ROWS, parseBankStatement, type ImportedRow, type Member } from '@paperlink/domain';
import { candidateRow } from '@paperlink/command-api/stage';
import { canonicalJson } from './chain';
import { candidateParts, collectGarbage, StatementStages } from './statement-stage';

const members: Member[] = [
  { userId: 'u-ada', firstName: 'Ada', lastName: 'Admin', role: 'admin' },
  { userId: 'u-bob', firstName: 'Bob', lastName: 'Brown', role: 'user' },
];

function statement(rows: number): Uint8Array {
  const lines = ['Transaction Date,Description,Amount,First Name,Last Name'];
  for (let i = 0; i < rows; i++) {
    const m = members[i % 2]!;
    lines.push(`2026-01-${String(1 + (i % 28)).padStart(2, '0')},CAFÉ “${i}” SHOP,-${1 + (i % 90)}.25,${m.firstName},${m.lastName}`);
  }
  return new Uint8Array(Buffer.from(lines.join('\n')));
}

function staged(stages: StatementStages, rows: number): number {
  const answer = stages.stage(statement(rows), { maxRows: 10_000 });
  if ('needsMapping' in answer) throw new Error('the test statement needs no mapping');
  return answer.stage;
}

const decide = (stages: StatementStages, stage: number) =>
  stages.decide(stage, { importId: 'imp-1', companyId: 'c-1', importedBy: 'u-ada', fileName: 's.csv', fileHash: 'h', members, fallbackId: 'u-ada', existingKeys: [], alreadyImported: false });

describe('statement stages (the bulk writer thread)', () => {
  it('holds each TransactionsImported event as its canonical JSON, rows in file order, non-ASCII text intact', () => {
    const stages = new StatementStages({ collect: () => {} });
    const id = staged(stages, 2 * IMPORT_CHUNK_ROWS + 17);
    const decided = decide(stages, id);
    expect(decided.transactionEvents).toBe(3);
    const rows: ImportedRow[] = [];
    for (let i = 0; i < decided.transactionEvents; i++) {
      const json = stages.json(id, i);
      const data = JSON.parse(json) as { rows: ImportedRow[]; importId: string };
      // What the append hashes and stores is the canonical form, byte for byte.
      expect(canonicalJson(data)).toBe(json);
      expect(data.importId).toBe('imp-1');
      rows.push(...data.rows);
    }
    expect(rows.map((r) => r.row)).toEqual(Array.from({ length: 2 * IMPORT_CHUNK_ROWS + 17 }, (_, i) => i + 2));
    expect(rows[5]!.description).toBe('CAFÉ “5” SHOP');
    expect(new Set(rows.map((r) => r.transactionId)).size).toBe(rows.length);
    expect(() => stages.json(id, 3)).toThrow(/holds no event 3/);
  });

  it('makes candidate rows a bounded part at a time, only when asked, equal to the whole file’s', () => {
    const parsed = parseBankStatement(statement(2 * IMPORT_CHUNK_ROWS + 17), { maxRows: 10_000 });
    const { details } = assignRowsToMembers(parsed.rows, members, 'u-ada');
    const whole = parsed.rows.map((r, i) => candidateRow(r, details[i]!));
    const parts = candidateParts(parsed.rows, members, 'u-ada');
    const sizes: number[] = [];
    const rows = [];
    for (const part of parts) {
      sizes.push(part.length);
      rows.push(...part);
    }
    expect(sizes).toEqual([IMPORT_CHUNK_ROWS, IMPORT_CHUNK_ROWS, 17]);
    expect(rows).toEqual(whole);
    // A generator: nothing is made before the first part is asked for, and one part per request.
    const lazy = candidateParts(parsed.rows, members, 'u-ada', 10);
    expect(lazy.next().value).toHaveLength(10);
    expect(lazy.next().value).toEqual(whole.slice(10, 20));
  });

  it('collects the thread’s heap once the last held statement is released, not while another is held', () => {
    let collections = 0;
    const stages = new StatementStages({ collect: () => collections++ });
    const a = staged(stages, 10);
    const b = staged(stages, 20);
    decide(stages, a);
    stages.release(a);
    expect(collections).toBe(0);
    expect(stages.held).toBe(1);
    stages.release(b);
    expect(collections).toBe(1);
    expect(stages.held).toBe(0);
    // Releasing again (or an unknown stage) changes nothing and collects nothing.
    stages.release(b);
    stages.release(99);
    expect(collections).toBe(1);
    expect(() => stages.json(a, 0)).toThrow(/holds no event/);
  });

  it('collectGarbage runs a full collection in a process started without --expose-gc', async () => {
    // A WeakRef's target survives the job that made it: the collection comes after a macrotask.
    let target: object | undefined = { payload: new Array(1000).fill('x') };
    const ref = new WeakRef(target);
    target = undefined;
    await new Promise((resolve) => setTimeout(resolve, 0));
    collectGarbage();
    expect(ref.deref()).toBeUndefined();
  });
});
