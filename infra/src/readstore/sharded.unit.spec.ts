import { describe, expect, it } from 'vitest';
import { ShardedMap } from './sharded';

/** Runs the same random operations on a ShardedMap and a Map and compares them after each. */
function compareWithMap(splitAt: number, ops: number, keySpace: number, seed: number): void {
  let s = seed;
  const rand = (n: number) => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s % n;
  };
  const sharded = new ShardedMap<number>(splitAt);
  const map = new Map<string, number>();
  for (let i = 0; i < ops; i++) {
    const key = `k-${rand(keySpace)}`;
    const op = rand(10);
    if (op < 6) {
      expect(sharded.set(key, i)).toBe(sharded);
      map.set(key, i);
    } else if (op < 9) {
      expect(sharded.delete(key)).toBe(map.delete(key));
    } else {
      expect(sharded.get(key)).toBe(map.get(key));
      expect(sharded.has(key)).toBe(map.has(key));
    }
    expect(sharded.size).toBe(map.size);
  }
  expect([...sharded]).toEqual([...map]);
  expect([...sharded.keys()]).toEqual([...map.keys()]);
  expect([...sharded.values()]).toEqual([...map.values()]);
}

describe('ShardedMap', () => {
  it('behaves like a Map while small', () => compareWithMap(1_000_000, 3000, 200, 1));

  it('behaves like a Map, insertion order included, across and after the split', () => compareWithMap(64, 5000, 400, 7));

  it('keeps the insertion order of a large map: re-setting keeps the place, delete and set moves to the end', () => {
    const m = new ShardedMap<string>(100);
    const keys = Array.from({ length: 1000 }, (_, i) => `id-${(i * 7919) % 1000}`);
    for (const k of keys) m.set(k, k);
    m.set(keys[0]!, 'again');
    m.delete(keys[1]!);
    m.set(keys[1]!, 'last');
    const want = [keys[0]!, ...keys.slice(2), keys[1]!];
    expect([...m.keys()]).toEqual(want);
    expect(m.get(keys[0]!)).toBe('again');
    expect(m.size).toBe(1000);
    m.clear();
    expect(m.size).toBe(0);
    expect([...m]).toEqual([]);
  });

  it('spreads a large map over its shards, so no one growth rehashes every entry', () => {
    const m = new ShardedMap<number>(10);
    for (let i = 0; i < 16_000; i++) m.set(crypto.randomUUID(), i);
    const shards = (m as unknown as { shards: Array<Map<string, unknown>> }).shards;
    expect(shards.length).toBeGreaterThan(1);
    for (const shard of shards) expect(shard.size).toBeLessThan(16_000 / 4);
  });
});
