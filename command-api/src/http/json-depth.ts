import type { RequestHandler } from 'express';
import { exceedsDepth, MAX_JSON_DEPTH, tooDeep } from '../core/fingerprint';

/**
 * Refuses JSON bodies nested deeper than `max` levels (400 too_deep), right after the body is
 * parsed: nothing downstream (validation, fingerprints, projections) walks hostile nesting.
 * The check itself walks without recursion.
 */
export function jsonDepthLimit(max = MAX_JSON_DEPTH): RequestHandler {
  return (req, _res, next) => {
    const body: unknown = req.body;
    if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && exceedsDepth(body, max)) next(tooDeep(max));
    else next();
  };
}
