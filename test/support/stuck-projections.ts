import type { EventStore, RecordedEvent } from '@paperlink/domain';

/**
 * A test seam (createPaperlink's `wrapEvents`, never reachable over HTTP): the event store as it
 * is, except that delivery to subscribers (the projection runner, the reactors) can be held.
 * While paused, each subscriber's next batch waits; the log itself takes appends as usual, so
 * the read models fall behind the write side, as when a projection is stuck.
 */
export function stuckProjections() {
  let release: (() => void) | undefined;
  let gate: Promise<void> = Promise.resolve();
  const wrap = (events: EventStore): EventStore =>
    new Proxy(events, {
      get(target, prop, receiver) {
        if (prop === 'subscribeToAll') {
          const subscribe: EventStore['subscribeToAll'] = (options, handler) =>
            target.subscribeToAll(options, async (batch: RecordedEvent[]) => {
              await gate;
              await handler(batch);
            });
          return subscribe;
        }
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  return {
    wrap,
    pause() {
      if (!release) gate = new Promise<void>((resolve) => (release = resolve));
    },
    resume() {
      release?.();
      release = undefined;
      gate = Promise.resolve();
    },
  };
}
