import axios from 'axios';

/**
 * Concurrent edits (ADR 0024): a screen that edits a record sends back the revision it
 * read (the record's `revision`, which the server also answers as ETag) in If-Match; when someone
 * else changed the record meanwhile, the server answers 412 and writes nothing. The screen then
 * says so, keeps what the person typed, and offers to reload instead of overwriting.
 */

/**
 * The request options carrying If-Match for the revision a screen read, to spread after a
 * write's body: none when the screen read no revision (an unconditional write, as before).
 */
export function ifMatch(revision: number | undefined): [] | [{ headers: Record<string, string> }] {
  return revision === undefined ? [] : [{ headers: { 'If-Match': `"${revision}"` } }];
}

/** Whether a failed write was refused because the record changed since it was read. */
export function isStale(error: unknown): boolean {
  return axios.isAxiosError(error) && error.response?.status === 412;
}

/** What a screen says when its copy is stale (the server's own text is used when it gives one). */
export const STALE_FALLBACK = 'This record was changed by someone else. Reload to see the changes.';
