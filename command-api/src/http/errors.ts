import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ZodError } from 'zod';
import { AppError, ConcurrencyError, TooManyRequestsError } from '@paperlink/domain';
import { ReadSideBehindError } from '../core/read-side';

/**
 * A request's URL as it may be written to a log: capability tokens in the path (the signed
 * direct-upload URL) and every query value are replaced, so a log never holds a credential.
 */
export function loggableUrl(url: string): string {
  const [path = '', query] = url.split('?', 2);
  const safePath = path.replace(/(\/receipts\/direct\/)[^/]+/, '$1[redacted]');
  if (query === undefined) return safePath;
  const names = query.split('&').filter(Boolean).map((pair) => `${pair.split('=', 1)[0]}=…`);
  return `${safePath}?${names.join('&')}`;
}

/** Maps every error once into `{ error, code, details }` with the error's status. */
export function errorHandler(log: (msg: string, err: unknown) => void = console.error): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) return;
    if (err instanceof ZodError) {
      const details = err.issues.map((i) => ({ field: i.path.join('.'), message: i.message }));
      res.status(400).json({ error: details[0]?.message ?? 'Invalid request', code: 'validation_failed', details });
      return;
    }
    if (err instanceof AppError) {
      // 429 (too many requests) and 503 (the read side is behind, core/read-side.ts) say when to retry.
      const retryAfter = err instanceof TooManyRequestsError || err instanceof ReadSideBehindError ? err.retryAfterSeconds : undefined;
      if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
      // A storage conflict never shows its stream, revisions or keys: one neutral answer.
      const internal = err instanceof ConcurrencyError || err.code === 'partial_retry';
      if (internal) {
        res.status(409).json({ error: 'This record was changed by someone else at the same time. Reload and try again.', code: err.code });
        return;
      }
      res.status(err.status).json({ error: err.message, code: err.code, ...(err.details !== undefined ? { details: err.details } : {}) });
      return;
    }
    const status = (err as { status?: number; statusCode?: number }).status ?? (err as { statusCode?: number }).statusCode;
    if (status && status >= 400 && status < 500) {
      // express' own parsing errors (bad JSON, body too large)
      const code = status === 413 ? 'payload_too_large' : 'bad_request';
      const message = status === 413 ? 'Request body is too large' : 'The request body could not be read';
      res.status(status).json({ error: message, code });
      return;
    }
    log(`unhandled error on ${req.method} ${loggableUrl(req.originalUrl)}`, err);
    res.status(500).json({ error: 'Something went wrong on our side. Please try again.', code: 'internal_error' });
  };
}

export const notFound: RequestHandler = (req, res) => {
  res.status(404).json({ error: `No such endpoint: ${req.method} ${req.baseUrl}${req.path}`, code: 'no_such_endpoint' });
};
