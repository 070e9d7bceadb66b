import type { RequestHandler } from 'express';

/** Longest a read waits for a position it was asked for (ms). */
export const MIN_POSITION_WAIT_MS = 5000;

/**
 * How long a read may wait for `X-Min-Position`: at most MIN_POSITION_WAIT_MS, less when the
 * client prefers an earlier answer (`Prefer: wait=<seconds>`, RFC 7240; the web app's lists
 * ask for 1 s and say "still being listed" rather than hold the screen).
 */
export function minPositionWaitMs(prefer: string | undefined): number {
  const wait = /(?:^|[,;\s])wait\s*=\s*"?(\d{1,6}(?:\.\d{1,3})?)"?/i.exec(prefer ?? '');
  if (!wait) return MIN_POSITION_WAIT_MS;
  return Math.min(MIN_POSITION_WAIT_MS, Math.round(Number(wait[1]) * 1000));
}

/** The position asked for, or null (absent, not a whole positive number, beyond 2^53). */
export function minPosition(header: string | undefined): number | null {
  if (!header || !/^\d{1,16}$/.test(header.trim())) return null;
  const n = Number(header.trim());
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/**
 * Read-your-writes across processes and past a long projection (ADR 0025): a GET with
 * `X-Min-Position` (a write's `X-Position`) waits until the read models hold that position, or
 * the wait ends, and answers `X-Read-Side: current` or `behind`. Mounted after authentication:
 * an anonymous request never holds the server.
 */
export function readYourWrites(waitFor: (position: number, timeoutMs: number) => Promise<boolean>): RequestHandler {
  return (req, res, next) => {
    const min = req.method === 'GET' ? minPosition(req.header('x-min-position')) : null;
    if (min === null) {
      next();
      return;
    }
    waitFor(min, minPositionWaitMs(req.header('prefer'))).then(
      (current) => {
        res.setHeader('X-Read-Side', current ? 'current' : 'behind');
        next();
      },
      next,
    );
  };
}
