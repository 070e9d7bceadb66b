/**
 * The limit store port: sliding-window logs of hits per key (sign-in failures per address, per
 * e-mail of no account), held where every process of a deployment sees them, so that a limit
 * does not multiply with the number of processes (docs/decisions/0004-sign-in-throttling.md).
 * In memory for one process, a SQLite file of the data folder for processes sharing it, MongoDB
 * beside the read models; all pass `infra/src/limits/contract.ts`.
 *
 * Keys are made by the caller and hold nothing secret and no unkeyed digest of an address or
 * e-mail (they are HMAC tags under the server's signing secret); hit tags likewise.
 */
export interface LimitRule {
  /** Hits a key may hold within the window. */
  limit: number;
  windowMs: number;
}

/** A hit the store holds: when (ms since the epoch), and the caller's tag, if any. */
export interface LimitHit {
  at: number;
  tag?: string;
}

export type HitOutcome =
  | {
      allowed: true;
      /** Hits the window has room for after this one. */
      remaining: number;
      /** The key's hits in the window recorded before this one, oldest first, in the store's order. */
      earlier: LimitHit[];
      /** Gives this hit back (an attempt that turned out not to count); later calls do nothing. */
      release(): Promise<void>;
    }
  | {
      allowed: false;
      /** Seconds until the window has room again (at least 1). */
      retryAfterSeconds: number;
      /** The key's hits in the window, oldest first. */
      earlier: LimitHit[];
    };

export interface CounterStore {
  readonly kind: 'memory' | 'sqlite' | 'mongodb';
  /**
   * Atomically for every process on the store: forgets the key's hits older than the window and,
   * when fewer than `limit` remain, records one at `now` (with `tag`). Parallel hits on one key
   * never pass the limit together.
   */
  hit(key: string, rule: LimitRule, options?: { tag?: string; now?: number }): Promise<HitOutcome>;
  close(): Promise<void>;
}

