import type { RequestHandler } from 'express';

/** A job's slice waits at most this long for requests to end (then runs one slice anyway: never starved). */
export const MAX_DEFER_MS = 200;
/**
 * A request in flight longer than this (a report download, a long upload) no longer holds
 * background work back: it is not one a person is waiting on to go on clicking.
 */
export const LONG_REQUEST_MS = 2000;
/**
 * After a request ends, background work waits this long for the next one: a person (or a
 * client) going through a list sends the next request a millisecond after the answer, and a
 * slice started in that gap would hold it back.
 */
export const QUIET_MS = 4;

/**
 * The HTTP requests in flight on this thread, so that background work on the same thread (the
 * auto-match jobs: a block's reads and scoring, tens of ms at a company's full size) gives them
 * the thread. Between its slices such work calls `yieldToRequests()`: the next slice starts on a
 * later turn of the event loop when no request is in flight (or has been for LONG_REQUEST_MS),
 * else when the last one ends, at the latest after MAX_DEFER_MS. A request then waits for at most
 * the slice under way, not for the job: before this, 40 rejects in a row each waited for the
 * auto-match jobs of the ones before (reject p95 87-140 ms at 1,000,000 lines, confirm 19-31).
 * Work a request does itself (a run on request) must not call it: it would wait for itself.
 */
export class RequestActivity {
  private readonly started = new Set<{ at: number }>();
  private waiters: Array<() => void> = [];
  private lastEnd = -Infinity;
  private readonly maxDeferMs: number;
  private readonly longRequestMs: number;
  private readonly quietMs: number;

  constructor(options: { maxDeferMs?: number; longRequestMs?: number; quietMs?: number } = {}) {
    this.maxDeferMs = options.maxDeferMs ?? MAX_DEFER_MS;
    this.longRequestMs = options.longRequestMs ?? LONG_REQUEST_MS;
    this.quietMs = options.quietMs ?? QUIET_MS;
  }

  /** Express middleware: counts each request from its arrival until its response finished or the connection closed. */
  middleware(): RequestHandler {
    return (_req, res, next) => {
      const entry = { at: performance.now() };
      this.started.add(entry);
      const end = () => {
        if (!this.started.delete(entry)) return;
        this.lastEnd = performance.now();
        if (!this.busy()) this.release();
      };
      res.once('finish', end);
      res.once('close', end);
      next();
    };
  }

  /** Whether a request a person may be waiting on is in flight. */
  busy(now = performance.now()): boolean {
    for (const r of this.started) if (now - r.at < this.longRequestMs) return true;
    return false;
  }

  /** How many requests are in flight (long ones included). */
  get inFlight(): number {
    return this.started.size;
  }

  /** Ends a slice of background work: resumes when no request is in flight (see the class). */
  yieldToRequests = async (): Promise<void> => {
    const deadline = performance.now() + this.maxDeferMs;
    await turn();
    for (;;) {
      const now = performance.now();
      if (now >= deadline) return;
      if (this.busy(now)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(() => {
            this.waiters = this.waiters.filter((w) => w !== done);
            resolve();
          }, deadline - now);
          this.waiters.push(done);
        });
        // The response that ended has its own callbacks to run first.
        await turn();
      } else if (now - this.lastEnd < this.quietMs) {
        await new Promise<void>((resolve) => setTimeout(resolve, Math.min(this.quietMs - (now - this.lastEnd), deadline - now) + 0.5));
      } else return;
    }
  };

  private release(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w();
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
