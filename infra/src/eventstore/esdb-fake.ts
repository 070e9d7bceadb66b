/**
 * A fake EventStoreDB server behind the client's interface, for the unit tests of the adapter
 * (EventStoreDB cannot run on our machines; esdb.int.spec.ts runs the contract against a real
 * one where there is one). It keeps what the adapter relies on, as the server's source has it
 * (KurrentDB src/KurrentDB.Core): MaxAppendSize over Event.SizeOnDisk; the expected-revision
 * check and its idempotence (the same ids right after the expected revision answer as the first
 * write); positions that are byte offsets, so a read from a position no event has is refused;
 * subscriptions that the test can drop or end. Faults are scripted per append call.
 */
import {
  DeadlineExceededError,
  END,
  MaxAppendSizeExceededError,
  START,
  StreamNotFoundError,
  UnavailableError,
  WrongExpectedVersionError,
  type AppendExpectedRevision,
  type EventData,
} from '@eventstore/db-client';
import { eventSize } from './esdb-append';

interface Stored {
  id: string;
  type: string;
  data: unknown;
  metadata: unknown;
  streamId: string;
  revision: number;
  position: number;
}

type Position = { commit: bigint; prepare: bigint };
const resolved = (e: Stored) => ({
  event: { id: e.id, type: e.type, data: e.data, metadata: e.metadata, streamId: e.streamId, revision: BigInt(e.revision), isJson: true, created: new Date(), position: { commit: BigInt(e.position), prepare: BigInt(e.position) } },
});

export class FakeEsdb {
  readonly log: Stored[] = [];
  private readonly streams = new Map<string, Stored[]>();
  private nextPosition = 4096;
  private wakers: Array<() => void> = [];
  maxAppendSize = 1024 * 1024;
  /** Every append call: stream, expected revision, ids, and what came of it. */
  readonly appends: Array<{ streamId: string; expected: string; ids: string[]; outcome: string }> = [];
  /** Faults by append call number (from 1): commit then lose the answer, or fail before committing. */
  readonly faults = new Map<number, 'lost-answer' | 'unavailable'>();
  /** Subscriptions opened (their start positions), and how the next ones end: after n events, dropped or ended. */
  readonly subscribedFrom: number[] = [];
  readonly subscriptionScript: Array<{ after: number; then: 'drop' | 'end' }> = [];

  /** Live subscriptions dropped so far by `drop` (a server restart): each throws once on its next turn. */
  private dropped = 0;

  /** Drops every open subscription, as a restart of the server does. */
  drop(): void {
    this.dropped++;
    for (const wake of this.wakers.splice(0)) wake();
  }

  /** Appends events as another writer would (system events included). */
  write(streamId: string, type: string, data: unknown = {}): Stored {
    const list = this.streams.get(streamId) ?? [];
    this.streams.set(streamId, list);
    const e: Stored = { id: `${streamId}#${list.length}`, type, data, metadata: {}, streamId, revision: list.length, position: this.nextPosition };
    // A byte offset: the next record starts after this one.
    this.nextPosition += 128 + JSON.stringify(data).length;
    list.push(e);
    this.log.push(e);
    for (const wake of this.wakers.splice(0)) wake();
    return e;
  }

  stream(streamId: string): Stored[] {
    return this.streams.get(streamId) ?? [];
  }

  async appendToStream(streamId: string, events: EventData[], options: { expectedRevision?: AppendExpectedRevision } = {}) {
    const call = this.appends.length + 1;
    const expected = options.expectedRevision ?? 'any';
    const record = { streamId, expected: String(expected), ids: events.map((e) => e.id), outcome: '' };
    this.appends.push(record);
    const fault = this.faults.get(call);
    if (fault === 'unavailable') {
      record.outcome = 'unavailable';
      throw new UnavailableError(undefined, 'connection lost');
    }
    const size = events.reduce((s, e) => s + eventSize(e), 0);
    if (size > this.maxAppendSize) {
      record.outcome = 'too large';
      throw new MaxAppendSizeExceededError(undefined, this.maxAppendSize);
    }
    const list = this.stream(streamId);
    const current = list.length - 1;
    const retried = this.retried(list, expected, events);
    if (retried) {
      record.outcome = 'idempotent';
      // The server answers a recognised retry with the revision; its position only if indexed (not here).
      return { success: true, nextExpectedRevision: BigInt(retried.revision) };
    }
    const ok = expected === 'any' || (expected === 'stream_exists' ? current >= 0 : expected === 'no_stream' ? current === -1 : Number(expected) === current);
    if (!ok) {
      record.outcome = 'wrong expected version';
      throw new WrongExpectedVersionError(undefined, { streamName: streamId, expected, current: current < 0 ? 'no_stream' : BigInt(current) });
    }
    let last: Stored | undefined;
    for (const e of events) {
      last = this.write(streamId, e.type, e.data);
      last.id = e.id;
      last.metadata = e.metadata;
    }
    record.outcome = 'written';
    if (fault === 'lost-answer') throw new DeadlineExceededError(undefined, 'deadline exceeded');
    return { success: true, nextExpectedRevision: BigInt(this.stream(streamId).length - 1), position: last ? { commit: BigInt(last.position), prepare: BigInt(last.position) } : undefined };
  }

