/**
 * Broker answers that pass on their own: a topic just created whose partitions have no leader
 * yet, or whose leader the answering broker does not know yet (KRaft metadata propagates after
 * CreateTopics returns). kafkajs retries some of these inside a request, not all.
 */
const PASSING = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE', 'NOT_LEADER_FOR_PARTITION', 'NOT_LEADER_OR_FOLLOWER', 'REQUEST_TIMED_OUT', 'NOT_COORDINATOR', 'COORDINATOR_NOT_AVAILABLE', 'COORDINATOR_LOAD_IN_PROGRESS']);

export const passes = (e: unknown): boolean => {
  const { type, retriable } = (e ?? {}) as { type?: string; retriable?: boolean };
  return (type !== undefined && PASSING.has(type)) || retriable === true;
};

/** Runs `fn` again (200 ms apart) while it fails with an answer that passes, for up to `timeoutMs`. */
export async function untilItPasses<T>(fn: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (!passes(e) || Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
