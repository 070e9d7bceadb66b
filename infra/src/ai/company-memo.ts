import type { CompanyMemo } from '@paperlink/domain';

/**
 * CompanyMemo over the company's position (infra's CompanyPositions: its newest event, or the head
 * of the log where other processes append too) and the position the read models hold.
 *
 * An answer is kept for position `at` only when the read models held `at` as its computation
 * began, so an answer read from read models still behind is never served as current; any event of
 * the company moves its position and the next call computes afresh. A failed computation is not
 * kept. At most `max` answers (least recently used dropped).
 */
export function companyMemo(positionOf: (companyId: string) => Promise<number>, projected: () => number, max = 256): CompanyMemo {
  const kept = new Map<string, { at: number; value: Promise<unknown> }>();
  return async <T>(companyId: string, key: string, compute: () => Promise<T>): Promise<T> => {
    const at = await positionOf(companyId);
    const k = `${companyId}\u0000${key}`;
    const hit = kept.get(k);
    if (hit && hit.at === at) {
      kept.delete(k);
      kept.set(k, hit);
      return hit.value as Promise<T>;
    }
    const caughtUp = projected() >= at;
    const value = compute();
    if (caughtUp) {
      kept.delete(k);
      kept.set(k, { at, value });
      if (kept.size > max) kept.delete(kept.keys().next().value!);
      value.catch(() => {
        if (kept.get(k)?.value === value) kept.delete(k);
      });
    }
    return value;
  };
}
