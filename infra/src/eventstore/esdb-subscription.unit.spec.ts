import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '@paperlink/domain';
import { backoffMs, inBatches, resubscribing, type SubscriptionAttempt } from './esdb-subscription';

const event = (position: number): RecordedEvent => ({ id: `e${position}`, type: 'X', data: {}, metadata: { occurredAt: '' }, streamId: 's', revision: position, position });

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('inBatches', () => {
  it('puts together what has arrived by the next turn of the event loop, up to the size', async () => {
    async function* burst() {
      yield* [1, 2, 3, 4, 5];
      await new Promise((r) => setTimeout(r, 10));
      yield 6;
    }
    expect(await collect(inBatches(burst(), 2))).toEqual([[1, 2], [3, 4], [5], [6]]);
  });

  it('hands out what arrived before the source failed, then the failure', async () => {
    async function* failing() {
      yield 1;
      yield 2;
      throw new Error('dropped');
    }
    const seen: number[][] = [];
    await expect((async () => {
      for await (const b of inBatches(failing(), 10)) seen.push(b);
    })()).rejects.toThrow('dropped');
    expect(seen).toEqual([[1, 2]]);
  });
});

describe('resubscribing', () => {
  it('waits base·2^(n-1), at most the cap', () => {
    const policy = { baseMs: 250, maxMs: 15_000 };
    expect([1, 2, 3, 4, 5, 6, 7, 8, 100].map((n) => backoffMs(n, policy))).toEqual([250, 500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000]);
  });

  it('waits and tries again when a subscription cannot even be opened; a close during the wait ends it at once', async () => {
    const waits: number[] = [];
    let opened = 0;
    let release!: () => void;
    const longWait = new Promise<void>((r) => (release = r));
    const open = (after: number): SubscriptionAttempt => {
      opened++;
      if (opened === 1) throw new Error('no connection');
      return {
        events: (async function* () {
          yield event(after + 1);
          throw new Error('dropped');
        })(),
        close: async () => {},
      };
    };
    const seen: number[] = [];
    const sub = resubscribing(open, { after: 0 }, async (events) => void seen.push(...events.map((e) => e.position)), {
      baseMs: 10, maxMs: 1000, log: () => {},
      sleep: async (ms) => {
        waits.push(ms);
        if (waits.length === 2) await longWait; // held until closed
      },
    });
    for (let i = 0; i < 100 && waits.length < 2; i++) await new Promise((r) => setTimeout(r, 2));
    const started = Date.now();
    await sub.close();
    expect(Date.now() - started).toBeLessThan(500);
    release();
    expect(seen).toEqual([1]);
    expect(opened).toBe(2);
    // The failure to open counted as a drop; the event handled since started the back-off afresh.
    expect(waits).toEqual([10, 10]);
  });
});
