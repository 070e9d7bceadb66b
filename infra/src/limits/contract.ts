import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { CounterStore, HitOutcome } from '@paperlink/domain';

export type SweepingCounterStore = CounterStore & { sweep(now?: number): Promise<number> };

const allowed = (outcomes: HitOutcome[]) => outcomes.filter((o) => o.allowed);

/**
 * What every limit store does. `open` gives a connection to one store each time it is called:
 * two connections stand for two processes sharing it (the memory store: the same object).
 */
export function counterStoreContract(name: string, open: () => Promise<SweepingCounterStore>): void {
  describe(`limit store contract: ${name}`, () => {
    const opened: CounterStore[] = [];
    const connect = async () => {
      const store = await open();
      opened.push(store);
      return store;
    };
    afterAll(async () => {
      for (const store of opened) await store.close();
    });
    const key = (what: string) => `${what}:${randomUUID()}`;
    const t0 = Date.now();

    it('of 30 hits started together, 10 are allowed (limit 10); the others wait the whole window', async () => {
      const store = await connect();
      const k = key('parallel');
      const outcomes = await Promise.all(Array.from({ length: 30 }, () => store.hit(k, { limit: 10, windowMs: 60_000 }, { now: t0 })));
      expect(allowed(outcomes)).toHaveLength(10);
      for (const o of outcomes) if (!o.allowed) expect(o.retryAfterSeconds).toBe(60);
      expect(outcomes.filter((o) => o.allowed).map((o) => o.allowed && o.remaining).sort((a, b) => Number(a) - Number(b))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    it('two connections (two processes) count together: 30 hits spread over both, 10 allowed', async () => {
      const [a, b] = [await connect(), await connect()];
      const k = key('shared');
      const outcomes = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).hit(k, { limit: 10, windowMs: 60_000 }, { now: t0 + i })));
      expect(allowed(outcomes)).toHaveLength(10);
      const later = await a.hit(k, { limit: 10, windowMs: 60_000 }, { now: t0 + 100 });
      expect(later.allowed).toBe(false);
    });

    it('a hit given back frees its slot, once only, for every connection', async () => {
      const [a, b] = [await connect(), await connect()];
      const k = key('release');
      const rule = { limit: 2, windowMs: 60_000 };
      const first = await a.hit(k, rule, { now: t0 });
      expect((await b.hit(k, rule, { now: t0 + 1 })).allowed).toBe(true);
      expect((await b.hit(k, rule, { now: t0 + 2 })).allowed).toBe(false);
      if (!first.allowed) throw new Error('the first hit was refused');
      await first.release();
      await first.release();
      expect((await b.hit(k, rule, { now: t0 + 3 })).allowed).toBe(true);
      expect((await a.hit(k, rule, { now: t0 + 4 })).allowed).toBe(false);
    });

    it('the window slides: a hit counts for windowMs after it, and Retry-After says when it stops', async () => {
      const store = await connect();
      const k = key('slide');
      const rule = { limit: 2, windowMs: 10_000 };
      expect((await store.hit(k, rule, { now: t0 })).allowed).toBe(true);
      expect((await store.hit(k, rule, { now: t0 + 4000 })).allowed).toBe(true);
      expect(await store.hit(k, rule, { now: t0 + 5000 })).toMatchObject({ allowed: false, retryAfterSeconds: 5 });
      // the first hit has left the window (a full array makes room by forgetting it)
      const next = await store.hit(k, rule, { now: t0 + 10_001 });
      expect(next).toMatchObject({ allowed: true, remaining: 0, earlier: [{ at: t0 + 4000 }] });
      expect(await store.hit(k, rule, { now: t0 + 10_002 })).toMatchObject({ allowed: false, retryAfterSeconds: 4 });
    });

    it("each hit sees the key's earlier hits in the window, oldest first, with their tags; keys are apart", async () => {
      const [a, b] = [await connect(), await connect()];
      const k = key('earlier');
      const rule = { limit: 100, windowMs: 60_000 };
      await a.hit(k, rule, { now: t0, tag: 'x' });
      await b.hit(k, rule, { now: t0 + 1 });
      await a.hit(key('other'), rule, { now: t0 + 2, tag: 'z' });
      const third = await b.hit(k, rule, { now: t0 + 3, tag: 'y' });
      expect(third).toMatchObject({ allowed: true, remaining: 97, earlier: [{ at: t0, tag: 'x' }, { at: t0 + 1 }] });
      expect(third.earlier[1]).toEqual({ at: t0 + 1 });
      const refused = await a.hit(k, { limit: 3, windowMs: 60_000 }, { now: t0 + 4 });
      expect(refused).toEqual({ allowed: false, retryAfterSeconds: 60, earlier: [{ at: t0, tag: 'x' }, { at: t0 + 1 }, { at: t0 + 3, tag: 'y' }] });
    });

    it('the sweep removes keys whose hits have all left their window (a store may keep them up to a day longer), and only those', async () => {
      const store = await connect();
      const gone = key('sweep-gone');
      const kept = key('sweep-kept');
      const day = 24 * 3600 * 1000;
      const base = t0 + 3_600_000;
      await store.hit(gone, { limit: 5, windowMs: 1000 }, { now: base });
      await store.hit(kept, { limit: 5, windowMs: 3 * day }, { now: base });
      expect(await store.sweep(base + 2 * day)).toBeGreaterThanOrEqual(1);
      expect(await store.sweep(base + 2 * day)).toBe(0);
      expect(await store.hit(gone, { limit: 5, windowMs: 1000 }, { now: base + 2 * day })).toMatchObject({ allowed: true, earlier: [] });
      expect(await store.hit(kept, { limit: 5, windowMs: 3 * day }, { now: base + 2 * day })).toMatchObject({ allowed: true, earlier: [{ at: base }] });
    });
  });
}
