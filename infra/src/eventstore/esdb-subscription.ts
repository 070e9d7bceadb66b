/**
 * A subscription to EventStoreDB's $all that outlives its connection (ADR 0016): when the server
 * drops it (a restart, a leader change, a network blip) or ends it, it subscribes again from the
 * position of the last event the handler finished, after a capped exponential back-off. Only the
 * handler's own error is final: the projection is then failed, and says so (onError).
 */
import type { RecordedEvent, SubscribeOptions, Subscription } from '@paperlink/domain';

/** One subscription attempt: the events after a position, until the server ends or drops it. */
export interface SubscriptionAttempt {
  /** Events in log order; `undefined` for one the subscription skips (not JSON, a system event). */
  events: AsyncIterable<RecordedEvent | undefined>;
  close(): Promise<void>;
}

export interface ResubscribePolicy {
  /** The first wait after a drop; doubled after each further drop without an event in between. */
  baseMs: number;
  maxMs: number;
  sleep?: (ms: number) => Promise<void>;
  /** Told of each drop (the message names no credentials: the client's error text). */
  log?: (message: string) => void;
}

export const DEFAULT_RESUBSCRIBE: ResubscribePolicy = { baseMs: 250, maxMs: 15_000 };

/** The wait before the n-th consecutive resubscription (n from 1). */
export function backoffMs(n: number, policy: Pick<ResubscribePolicy, 'baseMs' | 'maxMs'>): number {
  return Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(30, n - 1));
}

const NOT_YET = Symbol('not yet');

/**
 * Groups an event source into batches of at most `size`: the events that have arrived by the
 * next turn of the event loop go together (a catch-up arrives in bursts; a live event alone).
 */
export async function* inBatches<T>(source: AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  const it = source[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T>> | undefined;
  const next = () => {
    const p = it.next();
    p.catch(() => undefined); // awaited below; a batch left early must not leave it unhandled
    return p;
  };
  try {
    for (;;) {
      const first = await (pending ?? next());
      pending = undefined;
      if (first.done) return;
      const batch = [first.value];
      let failure: { error: unknown } | undefined;
      while (batch.length < size) {
        pending = next();
        const r = await Promise.race([pending, new Promise<typeof NOT_YET>((resolve) => setImmediate(() => resolve(NOT_YET)))]).catch((error: unknown) => ({ error }));
        if (r === NOT_YET) break;
        pending = undefined;
        if ('error' in r) {
          // What arrived before the source failed is handled first.
          failure = r;
          break;
        }
        if (r.done) {
          yield batch;
          return;
        }
        batch.push(r.value);
      }
      yield batch;
      if (failure) throw failure.error;
    }
  } finally {
    // Left early (closed, or the handler failed): the source is let go, not waited for.
    void it.return?.()?.catch(() => undefined);
  }
}

class HandlerFailed {
  constructor(readonly cause: unknown) {}
}

/**
 * Delivers events after `options.after` to `handler`, one batch at a time, opening a new attempt
 * from the last handled position whenever one ends or fails.
 */
export function resubscribing(
  open: (after: number) => SubscriptionAttempt,
  options: SubscribeOptions,
  handler: (events: RecordedEvent[]) => Promise<void>,
  policy: ResubscribePolicy = DEFAULT_RESUBSCRIBE,
): Subscription {
  const sleep = policy.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const batchSize = options.batchSize ?? 500;
  let closed = false;
  let position = options.after;
  let attempt: SubscriptionAttempt | undefined;
  /** Drops since the last event handled. */
  let failures = 0;
  let wake!: () => void;
  const closing = new Promise<void>((resolve) => (wake = resolve));

  /** Runs one attempt to its end; returns why it ended (undefined: closed by us). */
  const runAttempt = async (current: SubscriptionAttempt): Promise<unknown> => {
    try {
      const events = (async function* () {
        for await (const e of current.events) if (e) yield e;
      })();
      for await (const batch of inBatches(events, batchSize)) {
        if (closed) return undefined;
        const fresh = batch.filter((e) => e.position > position);
        if (fresh.length === 0) continue;
        try {
          await handler(fresh);
        } catch (error) {
          throw new HandlerFailed(error);
        }
        position = fresh[fresh.length - 1]!.position;
        failures = 0;
      }
      return closed ? undefined : new Error('the server ended the subscription');
    } catch (error) {
      if (error instanceof HandlerFailed) throw error.cause;
      return closed ? undefined : error;
    } finally {
      await current.close().catch(() => undefined);
    }
  };

  const done = (async () => {
    while (!closed) {
      let dropped: unknown;
      try {
        attempt = open(position);
      } catch (error) {
        // No connection to open one on (the client refuses at once): waited for as a drop.
        attempt = undefined;
        dropped = error;
      }
      if (attempt) dropped = await runAttempt(attempt);
      if (closed) break;
      failures++;
      const wait = backoffMs(failures, policy);
      const reason = dropped instanceof Error ? dropped.message : String(dropped);
      (policy.log ?? console.warn)(`EventStoreDB subscription dropped (${reason}); subscribing again after position ${position} in ${wait} ms`);
      await Promise.race([sleep(wait), closing]);
    }
  })().catch((error: unknown) => {
    if (closed) return;
    closed = true;
    if (options.onError) options.onError(error);
    else console.error('EventStoreDB subscription stopped', error);
  });

  return {
    async close() {
      closed = true;
      wake();
      await attempt?.close().catch(() => undefined);
      await done;
    },
  };
}
