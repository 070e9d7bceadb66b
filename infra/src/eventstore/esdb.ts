import {
  ANY,
  BACKWARDS,
  END,
  ErrorType,
  EventStoreDBClient,
  excludeSystemEvents,
  FORWARDS,
  jsonEvent,
  MaxAppendSizeExceededError,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type EventData,
  type JSONType,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  ConcurrencyError,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type StreamAppend,
  type SubscribeOptions,
  type Subscription,
} from '@paperlink/domain';
import { appendInChunks, DEFAULT_APPEND_RETRY, DEFAULT_MAX_APPEND_BYTES, sendWithRetries, type RetryPolicy } from './esdb-append';
import { DEFAULT_RESUBSCRIBE, resubscribing, type ResubscribePolicy, type SubscriptionAttempt } from './esdb-subscription';

function expectedFor(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  if (expected === 'any') return ANY;
  return BigInt(expected);
}

/**
 * Our global position: the commit position in EventStoreDB's log. Every event the gRPC API
 * writes is its own committed record (commit = prepare position), so it is strictly increasing
 * on $all, and a real position to read from. It is a byte offset: positions between two events
 * are not events, and a read from one is refused (never compute one).
 */
const positionOf = (p: { commit: bigint } | undefined) => (p ? Number(p.commit) : 0);
const fromPosition = (after: number) => (after > 0 ? { commit: BigInt(after), prepare: BigInt(after) } : START);

function toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined {
  const e = resolved.event;
  if (!e || !e.isJson) return undefined;
  const recorded: RecordedEvent = {
    id: e.id,
    type: e.type,
    data: e.data,
    metadata: e.metadata as unknown as EventMetadata,
    streamId: e.streamId,
    revision: Number(e.revision),
    position: positionOf(e.position),
  };
  return isSystem(recorded) ? undefined : recorded;
}

const isSystem = (e: RecordedEvent) => e.type.startsWith('$') || e.streamId.startsWith('$');

/** Failures after which an append may or may not have been written: sent again as it was (esdb-append.ts). */
const TRANSIENT = new Set<string>([ErrorType.DEADLINE_EXCEEDED, ErrorType.UNAVAILABLE, ErrorType.NOT_LEADER, ErrorType.TIMEOUT]);
const isTransient = (error: unknown) => typeof (error as { type?: unknown })?.type === 'string' && TRANSIENT.has((error as { type: string }).type);

/** The part of the client this store uses (a test gives a fake one). */
export type EsdbClient = Pick<EventStoreDBClient, 'appendToStream' | 'readStream' | 'readAll' | 'subscribeToAll' | 'dispose'>;

export interface EsdbOptions {
  /** Bytes one append may carry (EVENTSTORE_MAX_APPEND_BYTES; at most the server's MaxAppendSize). */
  maxAppendBytes?: number;
  appendRetry?: RetryPolicy;
  resubscribe?: ResubscribePolicy;
}

/**
 * The distributed event store: EventStoreDB through its gRPC client. Event ids are passed
 * through, so EventStoreDB's own idempotency makes a retried append store nothing new.
 * appendMany is not atomic here: streams are appended in order and the first failure stops it
 * (ADR 0016: plans are ordered so that a prefix is harmless or completed by the retry).
 */
export class EsdbEventStore implements EventStore {
  readonly kind = 'eventstoredb';
  private readonly client: EsdbClient;
  private readonly maxAppendBytes: number;

  constructor(connection: string | EsdbClient, private readonly options: EsdbOptions = {}) {
    // A seed list (esdb://a:2113,b:2113,c:2113) goes to the client as it is: it asks the nodes for the leader.
    this.client = typeof connection === 'string' ? EventStoreDBClient.connectionString(connection) : connection;
    this.maxAppendBytes = options.maxAppendBytes ?? DEFAULT_MAX_APPEND_BYTES;
  }

