import { randomBytes, randomUUID } from 'node:crypto';
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
  PreconditionFailedError,
  type RequestContext,
  type StreamAppend,
  requestStream,
} from '@paperlink/domain';
import { appendEventIds, type IdSeed } from './event-ids';
import { keyedFingerprint } from './fingerprint';
import type { SessionGrant } from './tokens';

/** What a command handler wants appended, and what to answer. */
export interface Plan<Body = unknown> {
  appends: Array<{ streamId: string; expectedRevision: ExpectedRevision; events: DomainEvent[] }>;
  status?: number;
  body: Body;
  /** Tokens to mint into the answer (accessToken, refreshToken), reproducibly. */
  grant?: SessionGrant;
  /**
   * false: answer once appended, without waiting for the read models to include the events.
   * Only for a plan whose events change nothing the caller reads back (a refresh's new expiry,
   * ADR 0029); every other answer waits (read-your-writes).
   */
  waitForReadModels?: boolean;
  /**
   * The longest the answer waits for the read models, ms, when less than the bus's own wait; 0:
   * no wait, the answer only says whether they hold its events already (X-Read-Side). For a plan
   * whose projection takes longer than any wait (a very large import, ADR 0030): waiting would
   * only delay an answer that says `behind` anyway.
   */
  readSideWaitMs?: number;
}

export interface Reply {
  status: number;
  body: unknown;
  grant?: SessionGrant;
  /** Global position of the last event appended (0 when nothing was). */
  position: number;
  /**
   * Whether the read models held `position` when the answer was sent: 'behind' when the wait
   * (READ_SIDE_WAIT_MS) ended first, as for a very large import; absent when nothing was waited for.
   */
  readSide?: 'current' | 'behind';
}

/**
 * The record of a request, in the request's own stream. `fingerprint` is keyed and holds no
 * secret field (version 2). Records written before that (no version) are rewritten on start
 * to version 0: fingerprint dropped, so they can no longer be matched and a reuse of their id
 * is refused (infra/src/eventstore/upgrade-request-records.ts).
 */
export interface RequestCompleted {
  type: 'RequestCompleted';
  data: { requestId: string; fingerprint?: string; fingerprintVersion?: number; status: number; body: unknown; grant?: SessionGrant };
}

/** The version of fingerprint this bus writes and matches. */
export const FINGERPRINT_VERSION = 2;

export interface Idempotency {
  /** The client's X-Request-Id. */
  key: string;
  /** From CommandBus.fingerprint: what makes this request this request, without its secrets. */
  fingerprint: string;
  /**
   * Whether a recorded reply that carries a session grant (tokens) may be handed to this
   * request; for routes whose secret (left out of the fingerprint) is checked some other way.
   * Without it, the request's own plan must grant tokens to the same user (see run).
   */
  mayReplayGrant?: (previous: Reply) => Promise<boolean>;
}

export interface Loaded<S> {
  state: S;
  /** Revision to expect when appending ('no_stream' for a new stream). */
  expected: ExpectedRevision;
}

/** One append of a plan. */
export type PlannedAppend = Plan['appends'][number];

/** A decision on one stream (CommandBus.handle). */
export interface Handled<S, E extends DomainEvent> {
  /** The state folded from the stream, before the command. */
  state: S;
  /** What the decider decided (none: nothing to change). */
  events: E[];
  /** The state with those events applied. */
  after: S;
  /**
   * How many events the stream held when read: the record's revision as the query side shows it
   * (ETag), and what an If-Match must name.
   */
  revision: number;
  /** The append at the revision read (optimistic concurrency); put it in the plan. */
  append: PlannedAppend;
}

export interface HandleOptions {
  /**
   * The revision the caller last read (If-Match): when the stream holds another, the command is
   * refused with 412 and nothing is decided. Undefined: no condition.
   */
  ifRevision?: number | undefined;
  /** Message of the 412 (what changed, for people). */
  staleMessage?: string;
}

const MAX_ATTEMPTS = 4;

/**
 * Runs commands: plan (read streams, decide), then append every stream of the plan together
 * with a record of the request, so that a retry with the same X-Request-Id appends nothing
 * new and gets the same answer. A concurrency conflict re-plans against the new state.
 */
