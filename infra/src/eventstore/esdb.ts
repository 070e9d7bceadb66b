import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  excludeSystemEvents,
  FORWARDS,
  jsonEvent,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
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

function expectedFor(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  if (expected === 'any') return ANY;
  return BigInt(expected);
}

/** Our global position: the commit position in EventStoreDB's log (strictly increasing on $all). */
const positionOf = (p: { commit: bigint } | undefined) => (p ? Number(p.commit) : 0);

function toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined {
  const e = resolved.event;
  if (!e || !e.isJson) return undefined;
  return {
    id: e.id,
    type: e.type,
    data: e.data,
    metadata: e.metadata as unknown as EventMetadata,
    streamId: e.streamId,
    revision: Number(e.revision),
    position: positionOf(e.position),
  };
}

const isSystem = (e: RecordedEvent) => e.type.startsWith('$') || e.streamId.startsWith('$');

/**
 * The distributed event store: EventStoreDB through its gRPC client. Event ids are passed
 * through, so EventStoreDB's own idempotency makes a retried append store nothing new.
 * appendMany is not atomic here: streams are appended in order and the first failure stops it.
 */
export class EsdbEventStore implements EventStore {
  readonly kind = 'eventstoredb';
  private readonly client: EventStoreDBClient;

  constructor(connectionString: string) {
    this.client = EventStoreDBClient.connectionString(connectionString);
  }

  async appendToStream(streamId: string, events: NewEvent[], expectedRevision: ExpectedRevision = 'any'): Promise<AppendResult> {
    try {
      const result = await this.client.appendToStream(
        streamId,
        events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data as Record<string, unknown>, metadata: e.metadata as unknown as Record<string, unknown> })),
        { expectedRevision: expectedFor(expectedRevision) },
      );
      return { nextExpectedRevision: Number(result.nextExpectedRevision), position: positionOf(result.position) };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = error.actualVersion;
        throw new ConcurrencyError(streamId, String(expectedRevision), actual === undefined ? 'unknown' : String(actual));
      }
      throw error;
    }
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
    const from = after > 0 ? { commit: BigInt(after), prepare: BigInt(after) } : START;
    // Reading from a position includes the event at it; ask for one more and drop it.
    const read = this.client.readAll({ fromPosition: from, direction: FORWARDS, maxCount: maxCount + 1 });
    for await (const resolved of read) {
      const e = toRecorded(resolved);
      if (!e || isSystem(e) || e.position <= after) continue;
      out.push(e);
      if (out.length >= maxCount) break;
    }
    return out;
  }

  async headPosition(): Promise<number> {
    const read = this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 50 });
    for await (const resolved of read) {
      const e = toRecorded(resolved);
      if (e && !isSystem(e)) return e.position;
    }
    return 0;
  }

  subscribeToAll(options: SubscribeOptions, handler: (events: RecordedEvent[]) => Promise<void>): Subscription {
    const from = options.after > 0 ? { commit: BigInt(options.after), prepare: BigInt(options.after) } : START;
    const sub = this.client.subscribeToAll({ fromPosition: from, filter: excludeSystemEvents() });
    let closed = false;
    const done = (async () => {
      // Back-pressure: the handler finishes before the next event is taken.
      for await (const resolved of sub) {
        if (closed) break;
        const e = toRecorded(resolved);
        if (!e || isSystem(e) || e.position <= options.after) continue;
        await handler([e]);
      }
    })().catch((error: unknown) => {
      if (closed) return;
      if (options.onError) options.onError(error);
      else console.error('EventStoreDB subscription stopped', error);
    });
    return {
      async close() {
        closed = true;
        await sub.unsubscribe();
        await done;
      },
    };
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}
