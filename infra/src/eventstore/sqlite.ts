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
import { BulkWriter, StagedData, type PreparedAppend } from './sqlite-bulk';
import type { StatementStager } from '@paperlink/command-api/stage';
import { canonicalJson, chainHash, GENESIS_HASH, upgradeChain, type ChainContent } from './chain';

/** Rows come back as arrays (better-sqlite3 raw mode, about a third faster than objects). */
type EventRow = [position: number, eventId: string, streamKey: number, revision: number, type: string, data: string, metadata: string | null, commitPosition: number | null];
/** Appends whose data is larger than this go through the bulk writer thread (when enabled). */
const BULK_CHARS = 2_000_000;
/** Work on the request thread between turns of the event loop, at most. */
const SLICE_MS = 15;
/**
 * Event data read from the log per readAll call, at most (about one event of an import): the
 * rows' JSON is parsed in one go, and 1 MB of it (five events) took 50-100 ms of the request
 * thread under load.
 */
const READ_BUDGET_CHARS = 300_000;
const SELECT = 'SELECT position, event_id, stream_key, revision, type, data, metadata, commit_position FROM events';

/**
 * - `streams`: a small integer key per stream, so the per-stream index stays narrow, and its head revision.
 * - `events`: the log; `position` is the global position. The events of one append share their
 *   metadata: only the first carries it, the others point at that first event (`commit_position`),
 *   so a 100-event append writes it once and a one-event append touches no other table.
 *   `hash`: SHA-256 (32 bytes) of the event's canonical content and the previous event's hash,
 *   a chain over the global log (./chain.ts); files written before it get it on open.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS streams (
  stream_key INTEGER PRIMARY KEY,
  stream_id  TEXT NOT NULL UNIQUE,
  revision   INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
  position        INTEGER PRIMARY KEY,
  event_id        TEXT NOT NULL,
  stream_key      INTEGER NOT NULL,
  revision        INTEGER NOT NULL,
  type            TEXT NOT NULL,
  data            TEXT NOT NULL,
  metadata        TEXT,
  commit_position INTEGER,
  hash            BLOB
);
CREATE UNIQUE INDEX IF NOT EXISTS events_stream ON events (stream_key, revision);
`;

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
  private readonly appendListeners: Array<() => void> = [];
  /** Stream names by key: names never change, so they are read once. */
  private readonly streamNames = new Map<number, string>();
  /**
   * Event data already turned into JSON for the append under way (see serializeInSlices): in its
   * canonical form (RFC 8785), which is both what is stored and what the event's hash covers, so
   * the data is serialised once and the chain check hashes the stored text as it is.
   */
  private readonly serialized = new WeakMap<NewEvent, string>();
  /** The chain's head while an append transaction runs (read at its start: another connection may have appended). */
  private chainHead = { position: 0, hash: GENESIS_HASH };
  private readonly stmts;
  private readonly appendTx: Database.Transaction<(appends: StreamAppend[]) => AppendResult[]>;
  private bulk?: BulkWriter;
  private bulkInFlight?: Promise<AppendResult[]>;

  constructor(readonly file: string, private readonly options: { synchronous?: 'FULL' | 'NORMAL'; bulkWriter?: boolean } = {}) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('cache_size = -65536'); // 64 MiB of page cache
    this.db.exec(SCHEMA);
    // Files written before events carried hashes: the column, and the chain for the rows they hold (once).
    upgradeChain(this.db);
    this.stmts = {
      inStream: this.db.prepare<[number, number, number, string], { position: number; revision: number }>(
        'SELECT position, revision FROM events WHERE stream_key = ? AND revision BETWEEN ? AND ? AND event_id = ?',
      ),
      insertFirst: this.db.prepare('INSERT INTO events (position, event_id, stream_key, revision, type, data, metadata, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      insertNext: this.db.prepare('INSERT INTO events (position, event_id, stream_key, revision, type, data, commit_position, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      chainHead: this.db.prepare<[], { position: number; hash: Buffer | null }>('SELECT position, hash FROM events ORDER BY position DESC LIMIT 1'),
      stream: this.db.prepare<[string], { stream_key: number; revision: number }>('SELECT stream_key, revision FROM streams WHERE stream_id = ?'),
      newStream: this.db.prepare<[string, number]>('INSERT INTO streams (stream_id, revision) VALUES (?, ?)'),
      setRevision: this.db.prepare<[number, number]>('UPDATE streams SET revision = ? WHERE stream_key = ?'),
      readStream: this.db
        .prepare<[string, number, number], EventRow>(`${SELECT} WHERE stream_key = (SELECT stream_key FROM streams WHERE stream_id = ?) AND revision >= ? ORDER BY revision LIMIT ?`)
        .raw(),
      readAll: this.db.prepare<[number, number], EventRow>(`${SELECT} WHERE position > ? ORDER BY position LIMIT ?`).raw(),
      streamName: this.db.prepare<[number], { stream_id: string }>('SELECT stream_id FROM streams WHERE stream_key = ?'),
      commitMetadata: this.db.prepare<[number], { metadata: string }>('SELECT metadata FROM events WHERE position = ?'),
      head: this.db.prepare<[], { position: number | null }>('SELECT MAX(position) AS position FROM events'),
    };
    this.appendTx = this.db.transaction((appends: StreamAppend[]) => {
      const head = this.stmts.chainHead.get();
      this.chainHead = head ? { position: head.position, hash: head.hash ? head.hash.toString('hex') : GENESIS_HASH } : { position: 0, hash: GENESIS_HASH };
      return appends.map((a) => this.appendOne(a));
    });
  }

  private appendOne({ streamId, events, expectedRevision }: StreamAppend): AppendResult {
    const stream = this.stmts.stream.get(streamId);
    const current = stream?.revision ?? -1;
    // A retry carries the ids of events already in this stream, where the first attempt put
    // them: right after the revision it expected (for 'any': the stream's tail, so a retry is
    // recognised while nothing else was appended to the stream in between, as in EventStoreDB).
    if (stream && events.length > 0 && expectedRevision !== current) {
      const from = typeof expectedRevision === 'number' ? expectedRevision + 1 : expectedRevision === 'no_stream' ? 0 : Math.max(0, current - events.length + 1);
      if (this.stmts.inStream.get(stream.stream_key, from, current, events[0]!.id)) return this.retriedResult(stream.stream_key, events, from, current);
    }
    checkExpected(streamId, expectedRevision, current);
    if (events.length === 0) return { nextExpectedRevision: current, position: this.stmts.head.get()?.position ?? 0 };
    const key = stream ? stream.stream_key : Number(this.stmts.newStream.run(streamId, -1).lastInsertRowid);
    let revision = current;
    let position = 0;
    let lastMeta: unknown;
    let metaCanonical = '';
    let commitPosition = 0;
    for (const e of events) {
      revision += 1;
      const data = this.serialized.get(e) ?? this.toJson(e.data);
      const first = e.metadata !== lastMeta;
      if (first) {
        lastMeta = e.metadata;
        metaCanonical = this.toJson(e.metadata);
      }
      position = this.chainHead.position + 1;
      const link = this.chainLink(this.chainHead.hash, { id: e.id, stream: streamId, revision, position, type: e.type, data, metadata: metaCanonical });
      const hash = link ?? GENESIS_HASH;
      const hashBytes = link === null ? null : Buffer.from(link, 'hex');
      if (first) {
        // The first event of a run with the same metadata (a command's events share theirs) carries it.
        commitPosition = position;
        this.stmts.insertFirst.run(position, e.id, key, revision, e.type, data, metaCanonical, hashBytes);
      } else {
        this.stmts.insertNext.run(position, e.id, key, revision, e.type, data, commitPosition, hashBytes);
      }
      this.chainHead = { position, hash };
    }
    this.stmts.setRevision.run(revision, key);
    return { nextExpectedRevision: revision, position };
  }

  /**
   * Event data as JSON, made before the write transaction and in slices that let the event loop
   * answer requests in between: a 200,000-row import is 200 events of 1,000 rows, and turning
   * them all into JSON inside the transaction held the request thread for most of a second.
   * Small appends never wait.
   */
  private async serializeInSlices(appends: StreamAppend[]): Promise<number> {
    let slice = performance.now();
    let chars = 0;
    for (const a of appends) {
      for (const e of a.events) {
        // Held by the bulk writer thread (a staged import): appended there, never serialised here.
        if (e.data instanceof StagedData) {
          chars += BULK_CHARS + 1;
          continue;
        }
        const json = this.toJson(e.data);
        chars += json.length;
        this.serialized.set(e, json);
        if (performance.now() - slice > SLICE_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          slice = performance.now();
        }
      }
    }
    return chars;
  }

  /** Canonical JSON (RFC 8785; Dates and undefined fields as JSON.stringify treats them): what is stored and what the hash covers. */
  protected toJson(value: unknown): string {
    return canonicalJson(value);
  }

  /**
   * The event's hash, chained to the previous event's (./chain.ts); null stores none (a
   * benchmark's baseline without the chain: `make verify` reports such rows as missing_hash).
   */
  protected chainLink(previous: string, content: ChainContent): string | null {
    return chainHash(previous, content);
  }

  private prepared(a: StreamAppend): PreparedAppend {
    return {
      streamId: a.streamId,
      expectedRevision: a.expectedRevision,
      events: a.events.map((e) => (e.data instanceof StagedData
        ? { id: e.id, type: e.type, metadata: e.metadata, json: '', staged: { stage: e.data.stage, index: e.data.index } }
        : { id: e.id, type: e.type, metadata: e.metadata, json: this.serialized.get(e)! })),
    };
  }

  /** The bulk writer's side: events whose data is JSON already, appended here in one transaction. */
  appendPrepared(appends: PreparedAppend[]): AppendResult[] {
    const plain = appends.map((a) => ({
      streamId: a.streamId,
      expectedRevision: a.expectedRevision,
      events: a.events.map((e) => {
        const event: NewEvent = { id: e.id, type: e.type, data: null, metadata: e.metadata };
        this.serialized.set(event, e.json);
        return event;
      }),
    }));
    return this.appendTx.immediate(plain);
  }

  /** Rows to events: stream names from the cache, and one parsed metadata object per append. */
  private toRecorded(rows: EventRow[]): RecordedEvent[] {
    const metas = new Map<number, RecordedEvent['metadata']>();
    return rows.map((row) => {
      const [position, id, streamKey, revision, type, data, metadataJson, commitPosition] = row;
      let streamId = this.streamNames.get(streamKey);
      if (streamId === undefined) {
        streamId = this.stmts.streamName.get(streamKey)!.stream_id;
        this.streamNames.set(streamKey, streamId);
      }
      const commit = commitPosition ?? position;
      let metadata = metas.get(commit);
      if (!metadata) {
        const json = metadataJson ?? this.stmts.commitMetadata.get(commit)!.metadata;
        metas.set(commit, (metadata = JSON.parse(json) as RecordedEvent['metadata']));
      }
      return { id, type, data: JSON.parse(data), metadata, streamId, revision, position };
    });
  }

  /** The same event ids appended again: nothing new is stored. */
  private retriedResult(streamKey: number, events: NewEvent[], from: number, to: number): AppendResult {
    let last: { position: number; revision: number } | undefined;
    for (const e of events) {
      const found = this.stmts.inStream.get(streamKey, from, to, e.id);
      if (!found) throw new ConflictError('Some of these events were stored before and some were not', 'partial_retry', { streamKey });
      last = found;
    }
    return { nextExpectedRevision: last!.revision, position: last!.position };
  }

  async appendToStream(streamId: string, events: NewEvent[], expectedRevision: ExpectedRevision = 'any'): Promise<AppendResult> {
    const [result] = await this.appendMany([{ streamId, events, expectedRevision }]);
    return result!;
  }

  async appendMany(appends: StreamAppend[]): Promise<AppendResult[]> {
    const chars = await this.serializeInSlices(appends);
    // While the bulk writer holds SQLite's write lock, an append here would wait for it inside
    // SQLite (busy_timeout), holding the request thread: it waits for the bulk append's answer.
    while (this.bulkInFlight) await this.bulkInFlight.catch(() => undefined);
    let results: AppendResult[];
    if (chars > BULK_CHARS && !this.options.bulkWriter && appends.some((a) => a.events.some((e) => e.data instanceof StagedData))) {
      throw new Error('staged events can only be appended through the bulk writer');
    }
    if (chars > BULK_CHARS && this.options.bulkWriter) {
      // A large append (an import) is written by a thread of its own, on its own connection: the
      // same transaction, but its tens of megabytes and its fsync no longer hold the request thread.
      const writing = (this.bulk ??= new BulkWriter(this.file, this.options.synchronous ?? 'FULL')).append(appends.map((a) => this.prepared(a)));
      this.bulkInFlight = writing;
      try {
        results = await writing;
      } finally {
        if (this.bulkInFlight === writing) this.bulkInFlight = undefined;
      }
    } else {
      results = this.appendTx.immediate(appends);
    }
    this.signal.notify();
    for (const listener of this.appendListeners) listener();
    return results;
  }

  /**
   * Large statement imports parsed, decided and made into events in the bulk writer thread
   * (statement-stage.ts); none without the bulk writer.
   */
  statementStager(): StatementStager | undefined {
    if (!this.options.bulkWriter) return undefined;
    // The thread starts on the first large import, as it does for the first large append.
    const stager = () => (this.bulk ??= new BulkWriter(this.file, this.options.synchronous ?? 'FULL')).stager();
    return { stage: (bytes, options) => stager().stage(bytes, options), decide: (stage, input) => stager().decide(stage, input), release: (stage) => stager().release(stage) };
  }

  /** Called after every append of this connection (the projector thread is told so, ADR 0008). */
  onAppend(listener: () => void): void {
    this.appendListeners.push(listener);
  }

  /** Wakes this connection's subscriptions now: another connection has appended (the projector thread, ADR 0008). */
  wake(): void {
    this.signal.notify();
  }

  async readStream(streamId: string, options: { fromRevision?: number; maxCount?: number } = {}): Promise<RecordedEvent[]> {
    return this.toRecorded(this.stmts.readStream.all(streamId, options.fromRevision ?? 0, options.maxCount ?? -1));
  }

  /**
   * Stops once the events read hold READ_BUDGET_CHARS of data (at least one event): an import's
   * events carry 1,000 rows each, and parsing 200 of them at once held the request thread.
   */
  async readAll({ after, maxCount }: { after: number; maxCount: number }): Promise<RecordedEvent[]> {
    const rows: EventRow[] = [];
    let chars = 0;
    for (const row of this.stmts.readAll.iterate(after, maxCount)) {
      rows.push(row);
      chars += row[5].length;
      if (chars >= READ_BUDGET_CHARS) break;
    }
    return this.toRecorded(rows);
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
    await this.bulk?.close();
    if (this.db.open) this.db.close();
  }
}
