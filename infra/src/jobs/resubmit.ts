import type { Job, JobQueue } from '@paperlink/domain';

export interface ResubmitOptions {
  /** True once the caller stops: no further try is made. */
  stopped: () => boolean;
  log?: (msg: string) => void;
  /** Back-off between tries: base * 2^(n-1), capped. */
  backoffMs?: { base: number; max: number };
}

const DEFAULT_BACKOFF = { base: 1000, max: 30_000 };

/** Waits `ms` on a timer that keeps no process alive. */
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * Submits a job until the queue takes it and it settles. A submit that rejects (the broker
 * refused the produce, the queue is closing) means the job may never have been recorded
 * anywhere: it is not settled, so it is tried again after a back-off. Resolves with the
 * outcome, or undefined when `stopped()` turned true first: the caller must then not count the
 * job as settled (a reactor's checkpoint stays before its event, and a restart submits it again).
 */
export async function submitUntilTaken(queue: JobQueue, job: Job, options: ResubmitOptions): Promise<'done' | 'failed' | undefined> {
  const { base, max } = options.backoffMs ?? DEFAULT_BACKOFF;
  for (let tries = 1; !options.stopped(); tries++) {
    try {
      return await queue.submit(job);
    } catch (e) {
      if (options.stopped()) return undefined;
      const wait = Math.min(max, base * 2 ** (tries - 1));
      options.log?.(`job ${job.type} ${job.id} not submitted (try ${tries}; again in ${wait} ms): ${e instanceof Error ? e.message : String(e)}`);
      await pause(wait);
    }
  }
  return undefined;
}
