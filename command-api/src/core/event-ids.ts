/**
 * Event ids derived from the request and the event's place in its plan (ADR 0016), so that an
 * append sent again stores nothing new: EventStoreDB (and the SQLite store, which does as it
 * does) recognises events whose ids are already right after the expected revision and answers
 * with the first write's result.
 *
 * The same ids must never stand for different events, or the server would keep the first and
 * drop the second as a retry. So an append's ids come from a keyed hash of everything that makes
 * it that append: the request (its X-Request-Id with its fingerprint, else the id the request got),
 * the stream, the expected revision, and each event's type and data. Data is hashed when it is
 * small; a large event (an import's thousand rows: hashing 200 of them would cost the request
 * thread about a second) stands for itself by the bus's run instead, so its ids hold across the
 * bus's own attempts and the store's resends, and a request sent again gets new ones.
 */
import { createHash, createHmac } from 'node:crypto';
import type { ExpectedRevision } from '@paperlink/domain';

/** Past this many values and keys an event's data is large: identified by the run, not hashed. */
export const SMALL_DATA_NODES = 2000;

/** What the ids of a plan's events are derived from. */
export interface IdSeed {
  /** The bus's key (the fingerprint key): ids cannot be foretold from a request id alone. */
  key: Uint8Array;
  /** The request: X-Request-Id with the request's fingerprint, or the id the request was given. */
  request: string;
  /** One run of the bus (every attempt of one request), for large events. */
  run: string;
}

/** Whether a value has at most `max` values and keys in all (stops counting past it). */
export function smallData(value: unknown, max = SMALL_DATA_NODES): boolean {
  let budget = max;
  const visit = (v: unknown): boolean => {
    if (--budget < 0) return false;
    if (v === null || typeof v !== 'object') return true;
    if (Array.isArray(v)) return v.every(visit);
    // A key counts as one more.
    for (const child of Object.values(v)) if (--budget < 0 || !visit(child)) return false;
    return true;
  };
  return visit(value);
}

/** What stands for an event's data in its id: a hash of its JSON when small, else the run. */
function dataIdentity(data: unknown, run: string): string {
  if (!smallData(data)) return `run:${run}`;
  return `sha256:${createHash('sha256').update(JSON.stringify(data) ?? 'undefined').digest('base64url')}`;
}

/** A UUID of version 8 (RFC 9562, custom) from the first 16 bytes of a hash. */
export function uuidV8(hash: Buffer): string {
  const b = Buffer.from(hash.subarray(0, 16));
  b[6] = 0x80 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The ids of one append's events, in order. */
export function appendEventIds(
  seed: IdSeed,
  append: { streamId: string; expectedRevision: ExpectedRevision; events: ReadonlyArray<{ type: string; data: unknown }> },
): string[] {
  const parts = [seed.request, append.streamId, String(append.expectedRevision), append.events.map((e) => [e.type, dataIdentity(e.data, seed.run)])];
  const appendKey = createHmac('sha256', seed.key).update(JSON.stringify(parts)).digest();
  return append.events.map((_, i) => {
    const index = Buffer.alloc(4);
    index.writeUInt32BE(i);
    return uuidV8(createHmac('sha256', appendKey).update(index).digest());
  });
}
