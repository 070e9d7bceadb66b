import { createHash, randomUUID } from 'node:crypto';
import {
  ConcurrencyError,
  ConflictError,
  fold,
  type Decider,
  type DomainEvent,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RequestContext,
  type StreamAppend,
} from '@paperlink/domain';
import type { SessionGrant } from './tokens';

/** What a command handler wants appended, and what to answer. */
export interface Plan<Body = unknown> {
  appends: Array<{ streamId: string; expectedRevision: ExpectedRevision; events: DomainEvent[] }>;
  status?: number;
  body: Body;
  /** Tokens to mint into the answer (accessToken, refreshToken), reproducibly. */
  grant?: SessionGrant;
}

export interface Reply {
  status: number;
  body: unknown;
  grant?: SessionGrant;
  /** Global position of the last event appended (0 when nothing was). */
  position: number;
}

interface RequestCompleted {
  type: 'RequestCompleted';
  data: { requestId: string; fingerprint: string; status: number; body: unknown; grant?: SessionGrant };
}

export interface Loaded<S> {
  state: S;
  /** Revision to expect when appending ('no_stream' for a new stream). */
  expected: ExpectedRevision;
}

const MAX_ATTEMPTS = 4;

/**
 * Runs commands: plan (read streams, decide), then append every stream of the plan together
 * with a record of the request, so that a retry with the same X-Request-Id appends nothing
 * new and gets the same answer. A concurrency conflict re-plans against the new state.
 */
export class CommandBus {
  constructor(
    readonly events: EventStore,
    private readonly waitForProjections: (position: number) => Promise<boolean> = async () => true,
  ) {}

  /** Waits until the read models include `position` (a plan about to read them). */
  async caughtUp(position: number): Promise<void> {
    await this.waitForProjections(position);
  }

  async load<S, C, E extends DomainEvent>(streamId: string, decider: Decider<S, C, E>): Promise<Loaded<S>> {
    const recorded = await this.events.readStream(streamId);
    const state = fold(decider, recorded as unknown as E[]);
    return { state, expected: recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1]!.revision };
  }

  metadata(ctx: RequestContext): EventMetadata {
    return {
      ...(ctx.companyId ? { companyId: ctx.companyId } : {}),
      ...(ctx.userId ? { userId: ctx.userId } : {}),
      requestId: ctx.requestId,
      correlationId: ctx.correlationId,
      causationId: ctx.requestId,
      occurredAt: ctx.now.toISOString(),
    };
  }

  /**
   * @param idempotencyKey the client's X-Request-Id (undefined: no retry protection)
   * @param fingerprint identifies the request (method, path, caller, body) so that a reused id with another request is refused
   */
  async run(ctx: RequestContext, plan: () => Promise<Plan>, idempotency?: { key: string; fingerprint: string }): Promise<Reply> {
    const recordStream = idempotency ? `request-${createHash('sha256').update(idempotency.key).digest('hex').slice(0, 40)}` : undefined;
    if (recordStream) {
      const previous = await this.previousReply(recordStream, idempotency!.fingerprint);
      if (previous) return previous;
    }
    for (let attempt = 1; ; attempt++) {
      const p = await plan();
      const meta = this.metadata(ctx);
      const appends: StreamAppend[] = p.appends
        .filter((a) => a.events.length > 0)
        .map((a) => ({ streamId: a.streamId, expectedRevision: a.expectedRevision, events: a.events.map((e) => this.newEvent(e, meta)) }));
      const reply: Omit<Reply, 'position'> = { status: p.status ?? 200, body: p.body, ...(p.grant ? { grant: p.grant } : {}) };
      try {
        if (recordStream) {
          const record: RequestCompleted = {
            type: 'RequestCompleted',
            data: { requestId: idempotency!.key, fingerprint: idempotency!.fingerprint, ...reply },
          };
          // Last, and in the same atomic append where the store can: the record exists only if the events do.
          appends.push({ streamId: recordStream, expectedRevision: 'no_stream', events: [this.newEvent(record, meta)] });
        }
        const results = appends.length > 0 ? await this.events.appendMany(appends) : [];
        const position = results.reduce((max, r) => Math.max(max, r.position), 0);
        if (position > 0) await this.waitForProjections(position);
        return { ...reply, position };
      } catch (error) {
        if (error instanceof ConcurrencyError && error.streamId === recordStream) {
          const previous = await this.previousReply(recordStream, idempotency!.fingerprint);
          if (previous) return previous;
        }
        if (!(error instanceof ConcurrencyError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  private async previousReply(recordStream: string, fingerprint: string): Promise<Reply | undefined> {
    const [record] = await this.events.readStream(recordStream, { maxCount: 1 });
    if (!record) return undefined;
    const data = (record.data as RequestCompleted['data']);
    if (data.fingerprint !== fingerprint) {
      throw new ConflictError('This X-Request-Id was already used for a different request', 'request_id_reused');
    }
    await this.waitForProjections(record.position);
    return { status: data.status, body: data.body, position: record.position, ...(data.grant ? { grant: data.grant } : {}) };
  }

  private newEvent(e: DomainEvent, metadata: EventMetadata): NewEvent {
    return { id: randomUUID(), type: e.type, data: e.data, metadata };
  }
}

export function fingerprint(parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
}
