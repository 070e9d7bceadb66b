import { randomUUID } from 'node:crypto';
import type { LimitHit, LimitRule } from '@paperlink/domain';

/** A hit as the adapters keep it: with an id, so that exactly this hit can be given back. */
export interface StoredHit extends LimitHit {
  id: string;
}

/** How often an adapter removes keys whose every hit has left its window (storage only: a hit's own time decides whether it counts). */
export const SWEEP_EVERY_MS = 60_000;

/** A new hit at `at`, fields always in this order (MongoDB compares stored documents field by field). */
export function newHit(at: number, tag: string | undefined): StoredHit {
  return tag === undefined ? { at, id: randomUUID() } : { at, id: randomUUID(), tag };
}

export function asHit(h: StoredHit): LimitHit {
  return h.tag === undefined ? { at: h.at } : { at: h.at, tag: h.tag };
}

/** The hits of `hits` that still count at `now`. */
export function inWindow<T extends LimitHit>(hits: readonly T[], rule: LimitRule, now: number): T[] {
  return hits.filter((h) => h.at > now - rule.windowMs);
}

/** Seconds until a window holding `hits` (oldest first, all counting) has room for one more; at least 1. */
export function retryAfterSeconds(hits: readonly LimitHit[], rule: LimitRule, now: number): number {
  const oldestCounted = hits[Math.max(0, hits.length - rule.limit)];
  if (!oldestCounted) return 1;
  return Math.max(1, Math.ceil((oldestCounted.at + rule.windowMs - now) / 1000));
}

/** `fn` run at most once, however often the result is called. */
export function once(fn: () => Promise<void>): () => Promise<void> {
  let done = false;
  return async () => {
    if (done) return;
    done = true;
    await fn();
  };
}
