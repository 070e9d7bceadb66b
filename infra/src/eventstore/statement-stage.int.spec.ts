/**
 * A staged statement import through the SQLite event store's bulk writer thread: its rows and
 * event JSON are dropped as soon as an append wrote them (they were once held until the
 * request's answer, which waits for the projections, and so overlapped the projection's own
 * peak), and kept after an append that failed, so the plan can be decided again.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { ConcurrencyError, type DomainEvent, type NewEvent } from '@paperlink/domain';
import type { StagedDecisionInput } from '@paperlink/command-api/stage';
import { SqliteEventStore } from './sqlite';

const metadata = { requestId: 'r', correlationId: 'c', causationId: 'c', occurredAt: '2026-01-01T00:00:00.000Z' };

function statement(rows: number): Uint8Array {
  const lines = ['Transaction Date,Description,Amount'];
  for (let i = 0; i < rows; i++) lines.push(`2026-02-${String(1 + (i % 28)).padStart(2, '0')},STORE ${i},-${1 + (i % 50)}.10`);
  return new Uint8Array(Buffer.from(lines.join('\n')));
}

const toNew = (events: DomainEvent[]): NewEvent[] => events.map((e) => ({ id: randomUUID(), type: e.type, data: e.data, metadata }));

describe('a staged statement import in the bulk writer thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-stage-'));
  const store = new SqliteEventStore(join(dir, 'events.sqlite'), { bulkWriter: true });
  const stager = store.statementStager()!;
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const input = (importId: string): StagedDecisionInput => ({
    importId, companyId: 'c-1', importedBy: 'u-1', fileName: 's.csv', fileHash: `h-${importId}`, members: [{ userId: 'u-1', firstName: 'Ada', lastName: 'Admin', role: 'admin' }], fallbackId: 'u-1', existingKeys: [], alreadyImported: false,
  });

  it('is kept after an append that failed (decided again), and dropped once an append wrote it', async () => {
    const answer = await stager.stage(statement(2500), { maxRows: 10_000 });
    if ('needsMapping' in answer) throw new Error('no mapping needed');
    await store.appendMany([{ streamId: 'import-taken', expectedRevision: 'no_stream', events: toNew([{ type: 'Other', data: {} }]) }]);

    const first = await stager.decide(answer.stage, input('i-1'));
    const imported = (events: DomainEvent[]) => events.filter((e) => e.type === 'TransactionsImported');
    expect(imported(first.events)).toHaveLength(3);
    // The stream is taken: the append fails, and nothing of the staged rows was written.
    await expect(store.appendMany([{ streamId: 'import-taken', expectedRevision: 'no_stream', events: toNew(imported(first.events)) }])).rejects.toBeInstanceOf(ConcurrencyError);

    // Decided again (as the bus retries a plan), then written.
    const again = await stager.decide(answer.stage, input('i-2'));
    expect(again.result.imported).toBe(2500);
    await store.appendMany([{ streamId: 'import-i-2', expectedRevision: 'no_stream', events: toNew(imported(again.events)) }]);
    const back = await store.readStream('import-i-2');
    const rows = back.flatMap((e) => (e.data as { rows: Array<{ row: number; description: string; importId?: string }> }).rows);
    expect(rows).toHaveLength(2500);
    expect(rows[2499]!.description).toBe('STORE 2499');
    expect((back[0]!.data as { importId: string }).importId).toBe('i-2');

    // Written: the thread holds the statement no more; the request's own release later is harmless.
    await expect(stager.decide(answer.stage, input('i-3'))).rejects.toThrow(/no staged statement/);
    stager.release(answer.stage);
  });

  it('is gone for a message right behind the write that appended it (dropped before the answer is posted)', async () => {
    const answer = await stager.stage(statement(1500), { maxRows: 10_000 });
    if ('needsMapping' in answer) throw new Error('no mapping needed');
    const decided = await stager.decide(answer.stage, input('i-4'));
    // The write and a decision posted in one turn: the thread takes both in one go, and the
    // decision must not find the statement (dropped after the answer, it did: in CI a request
    // that the answer let through found it).
    const worker = (store as unknown as { bulk: { worker: Worker } }).bulk.worker;
    const post = worker.postMessage.bind(worker);
    let behind: Promise<unknown> | undefined;
    worker.postMessage = ((message: { kind: string }, transfer?: readonly ArrayBuffer[]) => {
      post(message, transfer as never);
      if (message.kind === 'write' && !behind) behind = stager.decide(answer.stage, input('i-5'));
    }) as typeof worker.postMessage;
    try {
      await store.appendMany([{ streamId: 'import-i-4', expectedRevision: 'no_stream', events: toNew(decided.events.filter((e) => e.type === 'TransactionsImported')) }]);
    } finally {
      worker.postMessage = post;
    }
    expect(behind).toBeDefined();
    await expect(behind).rejects.toThrow(/no staged statement/);
    stager.release(answer.stage);
  });
});
