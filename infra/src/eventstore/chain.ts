/**
 * The hash chain over the global event log (docs/decisions/0010-event-hash-chain.md).
 *
 * Each event's hash is SHA-256 over one RFC 8785 (JSON Canonicalization Scheme) document:
 *
 *   {"data":…,"id":…,"metadata":…,"position":…,"prevHash":…,"revision":…,"stream":…,"type":…}
 *
 * `prevHash` is the hash of the event at the previous global position (64 zeros for the first
 * event), as lowercase hex. The event's time is `metadata.occurredAt`; its author, company and
 * request are in `metadata` too, so the document is everything that defines the event.
 *
 * The document is assembled here by hand (its keys are already in RFC 8785 order) around a
 * canonical form of `data` and `metadata` made by `canonicalJson`, which follows RFC 8785 for
 * every value JSON can carry and JSON.stringify's rules for what it drops (undefined, functions)
 * or converts (toJSON, NaN): so the hash of an event at append time equals the hash of the same
 * event read back from its stored JSON. test/audit/chain.int.spec.ts checks both against the
 * `canonicalize` package.
 *
 * The store keeps `data` and `metadata` in this canonical form, so the check hashes the stored
 * text as it is; rows written before (JSON.stringify's key order) are parsed and canonicalised
 * when the stored text does not give the stored hash.
 */
import * as crypto from 'node:crypto';

/** crypto.hash (Node 20.12+): one-shot, about half the cost of createHash for a few hundred bytes; createHash before it. */
const sha: (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string =
  typeof crypto.hash === 'function' ? crypto.hash : (algorithm, data, encoding) => crypto.createHash(algorithm).update(data).digest(encoding);
import type Database from 'better-sqlite3';

export const GENESIS_HASH = '0'.repeat(64);

const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
/** Object keys repeat from event to event: each is quoted once (a bounded cache). */
const quotedKeys = new Map<string, string>();
function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < 4096) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/**
 * RFC 8785 canonical JSON: object keys sorted by UTF-16 code units, no white space, numbers and
 * strings as ECMAScript's JSON.stringify writes them.
 */
export function canonicalJson(value: unknown): string {
  // Data without array-index-like keys (nearly every event) is JSON.stringify of a copy whose
  // keys are inserted in sorted order: V8 writes string keys in insertion order, and its
  // strings, numbers and what it drops or converts are RFC 8785's and canonicalJsonByHand's.
  // About 3x faster on a 1,000-row import event (ADR 0010, amendment of 2026-12-02); anything else: by hand.
  const sorted = sortedForStringify(value, 0);
  if (sorted !== BY_HAND) return JSON.stringify(sorted) ?? 'null';
  return canonicalJsonByHand(value);
}

/** A value that the sorted copy cannot stand for (see sortedForStringify). */
const BY_HAND = Symbol('by hand');
/** Keys V8 enumerates before every other key, in numeric order (array indices): not insertion order. */
const INDEX_LIKE = /^(?:0|[1-9]\d*)$/;
/** Nesting deeper than this is left to the by-hand path (which says what the data is). */
const MAX_DEPTH = 200;

/**
 * `value` with every plain object's keys in sorted (UTF-16 code unit) insertion order, sharing
 * what is sorted already; BY_HAND when JSON.stringify of it could differ from canonicalJsonByHand:
 * an array-index-like key, an own `__proto__` key, a boxed primitive, a bigint, a toJSON that
 * does not give a string, deep nesting.
 */
