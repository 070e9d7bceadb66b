/**
 * Appends to EventStoreDB under its size limit (docs/decisions/0016-multi-stream-commands-on-eventstoredb.md).
 *
 * The server refuses an append whose events add up to more than MaxAppendSize bytes (1 MiB by
 * default up to KurrentDB 25.0; 256 MiB from 25.1, which also refuses one event over
 * MaxAppendEventSize, 16 MiB). It counts each event as `Event.SizeOnDisk`: the bytes of its data
 * and of its custom metadata, plus twice the length of its type (KurrentDB
 * src/KurrentDB.Core/Data/Event.cs; servers before 25.0 counted the data alone, by an operator
 * precedence slip, so this measure is never less than theirs). The client sends the data and the
 * metadata as JSON.stringify makes them, in UTF-8 (@eventstore/db-client appendToStream).
 *
 * An append over the limit is written in chunks, one after another; each later chunk expects the
 * revision the one before returned, so the chunks lie together in the stream as one append would.
 * A chunk that fails without an answer (time-out, lost connection, leader change) is sent again
 * as it was: the same event ids at the same expected revision, which the server's idempotence
 * check answers with the first write's result when that write was committed.
 */
import { AppError, type AppendResult, type ExpectedRevision } from '@paperlink/domain';

/** The server's default MaxAppendSize before KurrentDB 25.1 (and the safe choice for any server). */
export const DEFAULT_MAX_APPEND_BYTES = 1024 * 1024;

/** An event as the client sends it: its type, its data and its metadata (both turned into JSON). */
export interface SizedEvent {
  type: string;
  data: unknown;
  metadata?: unknown;
}

/** Bytes of a value as the client sends it: JSON.stringify in UTF-8 (nothing for no value). */
function jsonBytes(value: unknown): number {
  const json = JSON.stringify(value) as string | undefined;
  return json === undefined ? 0 : Buffer.byteLength(json, 'utf8');
}

/** What the server counts of one event against MaxAppendSize (Event.SizeOnDisk). */
export function eventSize(e: SizedEvent): number {
  // The client leaves out metadata that is not there (no custom metadata at all).
  const metadata = e.metadata ? jsonBytes(e.metadata) : 0;
  return jsonBytes(e.data) + metadata + 2 * e.type.length;
}

/** One event larger than a whole append may be: no split helps; refused before anything is sent. */
export class EventTooLargeError extends AppError {
  constructor(streamId: string, index: number, type: string, size: number, limit: number) {
    super(
      413,
      'event_too_large',
      `An event of this request is ${size} bytes; the event store takes at most ${limit} bytes in one append (EVENTSTORE_MAX_APPEND_BYTES)`,
      { streamId, index, type, size, limit },
    );
  }
}

/**
 * Chunks of consecutive events, as [start, end) index pairs, each adding up to at most `limit`
 * bytes (the server refuses only a total above it), as few as the order allows. An event over the
 * limit on its own is refused (EventTooLargeError).
 */
export function splitBySize(sizes: readonly number[], limit: number, describe: (index: number) => { streamId: string; type: string } = () => ({ streamId: '', type: '' })): Array<[number, number]> {
  if (!(limit > 0)) throw new Error(`the append limit must be a positive number of bytes, not ${limit}`);
  const chunks: Array<[number, number]> = [];
  let start = 0;
  let total = 0;
  sizes.forEach((size, i) => {
    if (size > limit) {
      const { streamId, type } = describe(i);
      throw new EventTooLargeError(streamId, i, type, size, limit);
    }
    if (total + size > limit) {
      chunks.push([start, i]);
      start = i;
      total = 0;
    }
    total += size;
  });
  if (start < sizes.length) chunks.push([start, sizes.length]);
  return chunks;
}

/** Work on the request thread between turns of the event loop, at most (as the SQLite store's serialisation). */
const SLICE_MS = 15;

/** The sizes of events, with a turn of the event loop whenever a slice took SLICE_MS: an import's events are tens of megabytes of JSON. */
export async function sizesInSlices(events: readonly SizedEvent[]): Promise<number[]> {
  const sizes: number[] = [];
  let slice = performance.now();
  for (const e of events) {
    sizes.push(eventSize(e));
    if (performance.now() - slice > SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
  }
  return sizes;
}

/**
 * Appends `events` to one stream in chunks under `limit`: the first chunk at `expected`, each later
 * one at the revision the one before returned. Resolves with the last chunk's result (the stream's
 * revision and the position of its last event, as one append would). A failure stops it: the
 * chunks before stay written (the command's plan order makes that a state its retry completes).
 */
export async function appendInChunks<E extends SizedEvent>(
  streamId: string,
  events: readonly E[],
  expected: ExpectedRevision,
  limit: number,
  appendChunk: (chunk: E[], expected: ExpectedRevision) => Promise<AppendResult>,
): Promise<AppendResult> {
  if (events.length === 0) return appendChunk([], expected);
  const sizes = await sizesInSlices(events);
  const chunks = splitBySize(sizes, limit, (i) => ({ streamId, type: events[i]!.type }));
  let result: AppendResult | undefined;
  let next = expected;
  for (const [start, end] of chunks) {
    result = await appendChunk(events.slice(start, end), next);
    next = result.nextExpectedRevision;
  }
  return result!;
}

/** Back-off between sends of one append after a failure without an answer. */
export interface RetryPolicy {
  /** Sends at most (the first included). */
  attempts: number;
  baseMs: number;
  maxMs: number;
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_APPEND_RETRY: RetryPolicy = { attempts: 4, baseMs: 200, maxMs: 2000 };

/**
 * Runs `send` again, as it was, while it fails with an error `transient` accepts (the outcome is
 * unknown or nothing was written), waiting baseMs, 2·baseMs, ... up to maxMs between sends.
 */
export async function sendWithRetries<T>(send: () => Promise<T>, transient: (error: unknown) => boolean, policy: RetryPolicy = DEFAULT_APPEND_RETRY): Promise<T> {
  const sleep = policy.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (attempt >= policy.attempts || !transient(error)) throw error;
      await sleep(Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1)));
    }
  }
}
