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

  /**
   * Takes a slot for an attempt at once, before anything is awaited, so that parallel attempts
   * cannot all pass the check: a number (seconds to wait) when the key has no slot left, else
   * a function that gives the slot back (call it when the attempt turned out not to count).
   */
  reserve(key: string, now = Date.now()): number | (() => void) {
    const wait = this.retryAfter(key, now);
    if (wait > 0) return wait;
    this.record(key, now);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const times = this.hits.get(key);
      const i = times ? times.lastIndexOf(now) : -1;
      if (i >= 0) times!.splice(i, 1);
    };
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

/**
 * The unit an address limit counts: an IPv4 address, or the /64 network of an IPv6 address
 * (one subscriber usually holds a whole /64, so counting single IPv6 addresses counts nothing).
 */
export function addressGroup(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  const [head = '', tail] = ip.toLowerCase().split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
