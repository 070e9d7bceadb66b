import Database from 'better-sqlite3';
import {
  ConcurrencyError,
  ConflictError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type StreamAppend,
  type SubscribeOptions,
  type Subscription,
} from '@paperlink/domain';
import { AppendSignal, pollingSubscription } from './subscription';

interface EventRow {
  position: number;
  event_id: string;
  stream_id: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position  INTEGER PRIMARY KEY,
  event_id  TEXT NOT NULL,
  stream_id TEXT NOT NULL,
  revision  INTEGER NOT NULL,
  type      TEXT NOT NULL,
  data      TEXT NOT NULL,
  metadata  TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS events_event_id ON events (event_id);
CREATE UNIQUE INDEX IF NOT EXISTS events_stream ON events (stream_id, revision);
`;

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    type: row.type,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    streamId: row.stream_id,
    revision: row.revision,
    position: row.position,
  };
}

function describe(revision: number): string {
  return revision < 0 ? 'no_stream' : String(revision);
}

export function checkExpected(streamId: string, expected: ExpectedRevision, current: number): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current < 0) ||
    (expected === 'stream_exists' && current >= 0) ||
    (typeof expected === 'number' && expected === current);
  if (!ok) throw new ConcurrencyError(streamId, String(expected), describe(current));
}

/**
 * The embedded event store: one SQLite file in WAL mode with synchronous=FULL, so an
 * acknowledged append survives a crash or power loss.
 */
export class SqliteEventStore implements EventStore {
  readonly kind = 'sqlite';
  private readonly db: Database.Database;
  private readonly signal = new AppendSignal();
  private readonly stmts;
  private readonly appendTx: Database.Transaction<(appends: StreamAppend[]) => AppendResult[]>;

  constructor(file: string, options: { synchronous?: 'FULL' | 'NORMAL' } = {}) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    this.stmts = {
      byEventId: this.db.prepare<[string], { position: number; stream_id: string; revision: number }>(
        'SELECT position, stream_id, revision FROM events WHERE event_id = ?',
      ),
      streamHead: this.db.prepare<[string], { revision: number | null }>(
        'SELECT MAX(revision) AS revision FROM events WHERE stream_id = ?',
      ),
      insert: this.db.prepare(
        'INSERT INTO events (event_id, stream_id, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      readStream: this.db.prepare<[string, number, number], EventRow>(
        'SELECT * FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT ?',
      ),
      readAll: this.db.prepare<[number, number], EventRow>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?'),
      head: this.db.prepare<[], { position: number | null }>('SELECT MAX(position) AS position FROM events'),
    };
    this.appendTx = this.db.transaction((appends: StreamAppend[]) => appends.map((a) => this.appendOne(a)));
  }

  private appendOne({ streamId, events, expectedRevision }: StreamAppend): AppendResult {
    const current = this.stmts.streamHead.get(streamId)?.revision ?? -1;
    if (events.length > 0) {
      const retried = this.stmts.byEventId.get(events[0]!.id);
      if (retried) return this.retriedResult(streamId, events);
    }
    checkExpected(streamId, expectedRevision, current);
    let revision = current;
    let position = 0;
    for (const e of events) {
      revision += 1;
      const info = this.stmts.insert.run(e.id, streamId, revision, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata));
      position = Number(info.lastInsertRowid);
    }
    if (events.length === 0) position = this.stmts.head.get()?.position ?? 0;
    return { nextExpectedRevision: revision, position };
  }

  /** The same event ids appended again: nothing new is stored; answer as the first time. */
  private retriedResult(streamId: string, events: NewEvent[]): AppendResult {
    let last: { position: number; stream_id: string; revision: number } | undefined;
    for (const e of events) {
      const found = this.stmts.byEventId.get(e.id);
      if (!found || found.stream_id !== streamId) {
        throw new ConflictError('Some of these events were stored before and some were not', 'partial_retry', { streamId });
      }
      last = found;
    }
    return { nextExpectedRevision: last!.revision, position: last!.position };
  }

  async appendToStream(streamId: string, events: NewEvent[], expectedRevision: ExpectedRevision = 'any'): Promise<AppendResult> {
    const [result] = await this.appendMany([{ streamId, events, expectedRevision }]);
    return result!;
  }

  async appendMany(appends: StreamAppend[]): Promise<AppendResult[]> {
    const results = this.appendTx.immediate(appends);
    this.signal.notify();
    return results;
  }

  async readStream(streamId: string, options: { fromRevision?: number; maxCount?: number } = {}): Promise<RecordedEvent[]> {
    return this.stmts.readStream.all(streamId, options.fromRevision ?? 0, options.maxCount ?? -1).map(toRecorded);
  }

  async readAll({ after, maxCount }: { after: number; maxCount: number }): Promise<RecordedEvent[]> {
    return this.stmts.readAll.all(after, maxCount).map(toRecorded);
  }

  async headPosition(): Promise<number> {
    return this.stmts.head.get()?.position ?? 0;
  }

  subscribeToAll(options: SubscribeOptions, handler: (events: RecordedEvent[]) => Promise<void>): Subscription {
    return pollingSubscription(
      (after, max) => this.readAll({ after, maxCount: max }),
      (ms) => this.signal.wait(ms),
      options,
      handler,
    );
  }

  async close(): Promise<void> {
    this.signal.notify();
    if (this.db.open) this.db.close();
  }
}
