/** A sliding-window counter per key, in memory (per process). */
export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  /** Seconds to wait before the key may try again, 0 when it may now. */
  retryAfter(key: string, now = Date.now()): number {
    const times = this.prune(key, now);
    if (times.length < this.max) return 0;
    return Math.max(1, Math.ceil((times[times.length - this.max]! + this.windowMs - now) / 1000));
  }

  record(key: string, now = Date.now()): void {
    const times = this.prune(key, now);
    times.push(now);
    this.hits.set(key, times);
    if (this.hits.size > 50_000) this.sweep(now);
  }

  private prune(key: string, now: number): number[] {
    const times = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (times.length === 0) this.hits.delete(key);
    return times;
  }

  private sweep(now: number): void {
    for (const key of [...this.hits.keys()]) this.prune(key, now);
  }
}