function sortedForStringify(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? BY_HAND : value;
  if (depth > MAX_DEPTH) return BY_HAND;
  // JSON.stringify unwraps boxed primitives; canonicalJsonByHand writes their keys.
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return BY_HAND;
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') {
    const json = withJson.toJSON();
    return typeof json === 'string' ? json : BY_HAND;
  }
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = value[i] as unknown;
      const s = sortedForStringify(v, depth + 1);
      if (s === BY_HAND) return BY_HAND;
      if (s !== v) (out ??= value.slice())[i] = s;
    }
    return out ?? value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let inOrder = true;
  for (let i = 0; i < keys.length; i++) {
    // An own `__proto__` key (JSON.parse makes them) would set a copy's prototype instead; copies
    // without a prototype keep it but are dictionaries, 2-3x slower to write: by hand instead.
    if (INDEX_LIKE.test(keys[i]!) || keys[i] === '__proto__') return BY_HAND;
    if (i > 0 && keys[i - 1]! > keys[i]!) inOrder = false;
  }
  if (!inOrder) keys.sort();
  let out: Record<string, unknown> | undefined = inOrder ? undefined : {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const v = record[key];
    const s = sortedForStringify(v, depth + 1);
    if (s === BY_HAND) return BY_HAND;
    if (!out && s !== v) {
      out = {};
      for (let j = 0; j < i; j++) out[keys[j]!] = record[keys[j]!];
    }
    if (out) out[key] = s;
  }
  return out ?? value;
}

/** canonicalJson built piece by piece: the reference, and the path for what the sorted copy cannot stand for. */
export function canonicalJsonByHand(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      // Printable ASCII without quote or backslash is written as it is (as JSON.stringify would).
      return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      // NaN and infinities are not JSON: null, as JSON.stringify writes them (RFC 8785 refuses them; a stored event never holds one).
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      // undefined, functions, symbols: what JSON.stringify leaves out (callers skip them in objects).
      return 'null';
  }
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return canonicalJsonByHand(withJson.toJSON());
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += canonicalJsonByHand(value[i]);
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const v = record[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    if (!first) out += ',';
    first = false;
    out += `${quotedKey(key)}:${canonicalJsonByHand(v)}`;
  }
  return `${out}}`;
}

/** What defines an event, with `data` and `metadata` already in canonical JSON. */
export interface ChainContent {
  id: string;
  stream: string;
  revision: number;
  position: number;
  type: string;
  /** canonicalJson(data) */
  data: string;
  /** canonicalJson(metadata) */
  metadata: string;
}

/** The canonical document an event's hash is taken over (RFC 8785: keys in sorted order). */
export function chainDocument(prevHash: string, c: ChainContent): string {
  return `{"data":${c.data},"id":${JSON.stringify(c.id)},"metadata":${c.metadata},"position":${c.position},"prevHash":"${prevHash}","revision":${c.revision},"stream":${JSON.stringify(c.stream)},"type":${JSON.stringify(c.type)}}`;
}

/** SHA-256 of the event's canonical document, as 64 lowercase hex digits. */
export function chainHash(prevHash: string, c: ChainContent): string {
  return sha('sha256', chainDocument(prevHash, c), 'hex');
}

export interface BrokenLink {
  position: number;
  eventId: string | null;
  /** What is wrong: the hash does not match, a position is missing, or the row has no hash. */
  reason: 'hash_mismatch' | 'position_gap' | 'missing_hash';
  /** The hash the chain says this event must have (recomputed). */
  expected: string;
  /** The hash stored with the event (null: none). */
  found: string | null;
}

export interface ChainReport {
  ok: boolean;
  /** Events checked (up to and including the broken one). */
  checked: number;
  /** The last event checked: a later check can compare it (a truncated log re-hashes cleanly). */
  head: { position: number; hash: string };
  broken?: BrokenLink;
  ms: number;
}

type Row = [position: number, eventId: string, streamKey: number, revision: number, type: string, data: string, metadata: string | null, commitPosition: number | null, hash: Buffer | null];

/** The stream names of an event store file, by key. */
function streamNames(db: Database.Database): Map<number, string> {
  const names = new Map<number, string>();
  for (const [key, id] of db.prepare<[], [number, string]>('SELECT stream_key, stream_id FROM streams').raw().iterate()) names.set(key, id);
  return names;
}