  async appendToStream(streamId: string, events: NewEvent[], expectedRevision: ExpectedRevision = 'any'): Promise<AppendResult> {
    const payload = events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data as JSONType, metadata: e.metadata as unknown as Record<string, unknown> }));
    const result = await appendInChunks(streamId, payload, expectedRevision, this.maxAppendBytes, (chunk, expected) => this.appendChunk(streamId, chunk, expected));
    return result.position > 0 || result.nextExpectedRevision < 0 ? result : { ...result, position: await this.positionOfRevision(streamId, result.nextExpectedRevision) };
  }

  /** One append the server takes whole, sent again as it was after a failure without an answer. */
  private async appendChunk(streamId: string, chunk: EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    try {
      const result = await sendWithRetries(
        () => this.client.appendToStream(streamId, chunk, { expectedRevision: expectedFor(expected) }),
        isTransient,
        this.options.appendRetry ?? DEFAULT_APPEND_RETRY,
      );
      return { nextExpectedRevision: Number(result.nextExpectedRevision), position: positionOf(result.position) };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = error.actualVersion;
        throw new ConcurrencyError(streamId, String(expected), actual === undefined ? 'unknown' : String(actual));
      }
      if (error instanceof MaxAppendSizeExceededError) {
        throw new Error(`EventStoreDB takes at most ${error.maxAppendSize} bytes in one append (its MaxAppendSize); set EVENTSTORE_MAX_APPEND_BYTES to at most that (now ${this.maxAppendBytes})`);
      }
      throw error;
    }
  }

  /**
   * The position of a stream's event: a write the server recognised as a retry answers with the
   * revision, and with a position only when its index already holds the event.
   */
  private async positionOfRevision(streamId: string, revision: number): Promise<number> {
    const [event] = await this.readStream(streamId, { fromRevision: revision, maxCount: 1 });
    return event?.position ?? 0;
  }

  async appendMany(appends: StreamAppend[]): Promise<AppendResult[]> {
    const results: AppendResult[] = [];
    for (const a of appends) results.push(await this.appendToStream(a.streamId, a.events, a.expectedRevision));
    return results;
  }

  async readStream(streamId: string, options: { fromRevision?: number; maxCount?: number } = {}): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(streamId, {
        fromRevision: options.fromRevision ? BigInt(options.fromRevision) : START,
        direction: FORWARDS,
        ...(options.maxCount !== undefined ? { maxCount: options.maxCount } : {}),
      });
      for await (const resolved of read) {
        const e = toRecorded(resolved);
        if (e) out.push(e);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return out;
  }

  async readAll({ after, maxCount }: { after: number; maxCount: number }): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    let from = after;
    while (out.length < maxCount) {
      // Reading from a position includes the event at it: one more is asked for and that one dropped.
      const asked = maxCount - out.length + 1;
      let read = 0;
      let last = from;
      const page = this.client.readAll({ fromPosition: fromPosition(from), direction: FORWARDS, maxCount: asked });
      for await (const resolved of page) {
        read++;
        const position = positionOf(resolved.event?.position);
        if (position <= from) continue;
        last = position;
        const e = toRecorded(resolved);
        if (e) out.push(e);
        if (out.length >= maxCount) break;
      }
      // A short page is the end of the log; system events ($stats, $metadata) can take places in a full one.
      if (read < asked || last === from) break;
      from = last;
    }
    return out;
  }

  /**
   * At most `maxCount` events strictly before `before` (an event's position; undefined: the end
   * of the log), newest first, system events left out (fewer only at the start of the log): how
   * a moment's position is found by real positions (query-api history/position-at.ts).
   */
  async readAllBackwards({ before, maxCount }: { before?: number; maxCount: number }): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    let from = before;
    while (out.length < maxCount) {
      // One more than needed: a read from a position may include the event at it, which is dropped.
      const asked = maxCount - out.length + 1;
      let read = 0;
      let oldest = from;
      const page = this.client.readAll({ fromPosition: from === undefined ? END : fromPosition(from), direction: BACKWARDS, maxCount: asked });
      for await (const resolved of page) {
        read++;
        const position = positionOf(resolved.event?.position);
        if (from !== undefined && position >= from) continue;
        oldest = position;
        const e = toRecorded(resolved);
        if (e) out.push(e);
        if (out.length >= maxCount) break;
      }
      // A short page is the start of the log; system events can take places in a full one.
      if (read < asked || oldest === undefined || oldest === from) break;
      from = oldest;
    }
    return out;
  }

  async headPosition(): Promise<number> {
    const [newest] = await this.readAllBackwards({ maxCount: 1 });
    return newest?.position ?? 0;
  }

  subscribeToAll(options: SubscribeOptions, handler: (events: RecordedEvent[]) => Promise<void>): Subscription {
    const open = (after: number): SubscriptionAttempt => {
      const sub = this.client.subscribeToAll({ fromPosition: fromPosition(after), filter: excludeSystemEvents() });
      return {
        events: (async function* () {
          for await (const resolved of sub) yield toRecorded(resolved);
        })(),
        close: () => sub.unsubscribe(),
      };
    };
    return resubscribing(open, options, handler, this.options.resubscribe ?? DEFAULT_RESUBSCRIBE);
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}
