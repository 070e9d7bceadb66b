import type { z } from 'zod';
import type { Role } from '@paperlink/domain';

/**
 * The shape of an operation of either API (listed in command-api/src/operations.ts and
 * query-api/src/operations.ts; command-api/src/http/openapi.ts builds the document).
 */

/** Who may call an operation. */
export type OperationAuth =
  /** Anyone (sign-up, sign-in, health, these docs). */
  | 'none'
  /** A signed-in user (bearer token); no company needed. */
  | 'user'
  /** A signed-in member of the company in the X-Company-ID header. */
  | 'company'
  /** A signed-in member of the company in the path (`/companies/{id}/...`). */
  | 'company-path'
  /** The signed direct-upload URL is the credential (like a presigned S3 URL). */
  | 'upload-link';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/** What the body of a request is. */
export type OperationBody =
  | { json: z.ZodType }
  /** multipart/form-data: the file fields, and the text fields as a zod object. */
  | { multipart: { files: string[]; fields?: z.ZodObject } }
  /** The raw bytes of one file. */
  | { raw: string };

/** What a successful answer carries. */
export type SuccessContent = 'json' | 'file' | 'image/jpeg' | 'html' | 'css';

export interface Operation {
  method: HttpMethod;
  /** As express writes it: `/receipts/:id` (under /api). */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: OperationAuth;
  /** Roles the route itself requires (empty: any member; deciders may refuse more). */
  roles?: Role[];
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: OperationBody;
  success: { status: 200 | 201; description: string; content?: SuccessContent };
  /** Error answers beyond the ones every operation of its kind has. */
  errors?: Partial<Record<400 | 401 | 403 | 404 | 409 | 412 | 413 | 422 | 429 | 503, string>>;
  /**
   * Optimistic concurrency on the wire (ADR 0024): `etag`, the answer carries the record's
   * revision as ETag; `if-match`, the write takes it back in If-Match and answers 412 when stale.
   */
  concurrency?: 'etag' | 'if-match';
  /**
   * A command-side POST that appends nothing: it computes an answer from the read models, so a
   * read-only caller (an auditor) may call it. test/api/auditor.int.spec.ts calls each one as an
   * auditor and sees the event log unchanged.
   */
  computesOnly?: true;
}

