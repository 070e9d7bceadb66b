import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConcurrencyError, type NewEvent } from '@paperlink/domain';
import { SqliteEventStore } from './sqlite';

describe('the SQLite event store’s bulk writer thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-bulk-'));
  const store = new SqliteEventStore(join(dir, 'events.sqlite'), { bulkWriter: true });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const metadata = { requestId: 'r', correlationId: 'c', causationId: 'c', occurredAt: '2026-01-01T00:00:00.000Z' };
  const big = (n: number): NewEvent[] => Array.from({ length: n }, (_, i) => ({ id: randomUUID(), type: 'TransactionsImported', data: { chunk: i, rows: Array.from({ length: 1000 }, (_, r) => ({ row: r, description: `CARD PURCHASE ${i}-${r}` })) }, metadata }));

  it('writes a large append (several MB) atomically, readable at once, with the same positions and metadata', async () => {
    const events = big(80);
    const [imported, ledger] = await store.appendMany([
      { streamId: 'import-1', expectedRevision: 'no_stream', events },
      { streamId: 'ledger-1', expectedRevision: 'no_stream', events: [{ id: randomUUID(), type: 'StatementImported', data: { n: 1 }, metadata }] },
    ]);
    expect(imported).toMatchObject({ nextExpectedRevision: 79 });
    expect(ledger!.position).toBe(imported!.position + 1);
    const back = await store.readStream('import-1');
    expect(back).toHaveLength(80);
    expect(back[79]!.data).toEqual(events[79]!.data);
    expect(back[0]!.metadata).toEqual(metadata);
    expect(await store.headPosition()).toBe(ledger!.position);
    // It went through the writer thread (started on the first large append).
    expect((store as unknown as { bulk?: unknown }).bulk).toBeDefined();
  });

  it('a small append made while a large one is under way succeeds without holding the thread', async () => {
    const large = store.appendMany([{ streamId: 'import-3', expectedRevision: 'no_stream', events: big(80) }]);
    await new Promise((r) => setImmediate(r));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const small = store.appendToStream('ledger-3', [{ id: randomUUID(), type: 'StatementImported', data: { n: 3 }, metadata }], 'no_stream');
    const [[bulk], one] = await Promise.all([large, small]);
    clearInterval(timer);
    // Either may commit first (SQLite orders them); neither fails nor blocks the other.
    expect(one.position).not.toBe(bulk!.position);
    expect(await store.readStream('ledger-3')).toHaveLength(1);
    expect(await store.readStream('import-3')).toHaveLength(80);
    expect(ticks).toBeGreaterThan(0);
  });

  it('refuses a stale expected revision with a ConcurrencyError, storing nothing', async () => {
    const head = await store.headPosition();
    const error = await store.appendMany([{ streamId: 'ledger-1', expectedRevision: 'no_stream', events: big(60) }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConcurrencyError);
    expect(await store.headPosition()).toBe(head);
  });

  it('recognises a retry of the same events and stores them once; small appends go on in the request thread', async () => {
    const events = big(60);
    const first = await store.appendMany([{ streamId: 'import-2', expectedRevision: 'no_stream', events }]);
    const again = await store.appendMany([{ streamId: 'import-2', expectedRevision: 'no_stream', events }]);
    expect(again).toEqual(first);
    expect(await store.readStream('import-2')).toHaveLength(60);
    const small = await store.appendToStream('ledger-1', [{ id: randomUUID(), type: 'StatementImported', data: { n: 2 }, metadata }], 0);
    expect(small.nextExpectedRevision).toBe(1);
  });
});
