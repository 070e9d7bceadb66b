/**
 * Typed errors carrying their HTTP status and a stable code; the HTTP layer maps them once
 * into `{ error, code, details }`.
 */
export interface FieldError {
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details?: FieldError[], code = 'validation_failed') {
    super(400, code, message, details);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Authentication required', code = 'unauthorized') {
    super(401, code, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'You do not have permission to do this', code = 'forbidden') {
    super(403, code, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found', code = 'not_found') {
    super(404, code, message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, code = 'conflict', details?: unknown) {
    super(409, code, message, details);
  }
}

/**
 * Optimistic concurrency: the stream moved on since the caller read it. The stream and
 * revisions stay on the error for logs; the answer names none of them (stream names carry
 * internal ids such as `user-<id>`, `matching-<id>`).
 */
export class ConcurrencyError extends ConflictError {
  constructor(
    readonly streamId: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super('This record was changed by someone else at the same time. Reload and try again.', 'concurrency_conflict');
  }
}

/**
 * A conditional write (If-Match) against a record that changed since the caller read it: the
 * caller's copy is stale, and nothing was written.
 */
export class PreconditionFailedError extends AppError {
  constructor(message = 'This record was changed by someone else. Reload to see the changes.', code = 'precondition_failed') {
    super(412, code, message);
  }
}

export class TooManyRequestsError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    code = 'too_many_requests',
  ) {
    super(429, code, message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message: string, code = 'payload_too_large') {
    super(413, code, message);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(message: string, code = 'unsupported_media_type') {
    super(415, code, message);
  }
}
