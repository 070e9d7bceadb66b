import type { NewEvent, RecordedEvent } from '../core/events';

/**
 * Expected revision of a stream before an append: a number is the revision of its last
 * event; 'no_stream' means it must not exist; 'stream_exists' that it must; 'any' skips the check.
 */
export type ExpectedRevision = number | 'no_stream' | 'stream_exists' | 'any';

export interface AppendResult {
  /** Revision of the stream's last event after the append. */
  nextExpectedRevision: number;
  /** Global position of the last appended event. */
  position: number;
}

export interface StreamAppend {
  streamId: string;
  events: NewEvent[];
  expectedRevision: ExpectedRevision;
}

export interface Subscription {
  close(): Promise<void>;
}

export interface SubscribeOptions {
  /** Deliver events with a position strictly greater than this (0 = from the beginning). */
  after: number;
  /** Upper bound on events handed to the handler at once. */
  batchSize?: number;
  /** Called when the subscription fails for good (the handler threw, or the server went away). */
  onError?: (error: unknown) => void;
}

/**
 * The event store port. Every adapter passes `infra/src/eventstore/contract.ts`.
 *
 * - Appends check the expected revision (a mismatch throws ConcurrencyError).
 * - Appending events whose ids are already stored (a retry) stores nothing new and returns
 *   the original result.
 * - An acknowledged append is durable.
 */
export interface EventStore {
  readonly kind: string;
  appendToStream(streamId: string, events: NewEvent[], expectedRevision?: ExpectedRevision): Promise<AppendResult>;
  /**
   * Appends to several streams. Atomic where the adapter can do it (SQLite); elsewhere in
   * order, stopping at the first failure. Returns one result per stream append.
   */
  appendMany(appends: StreamAppend[]): Promise<AppendResult[]>;
  /** All events of a stream from a revision (inclusive), oldest first; [] for a missing stream. */
  readStream(streamId: string, options?: { fromRevision?: number; maxCount?: number }): Promise<RecordedEvent[]>;
  /**
   * Events of the global log with a position strictly greater than `after`, oldest first: at
   * most `maxCount`, and a store may return fewer (a size budget); only [] means none is left.
   */
  readAll(options: { after: number; maxCount: number }): Promise<RecordedEvent[]>;
  /** Position of the newest event (0 when empty). */
  headPosition(): Promise<number>;
  /**
   * At most `maxCount` events strictly before `before` (an event's position; undefined: the end
   * of the log), newest first; fewer only at the start of the log. Offered where positions are
   * not consecutive numbers (EventStoreDB: byte offsets), so that none has to be computed.
   */
  readAllBackwards?(options: { before?: number; maxCount: number }): Promise<RecordedEvent[]>;
  /** Catches up from `after`, then delivers live events in order. The handler runs one batch at a time. */
  subscribeToAll(options: SubscribeOptions, handler: (events: RecordedEvent[]) => Promise<void>): Subscription;
  close(): Promise<void>;
}