export class CommandBus {
  /** Key of request fingerprints (infra derives it from the signing secret; else one per process). */
  private readonly fingerprintKey: Uint8Array;

  constructor(
    readonly events: EventStore,
    /** Resolves whether the read models hold `position`, waiting at most the bus's wait, or `maxMs` when less. */
    private readonly waitForProjections: (position: number, maxMs?: number) => Promise<boolean> = async () => true,
    fingerprintKey?: Uint8Array,
  ) {
    this.fingerprintKey = fingerprintKey ?? new Uint8Array(randomBytes(32));
  }

  /** The keyed fingerprint of a request's parts; secret fields are left out (see core/fingerprint.ts). */
  fingerprint(parts: unknown[]): string {
    return keyedFingerprint(this.fingerprintKey, parts);
  }

  /**
   * Waits (as long as the bus's wait allows, infra's READ_SIDE_WAIT_MS) until the read models
   * include `position`; resolves whether they do. A plan about to decide on them uses
   * requireCaughtUp / readSideCurrent (core/read-side.ts), which refuse the command (503 with
   * Retry-After) when they do not (docs/decisions/0023-decisions-and-read-model-lag.md).
   */
  async caughtUp(position: number): Promise<boolean> {
    return this.waitForProjections(position);
  }

  /**
   * A stream's folded state without a decision, for a command on another stream that needs it
   * (a split reads its transaction). A command on the stream itself goes through `handle`.
   */
  async load<S, C, E extends DomainEvent>(streamId: string, decider: Decider<S, C, E>): Promise<Loaded<S>> {
    const recorded = await this.events.readStream(streamId);
    const state = fold(decider, recorded as unknown as E[]);
    return { state, expected: recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1]!.revision };
  }

  /**
   * The one way a command meets its stream: read the stream, fold it with the decider, decide
   * the command (or the command built from the folded state) and plan the append at the revision
   * read, so a concurrent writer makes `run` plan again. Deciders throw the domain's typed errors.
   */
  async handle<S, C, E extends DomainEvent>(
    streamId: string,
    decider: Decider<S, C, E>,
    command: C | ((state: S) => C),
    options: HandleOptions = {},
  ): Promise<Handled<S, E>> {
    const recorded = await this.events.readStream(streamId);
    const state = fold(decider, recorded as unknown as E[]);
    const revision = recorded.length === 0 ? 0 : recorded[recorded.length - 1]!.revision + 1;
    if (options.ifRevision !== undefined && options.ifRevision !== revision) throw new PreconditionFailedError(options.staleMessage);
    const events = decider.decide(typeof command === 'function' ? (command as (state: S) => C)(state) : command, state);
    const after = events.reduce(decider.evolve, state);
    const expectedRevision: ExpectedRevision = revision === 0 ? 'no_stream' : revision - 1;
    return { state, events, after, revision, append: { streamId, expectedRevision, events } };
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
   * @param idempotency the client's X-Request-Id and the request's fingerprint (undefined: no
   * retry protection). A reused id with another fingerprint is refused (409 request_id_reused).
   *
   * A recorded reply carrying a session grant (tokens) is not replayed on the fingerprint
   * alone, because secrets (passwords, refresh tokens) are left out of fingerprints: unless
   * `mayReplayGrant` decides, the request is planned again against the current state, and the
   * recorded reply is replayed only when this plan too grants tokens to the same user (a login
   * with the right password; a refresh inside the parallel-tab grace). Otherwise this plan's
   * answer stands (a wrong password's 401; a reused refresh token revoking its family), and
   * its events are appended without a new record.
   */
  async run(ctx: RequestContext, plan: () => Promise<Plan>, idempotency?: Idempotency): Promise<Reply> {
    const recordStream = idempotency ? requestStream(idempotency.key) : undefined;
    /** A recorded reply with tokens, replayed only if this request's own plan grants them too. */
    let pending: Reply | undefined;
    if (recordStream) {
      const previous = await this.previousReply(recordStream, idempotency!.fingerprint);
      if (previous) {
        if (await this.replayNow(previous, idempotency!)) return previous;
        pending = previous;
      }
    }
    // Event ids from the request and each event's place (core/event-ids.ts): the same append sent
    // again is recognised by the store; the run holds across this loop's attempts.
    const seed: IdSeed = { key: this.fingerprintKey, request: idempotency ? `${idempotency.key}\n${idempotency.fingerprint}` : ctx.requestId, run: randomUUID() };
    for (let attempt = 1; ; attempt++) {
      const p = await plan();
      if (pending && grantsSameUser(p, pending)) return pending;
      const meta = this.metadata(ctx);
      const appends: StreamAppend[] = p.appends.filter((a) => a.events.length > 0).map((a) => this.streamAppend(seed, a, meta));
      const reply: Omit<Reply, 'position'> = { status: p.status ?? 200, body: p.body, ...(p.grant ? { grant: p.grant } : {}) };
      try {
        if (recordStream && !pending) {
          const record: RequestCompleted = {
            type: 'RequestCompleted',
            data: { requestId: idempotency!.key, fingerprint: idempotency!.fingerprint, fingerprintVersion: FINGERPRINT_VERSION, ...reply },
          };
          // Last, and in the same atomic append where the store can: the record exists only if the events do.
          appends.push(this.streamAppend(seed, { streamId: recordStream, expectedRevision: 'no_stream', events: [record] }, meta));
        }
        const results = appends.length > 0 ? await this.events.appendMany(appends) : [];
        const position = results.reduce((max, r) => Math.max(max, r.position), 0);
        const readSide = position > 0 && p.waitForReadModels !== false ? await this.readSide(position, p.readSideWaitMs) : undefined;
        return { ...reply, position, ...(readSide ? { readSide } : {}) };
      } catch (error) {
        if (!pending && error instanceof ConcurrencyError && error.streamId === recordStream) {
          const previous = await this.previousReply(recordStream, idempotency!.fingerprint);
          if (previous) {
            if (grantsSameUser(p, previous) || (await this.replayNow(previous, idempotency!))) return previous;
            pending = previous;
          }
        }
        if (!(error instanceof ConcurrencyError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  private async previousReply(recordStream: string, fingerprint: string): Promise<Reply | undefined> {
    const [record] = await this.events.readStream(recordStream, { maxCount: 1 });
    if (!record) return undefined;
    const data = (record.data as RequestCompleted['data']);
    if (data.fingerprintVersion !== FINGERPRINT_VERSION || data.fingerprint !== fingerprint) {
      throw reused();
    }
    const readSide = await this.readSide(record.position);
    return { status: data.status, body: data.body, position: record.position, readSide, ...(data.grant ? { grant: data.grant } : {}) };
  }

  private async readSide(position: number, maxMs?: number): Promise<'current' | 'behind'> {
    return (await this.waitForProjections(position, maxMs)) ? 'current' : 'behind';
  }

  /** Whether a recorded reply is replayed without planning again (see run). */
  private async replayNow(previous: Reply, idempotency: Idempotency): Promise<boolean> {
    if (!previous.grant) return true;
    if (!idempotency.mayReplayGrant) return false;
    if (await idempotency.mayReplayGrant(previous)) return true;
    throw reused();
  }

  /** An append of the plan with its events' ids (core/event-ids.ts) and the request's metadata. */
  private streamAppend(seed: IdSeed, a: PlannedAppend, metadata: EventMetadata): StreamAppend {
    const ids = appendEventIds(seed, a);
    const events: NewEvent[] = a.events.map((e, i) => ({ id: ids[i]!, type: e.type, data: e.data, metadata }));
    return { streamId: a.streamId, expectedRevision: a.expectedRevision, events };
  }
}

function reused(): ConflictError {
  return new ConflictError('This X-Request-Id was already used for a different request', 'request_id_reused');
}

/** Whether a plan grants tokens to the user a recorded reply granted them to. */
function grantsSameUser(p: Plan, previous: Reply): boolean {
  return previous.grant !== undefined && p.grant !== undefined && (p.status ?? 200) < 300 && p.grant.userId === previous.grant.userId;
}