  /** The server's idempotence check (IndexWriter.CheckCommit): the last event matched, or none. */
  private retried(list: Stored[], expected: AppendExpectedRevision, events: EventData[]): Stored | undefined {
    if (events.length === 0) return undefined;
    let from: number;
    if (expected === 'any' || expected === 'stream_exists') {
      from = list.findIndex((e) => e.id === events[0]!.id);
      if (from < 0) return undefined;
    } else {
      from = (expected === 'no_stream' ? -1 : Number(expected)) + 1;
      if (from > list.length - 1 || list[from]!.id !== events[0]!.id) return undefined;
    }
    events.forEach((e, i) => {
      if (list[from + i]?.id !== e.id) throw new Error('corrupted idempotency');
    });
    return list[from + events.length - 1];
  }

  async *readStream(streamId: string, options: { fromRevision?: bigint | typeof START; maxCount?: number } = {}) {
    const list = this.streams.get(streamId);
    if (!list) throw new StreamNotFoundError(undefined, streamId);
    const from = options.fromRevision === START || options.fromRevision === undefined ? 0 : Number(options.fromRevision);
    yield* list.slice(from, from + (options.maxCount ?? Infinity)).map(resolved);
  }

  /** The index of the event at a position; a position no event has is refused, as the server does. */
  private at(position: Position): number {
    const i = this.log.findIndex((e) => e.position === Number(position.commit));
    if (i < 0 || position.commit !== position.prepare) throw new Error(`invalid position ${position.commit}/${position.prepare}`);
    return i;
  }

  async *readAll(options: { fromPosition?: Position | typeof START | typeof END; direction?: string; maxCount?: number }) {
    const max = options.maxCount ?? Infinity;
    const from = options.fromPosition ?? START;
    if (options.direction === 'backwards') {
      // Backwards from a position: the events before it.
      const start = from === END ? this.log.length : from === START ? 0 : this.at(from);
      yield* this.log.slice(Math.max(0, start - max), start).reverse().map(resolved);
      return;
    }
    // Forwards from a position: the event at it first.
    const start = from === START ? 0 : from === END ? this.log.length : this.at(from);
    yield* this.log.slice(start, start + max).map(resolved);
  }

  subscribeToAll(options: { fromPosition?: Position | typeof START }) {
    const from = options.fromPosition === START || options.fromPosition === undefined ? 0 : Number((options.fromPosition as Position).commit);
    this.subscribedFrom.push(from);
    const script = this.subscriptionScript.shift();
    let stopped = false;
    let stop = () => {};
    const log = this.log;
    const waitForWrite = () => new Promise<void>((resolve) => {
      stop = resolve;
      this.wakers.push(resolve);
    });
    const drops = this.dropped;
    const droppedSince = () => this.dropped > drops;
    async function* events() {
      let delivered = 0;
      let next = log.findIndex((e) => e.position > from);
      if (next < 0) next = log.length;
      for (;;) {
        while (next < log.length || droppedSince()) {
          if (stopped) return;
          if (droppedSince()) throw new UnavailableError(undefined, 'server restarted');
          if (script && delivered === script.after) {
            if (script.then === 'end') return;
            throw new UnavailableError(undefined, 'server restarted');
          }
          delivered++;
          yield resolved(log[next++]!);
        }
        if (stopped) return;
        await waitForWrite();
      }
    }
    const iterable = events();
    return Object.assign(iterable, {
      unsubscribe: async () => {
        stopped = true;
        stop();
      },
    });
  }

  async dispose() {}
}
