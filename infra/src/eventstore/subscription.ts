import type { RecordedEvent, SubscribeOptions, Subscription } from '@paperlink/domain';

/**
 * A catch-up-then-live subscription over any store that can read the global log from a
 * position: reads batches until caught up, then waits for a wake-up (an in-process append)
 * or a poll interval (appends from other processes), and goes on.
 */
export function pollingSubscription(
  readAll: (after: number, maxCount: number) => Promise<RecordedEvent[]>,
  waitForAppend: (timeoutMs: number) => Promise<void>,
  options: SubscribeOptions,
  handler: (events: RecordedEvent[]) => Promise<void>,
  pollMs = 200,
): Subscription {
  let closed = false;
  let position = options.after;
  const batchSize = options.batchSize ?? 1000;
  const done = (async () => {
    while (!closed) {
      const events = await readAll(position, batchSize);
      if (closed) break;
      if (events.length === 0) {
        await waitForAppend(pollMs);
        continue;
      }
      await handler(events);
      position = events[events.length - 1]!.position;
      // A turn of the event loop between batches: catching up on a large import (or a whole
      // log) is otherwise one unbroken chain of reads and handlers that no request can enter.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  })().catch((error: unknown) => {
    closed = true;
    if (options.onError) options.onError(error);
    else console.error('subscription stopped', error);
  });
  return {
    async close() {
      closed = true;
      await done;
    },
  };
}

/** Wakes waiting subscriptions when this process appends. */
export class AppendSignal {
  private waiters: Array<() => void> = [];

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  wait(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        resolve();
      }, timeoutMs);
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push(wake);
    });
  }
}
