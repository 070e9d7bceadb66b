import { describe, expect, it } from 'vitest';
import type { EventStore, RecordedEvent } from '@paperlink/domain';
import { positionAt, positionBackwards, TimeAnchors } from './position-at';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const minute = 60_000;

/**
 * A log as EventStoreDB keeps it: positions are byte offsets (sparse, uneven), and a read from
 * a position no event holds is refused. `reads` counts the events handed out.
 */
function byteOffsetLog(count: number) {
  const log: RecordedEvent[] = [];
  let offset = 1_000;
  for (let i = 0; i < count; i++) {
    log.push({ id: `e${i}`, type: 'Something', data: {}, metadata: { occurredAt: new Date(T0 + i * minute).toISOString() }, streamId: `s-${i}`, revision: 0, position: offset });
    offset += 150 + ((i * 7919) % 900);
  }
  const counter = { reads: 0, calls: 0 };
  const readAllBackwards = async ({ before, maxCount }: { before?: number; maxCount: number }) => {
    counter.calls++;
    const end = before === undefined ? log.length : log.findIndex((e) => e.position === before);
    if (end < 0) throw new Error(`invalid position ${before}`);
    const page = log.slice(Math.max(0, end - maxCount), end).reverse();
    counter.reads += page.length;
    return page;
  };
  const store = {
    kind: 'bytes',
    readAllBackwards,
    readAll: async () => {
      throw new Error('a forward read from a computed position');
    },
    headPosition: async () => log[log.length - 1]?.position ?? 0,
  } as unknown as EventStore;
  return { log, counter, store, readAllBackwards };
}

describe('positionAt on a log of byte offsets (EventStoreDB)', () => {
  it('finds the newest event decided at or before the moment, reading only from events’ own positions', async () => {
    const { log, store } = byteOffsetLog(2_000);
    expect(await positionAt(store, new Date(T0 + 1234 * minute))).toBe(log[1234]!.position);
    expect(await positionAt(store, new Date(T0 + 1234 * minute + 59_999))).toBe(log[1234]!.position);
    expect(await positionAt(store, new Date(T0 + 1999 * minute + 5))).toBe(log[1999]!.position);
    expect(await positionAt(store, new Date(T0 + 10_000 * minute))).toBe(log[1999]!.position);
    expect(await positionAt(store, new Date(T0))).toBe(log[0]!.position);
    expect(await positionAt(store, new Date(T0 - 1))).toBe(0);
  });

  it('answers 0 on an empty log', async () => {
    expect(await positionAt(byteOffsetLog(0).store, new Date(T0))).toBe(0);
  });

  it('starts a later search from the anchors an earlier one left: a page, not the log since', async () => {
    const { log, counter, readAllBackwards } = byteOffsetLog(20_000);
    const anchors = new TimeAnchors();
    expect(await positionBackwards(readAllBackwards, T0 + 1_000 * minute, anchors, 500)).toBe(log[1_000]!.position);
    const first = counter.reads;
    expect(first).toBeGreaterThan(18_000);
    expect(anchors.size).toBeGreaterThan(35);
    counter.reads = 0;
    expect(await positionBackwards(readAllBackwards, T0 + 5_000 * minute + 30_000, anchors, 500)).toBe(log[5_000]!.position);
    expect(counter.reads).toBeLessThanOrEqual(500);
    counter.reads = 0;
    expect(await positionBackwards(readAllBackwards, T0 + 999 * minute, anchors, 500)).toBe(log[999]!.position);
    expect(counter.reads).toBeLessThanOrEqual(16);
  });

  it('keeps anchors in position order, once each, thinned evenly when full', () => {
    const anchors = new TimeAnchors(8);
    for (const i of [5, 1, 9, 3, 7, 5]) anchors.add(i * 100, T0 + i * minute);
    expect(anchors.size).toBe(5);
    expect(anchors.after(T0 + 4 * minute)).toBe(500);
    expect(anchors.after(T0 + 9 * minute)).toBeUndefined();
    expect(anchors.after(T0)).toBe(100);
    for (let i = 10; i < 20; i++) anchors.add(i * 100, T0 + i * minute);
    expect(anchors.size).toBeLessThanOrEqual(8);
    expect(anchors.after(T0 + 12 * minute)).toBeGreaterThan(1200);
  });
});

describe('positionAt on the embedded store (positions 1, 2, 3 ...)', () => {
  it('binary-searches the numbers, in about log2(head) one-event reads', async () => {
    const times = Array.from({ length: 1024 }, (_, i) => T0 + i * minute);
    let reads = 0;
    const store = {
      kind: 'sqlite',
      headPosition: async () => times.length,
      readAll: async ({ after }: { after: number }) => {
        reads++;
        const i = after; // position after+1 is index after
        return i < times.length ? [{ id: `e${i}`, type: 'X', data: {}, metadata: { occurredAt: new Date(times[i]!).toISOString() }, streamId: 's', revision: i, position: i + 1 }] : [];
      },
    } as unknown as EventStore;
    expect(await positionAt(store, new Date(T0 + 700 * minute + 1))).toBe(701);
    expect(reads).toBeLessThanOrEqual(11);
    expect(await positionAt(store, new Date(T0 - 1))).toBe(0);
  });
});