/**
 * Walks the rows of an events table in position order from `after`, recomputing each hash from
 * the previous row's stored hash; `visit` sees each row with its recomputed hash and returns
 * false to stop. Metadata rows are shared by the events of one append (commit_position).
 */
export function walkChain(
  db: Database.Database,
  visit: (position: number, eventId: string, expected: string, found: string | null) => boolean,
  from: { after: number; prevHash: string; until?: number } = { after: 0, prevHash: GENESIS_HASH },
): void {
  const names = streamNames(db);
  // The hot loop (a million rows in a few seconds): stream names and types as JSON strings once, no objects per row.
  const quotedStreams = new Map<number, string>();
  for (const [key, name] of names) quotedStreams.set(key, JSON.stringify(name));
  const quotedTypes = new Map<string, string>();
  const commitMeta = db.prepare<[number], { metadata: string | null }>('SELECT metadata FROM events WHERE position = ?');
  const rows = db.prepare<[number, number], Row>('SELECT position, event_id, stream_key, revision, type, data, metadata, commit_position, hash FROM events WHERE position > ? AND position <= ? ORDER BY position').raw();
  let prevHash = from.prevHash;
  let lastCommit = -1;
  let lastMeta = '';
  let lastCanonicalMeta: string | undefined;
  for (const [position, eventId, streamKey, revision, type, data, metadataJson, commitPosition, stored] of rows.iterate(from.after, from.until ?? Number.MAX_SAFE_INTEGER)) {
    const commit = commitPosition ?? position;
    if (commit !== lastCommit) {
      lastMeta = metadataJson ?? commitMeta.get(commit)?.metadata ?? 'null';
      lastCanonicalMeta = undefined;
      lastCommit = commit;
    }
    const found = stored ? stored.toString('hex') : null;
    let quotedType = quotedTypes.get(type);
    if (quotedType === undefined) quotedTypes.set(type, (quotedType = JSON.stringify(type)));
    const quotedStream = quotedStreams.get(streamKey) ?? JSON.stringify(`#${streamKey}`);
    const quotedId = JSON.stringify(eventId);
    // The stored text first (canonical since it is stored so); then its canonical form, for rows
    // written before. A stored text that is not canonical cannot give the hash of the canonical one.
    // Same document as chainDocument, built inline.
    // (A row without a hash, as in the upgrade, goes straight to the canonical form.)
    let expected = found === null ? '' : sha('sha256', `{"data":${data},"id":${quotedId},"metadata":${lastMeta},"position":${position},"prevHash":"${prevHash}","revision":${revision},"stream":${quotedStream},"type":${quotedType}}`, 'hex');
    if (expected !== found) {
      lastCanonicalMeta ??= canonicalJson(JSON.parse(lastMeta));
      expected = chainHash(prevHash, { id: eventId, stream: names.get(streamKey) ?? `#${streamKey}`, revision, position, type, data: canonicalJson(JSON.parse(data)), metadata: lastCanonicalMeta });
    }
    if (!visit(position, eventId, expected, found)) return;
    prevHash = found ?? expected;
  }
}

/** Rows per chunk of the fast check (about 700 KB of documents)... */
const CHUNK = 1000;
/** ...and at most about this much stored data: a chunk of large events (imports) is cut down to it, a single larger event is walked. */
const CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * One chunk of the fast check: SQLite assembles each row's document (the text walkChain builds
 * from the stored columns: stored data and metadata, the stored hash of the row before as
 * prevHash) and hands back the chunk's documents as one BLOB (newline-separated: canonical JSON
 * holds no raw newline) and the stored hashes as one hex string (upper case: made lower case once
 * per chunk), so JavaScript does no work per row but one SHA-256 and a comparison.
 *
 * - Each document is compared with the stored hash of its own row (both aggregates take the rows
 *   in the same order, whatever it is), and carries the stored hash of the row at position - 1:
 *   the chunk's order does not matter (the new head's hash is read from its row).
 * - Rows `after` < p <= `until` that number max - after are the positions after+1 … max, no gap.
 * - Names (event id, stream, type) go between quotes as they are; a chunk where one holds a quote
 *   or a backslash (`odd`) is walked row by row, with JSON.stringify's escaping.
 */
