import type { CounterStore, HitOutcome, LimitRule } from '@paperlink/domain';
import { asHit, inWindow, newHit, once, retryAfterSeconds, SWEEP_EVERY_MS, type StoredHit } from './window';

/**
 * The limit store of a single process (PAPERLINK_ROLE=all on the embedded profile). Each hit is
 * decided before anything is awaited, so parallel requests in this process never pass together.
 */
export class MemoryCounterStore implements CounterStore {
  readonly kind = 'memory';
  private readonly logs = new Map<string, { hits: StoredHit[]; expires: number }>();
  private lastSweep = 0;

  async hit(key: string, rule: LimitRule, options: { tag?: string; now?: number } = {}): Promise<HitOutcome> {
    const now = options.now ?? Date.now();
    if (now - this.lastSweep >= SWEEP_EVERY_MS || this.logs.size > 50_000) this.sweepNow(now);
    const log = this.logs.get(key);
    const live = inWindow(log?.hits ?? [], rule, now);
    const earlier = live.map(asHit);
    if (live.length >= rule.limit) {
      if (log) log.hits = live;
      return { allowed: false, retryAfterSeconds: retryAfterSeconds(live, rule, now), earlier };
    }
    const mine = newHit(now, options.tag);
    live.push(mine);
    const kept = { hits: live, expires: Math.max(log?.expires ?? 0, now + rule.windowMs) };
    this.logs.set(key, kept);
    const release = once(async () => {
      const current = this.logs.get(key);
      const i = current ? current.hits.findIndex((h) => h.id === mine.id) : -1;
      if (i >= 0) current!.hits.splice(i, 1);
    });
    return { allowed: true, remaining: rule.limit - live.length, earlier, release };
  }

  /** Removes the keys whose hits have all left their window; how many. */
  async sweep(now = Date.now()): Promise<number> {
    return this.sweepNow(now);
  }

  private sweepNow(now: number): number {
    this.lastSweep = now;
    let removed = 0;
    for (const [key, log] of this.logs) {
      if (log.expires <= now) {
        this.logs.delete(key);
        removed++;
      }
    }
    return removed;
  }

  async close(): Promise<void> {
    this.logs.clear();
  }
}
