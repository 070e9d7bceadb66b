import { createHmac, webcrypto } from 'node:crypto';
import { ValidationError } from '@paperlink/domain';

/**
 * Request fingerprints for X-Request-Id idempotency. They are stored in `RequestCompleted`
 * events, so they must never let anyone holding a copy of the event log learn a secret:
 * - they are keyed (HMAC-SHA256 with a key derived from the server's signing secret), so an
 *   event log alone gives nothing to test guesses against;
 * - secret fields (passwords, tokens) are left out before fingerprinting, so even someone who
 *   also has the key cannot test password guesses against them. What binds a replay to the
 *   secret instead is decided where the secret is checked (see CommandBus.run).
 */

/** Fields whose values never go into a fingerprint, at any depth (passwords, tokens, secrets). */
export const SECRET_FIELD = /pass(word|phrase)|secret|token/i;

/** The deepest JSON a request may carry (the edge refuses more; the fingerprint guards itself too). */
export const MAX_JSON_DEPTH = 32;

/** Nesting a fingerprint walks at most: anything deeper is refused, never overflows the stack. */
const FINGERPRINT_MAX_DEPTH = 64;

export function tooDeep(max = MAX_JSON_DEPTH): ValidationError {
  return new ValidationError(`The request body is nested too deeply (at most ${max} levels of objects and arrays).`, undefined, 'too_deep');
}

/** The key for fingerprints, derived from the signing secret (a separate purpose from token signing). */
export function fingerprintKey(secret: string): Uint8Array {
  return new Uint8Array(createHmac('sha256', secret).update('paperlink request fingerprints v2').digest());
}

/**
 * Canonical text of a value for fingerprinting: JSON-like, secret fields dropped, Buffers
 * stood in for by their length (callers fold in the bytes' hash, see fileDigest), depth
 * bounded so that hostile nesting is a 400 and never a stack overflow.
 */
export function canonical(value: unknown, maxDepth = FINGERPRINT_MAX_DEPTH): string {
  const out: string[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (v === null || v === undefined) {
      out.push('null');
    } else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
      out.push(JSON.stringify(v));
    } else if (typeof v === 'bigint') {
      out.push(JSON.stringify(v.toString()));
    } else if (Buffer.isBuffer(v) || v instanceof Uint8Array) {
      out.push(`{"$bytes":${v.byteLength}}`);
    } else if (typeof v === 'object') {
      if (depth >= maxDepth) throw tooDeep(maxDepth);
      if (Array.isArray(v)) {
        out.push('[');
        v.forEach((item, i) => {
          if (i > 0) out.push(',');
          walk(item, depth + 1);
        });
        out.push(']');
      } else {
        out.push('{');
        let first = true;
        for (const key of Object.keys(v).sort()) {
          if (SECRET_FIELD.test(key)) continue;
          const item = (v as Record<string, unknown>)[key];
          if (item === undefined || typeof item === 'function') continue;
          if (!first) out.push(',');
          first = false;
          out.push(JSON.stringify(key), ':');
          walk(item, depth + 1);
        }
        out.push('}');
      }
    } else {
      out.push('null');
    }
  };
  walk(value, 0);
  return out.join('');
}

/** HMAC-SHA256 (base64url) over the canonical text of the parts. */
export function keyedFingerprint(key: Uint8Array, parts: unknown[]): string {
  return createHmac('sha256', key).update(canonical(parts)).digest('base64url');
}

/** SHA-256 of bytes (hex), computed by WebCrypto off the request thread. */
export async function fileDigest(bytes: Uint8Array): Promise<string> {
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes)).toString('hex');
}

/** Depth of a parsed JSON value, walked without recursion; stops as soon as it passes `max`. */
export function exceedsDepth(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const item of Array.isArray(v) ? v : Object.values(v)) {
      if (item !== null && typeof item === 'object') stack.push([item, depth + 1]);
    }
  }
  return false;
}