const FAST_CHUNK = `SELECT count(*), max(position), CAST(group_concat(doc, char(10)) AS BLOB), group_concat(stored, ''), sum(odd) FROM (
  SELECT e.position AS position, hex(e.hash) AS stored,
    '{"data":' || e.data || ',"id":"' || e.event_id || '","metadata":' || coalesce(e.metadata, m.metadata, 'null') || ',"position":' || e.position
    || ',"prevHash":"' || CASE WHEN p.hash IS NULL THEN '${GENESIS_HASH}' ELSE lower(hex(p.hash)) END || '","revision":' || e.revision
    || ',"stream":"' || s.stream_id || '","type":"' || e.type || '"}' AS doc,
    instr(e.event_id, '"') + instr(e.event_id, '\\') + instr(e.type, '"') + instr(e.type, '\\') + coalesce(instr(s.stream_id, '"') + instr(s.stream_id, '\\'), 1) AS odd
  FROM events e
  LEFT JOIN events m ON m.position = e.commit_position
  LEFT JOIN events p ON p.position = e.position - 1
  LEFT JOIN streams s ON s.stream_key = e.stream_key
  WHERE e.position > ? AND e.position <= ?
)`;

/**
 * Checks the chain of an events file (or the positions `after` < p <= `until` of it: each link
 * needs only the stored hash before it, so ranges can be checked side by side) and reports the
 * first broken link.
 *
 * Chunk by chunk: a chunk whose positions follow on from the last checked one without a gap and
 * whose every document hashes to its stored hash is intact as a whole (the fast path, above);
 * any other chunk (a gap, a missing or different hash, a row of an older file whose stored text is
 * not canonical, a name that needs escaping) is walked row by row by walkChain, which names the
 * first broken link exactly or finds the chunk intact after all.
 */
