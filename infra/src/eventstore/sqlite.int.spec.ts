import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { eventStoreContract } from './contract';
import { SqliteEventStore } from './sqlite';

const dir = mkdtempSync(join(tmpdir(), 'paperlink-es-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

eventStoreContract('SQLite (better-sqlite3, WAL, synchronous=FULL)', async () => new SqliteEventStore(join(dir, `events-${randomUUID()}.sqlite`)));

describe('SQLite event store specifics', () => {
  it('keeps events across a reopen of the file', async () => {
    const file = join(dir, 'reopen.sqlite');
    const a = new SqliteEventStore(file);
    await a.appendToStream('t-1', [{ id: randomUUID(), type: 'X', data: { v: 1 }, metadata: { occurredAt: 'now' } }], 'no_stream');
    await a.close();
    const b = new SqliteEventStore(file);
    expect((await b.readStream('t-1')).map((e) => e.data)).toEqual([{ v: 1 }]);
    await b.close();
  });

  it('rolls back every stream of appendMany when one expected revision is wrong (atomic)', async () => {
    const store = new SqliteEventStore(join(dir, 'atomic.sqlite'));
    const ev = () => ({ id: randomUUID(), type: 'X', data: {}, metadata: { occurredAt: 'now' } });
    await store.appendToStream('b-1', [ev()], 'no_stream');
    await expect(store.appendMany([
      { streamId: 'a-1', events: [ev()], expectedRevision: 'no_stream' },
      { streamId: 'b-1', events: [ev()], expectedRevision: 'no_stream' },
    ])).rejects.toThrow();
    expect(await store.readStream('a-1')).toEqual([]);
    await store.close();
  });
});