export function verifyChain(db: Database.Database, range: { after: number; until?: number } = { after: 0 }, { chunkBytes = CHUNK_BYTES }: { chunkBytes?: number } = {}): ChainReport {
  const started = performance.now();
  let checked = 0;
  let head = { position: 0, hash: GENESIS_HASH };
  let broken: BrokenLink | undefined;
  if (range.after > 0) {
    const before = db.prepare<[number], { hash: Buffer | null }>('SELECT hash FROM events WHERE position = ?').get(range.after);
    if (!before) {
      // Reported as a walk from the start reports it: at the event that shows the gap.
      const next = db.prepare<[number], { position: number; event_id: string }>('SELECT position, event_id FROM events WHERE position > ? ORDER BY position LIMIT 1').get(range.after);
      const found = next ? `the next event is at ${next.position} (${next.event_id})` : 'none';
      return { ok: false, checked: next ? 1 : 0, head, broken: { position: range.after, eventId: null, reason: 'position_gap', expected: `an event at position ${range.after}`, found }, ms: 0 };
    }
    head = { position: range.after, hash: before.hash ? before.hash.toString('hex') : GENESIS_HASH };
  }
  const last = db.prepare<[], { position: number | null }>('SELECT MAX(position) AS position FROM events').get()?.position ?? 0;
  const until = Math.min(range.until ?? Number.MAX_SAFE_INTEGER, last);
  const visit = (position: number, eventId: string, expected: string, found: string | null): boolean => {
    checked += 1;
    if (position !== head.position + 1) {
      // A deleted event: the next one's hash was taken over the deleted one's, and says so.
      broken = { position: head.position + 1, eventId: null, reason: 'position_gap', expected: `an event at position ${head.position + 1}`, found: `the next event is at ${position} (${eventId})` };
      return false;
    }
    if (found === null || found !== expected) {
      broken = { position, eventId, reason: found === null ? 'missing_hash' : 'hash_mismatch', expected, found };
      return false;
    }
    head = { position, hash: found };
    return true;
  };
  const chunk = db.prepare<[number, number], [number, number | null, Buffer | null, string | null, number | null]>(FAST_CHUNK).raw();
  const hashAt = db.prepare<[number], [Buffer | null]>('SELECT hash FROM events WHERE position = ?').raw();
  // A chunk the fast path does not vouch for is walked row by row, and so are the next 1, 2, 4 …
  // 64 chunks after each such chunk found intact (rows of an older file, stored as JSON.stringify
  // wrote them), in one walk each (a walk reads the stream names first).
  const bytesIn = db.prepare<[number, number], [number | null]>('SELECT sum(octet_length(data)) FROM events WHERE position > ? AND position <= ?').raw();
  const dataBytes = (from: number, to: number) => bytesIn.get(from, to)![0] ?? 0;
  let backoff = 0;
  let after = range.after;
  while (after < until && !broken) {
    // A chunk of large events (imports) is cut down to `chunkBytes` of data; a single larger event is walked.
    let end = Math.min(after + CHUNK, until);
    let bytes = dataBytes(after, end);
    while (bytes > chunkBytes && end - after > 1) {
      end = after + Math.ceil((end - after) / 2);
      bytes = dataBytes(after, end);
    }
    const [count, lastInChunk, docs, stored, odd] = bytes > chunkBytes ? [0, null, null, null, null] : chunk.get(after, end)!;
    const hashes = stored && stored.length === 64 * count ? Buffer.from(stored, 'hex').toString('hex') : '';
    if (count > 0 && after === head.position && lastInChunk === after + count && odd === 0 && docs && hashes.length === 64 * count && intact(docs, hashes, count)) {
      checked += count;
      head = { position: lastInChunk, hash: hashAt.get(lastInChunk)![0]!.toString('hex') };
      backoff = 0;
      after = end;
      continue;
    }
    const to = Math.min(Math.max(end, after + CHUNK * backoff), until);
    backoff = Math.min(64, Math.max(1, backoff * 2));
    walkChain(db, visit, { after: head.position, prevHash: head.hash, until: to });
    after = to;
  }
  return { ok: !broken, checked, head, ...(broken ? { broken } : {}), ms: Math.round(performance.now() - started) };
}

/** Whether each of the `count` newline-separated documents hashes to its stored hash (64 hex digits each, in order). */
function intact(docs: Buffer, stored: string, count: number): boolean {
  let at = 0;
  for (let i = 0; i < count; i++) {
    const end = i === count - 1 ? docs.length : docs.indexOf(10, at);
    if (end < 0) return false;
    if (!stored.startsWith(sha('sha256', docs.subarray(at, end), 'hex'), i * 64)) return false;
    at = end + 1;
  }
  return true;
}

/**
 * Upgrade of a file written before events carried hashes: adds the `hash` column and computes
 * the chain for every row, in position order, in one write transaction (the column and the
 * hashes appear together, or neither). Runs only while the column is missing: once it exists,
 * a row without a hash is a broken link (`missing_hash`), never filled in. Idempotent; a second
 * connection upgrading at the same time waits for the first and finds nothing to do. Returns
 * how many rows it hashed.
 */
export function upgradeChain(db: Database.Database): number {
  const hasColumn = () => db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('events')").all();
  const before = hasColumn();
  if (before.length === 0 || before.some((c) => c.name === 'hash')) return 0;
  let hashed = 0;
  db.transaction(() => {
    if (hasColumn().some((c) => c.name === 'hash')) return;
    db.exec('ALTER TABLE events ADD COLUMN hash BLOB');
    const set = db.prepare<[Buffer, number]>('UPDATE events SET hash = ? WHERE position = ?');
    const updates: Array<[Buffer, number]> = [];
    walkChain(db, (position, _eventId, expected) => {
      updates.push([Buffer.from(expected, 'hex'), position]);
      return true;
    });
    for (const u of updates) set.run(...u);
    hashed = updates.length;
  }).immediate();
  return hashed;
}
