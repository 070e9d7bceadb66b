/**
 * Audit export (ADR 0010): a company's events for a period as one signed file that can be
 * checked offline (`make verify BUNDLE=<file>`). Format (JSON lines, UTF-8):
 *
 *   line 1:  {"manifest": {...}}           what the bundle holds, signed (Ed25519)
 *   line 2…: one event per line, canonical JSON: {data, hash, id, metadata, position, prevHash, revision, stream, type}
 *
 * The company's events are a subset of the global chain: each line carries its own hash and the
 * hash of the event before it in the global log, so a verifier recomputes every event's hash from
 * its content, and links consecutive positions. What that proves and what it cannot:
 * docs/decisions/0010-event-hash-chain.md.
 *
 * Left out: request records (`request-*` streams: retry fingerprints) and account streams
 * (`user-*` and its checkpoints `usersnapshot-*`: password hashes; a user's sign-in attempts and
 * address marks, `signins-*`, `signinsource-*`, ADR 0022), which are not company records even
 * when a request carried the company's id.
 */
import { createHash, createHmac, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { canonicalJson, chainHash, GENESIS_HASH } from '../eventstore/chain';

export const BUNDLE_FORMAT = 'paperlink-audit-bundle/1' as const;
/** Stream categories that are never part of a company's bundle. */
const EXCLUDED_CATEGORIES = new Set(['request', 'user', 'usersnapshot', 'signins', 'signinsource']);

export interface BundleManifest {
  format: typeof BUNDLE_FORMAT;
  companyId: string;
  /** Inclusive ISO dates on metadata.occurredAt; null: open. */
  period: { startDate: string | null; endDate: string | null };
  count: number;
  first: { position: number; hash: string; prevHash: string } | null;
  last: { position: number; hash: string } | null;
  /** The global log's last event when the bundle was made: a later check can anchor on it. */
  logHead: { position: number; hash: string };
  /** SHA-256 (hex) of the event lines exactly as written (each with its newline). */
  eventsSha256: string;
  createdAt: string;
  /** How each event's hash is made, for people reading the file. */
  hashRule: string;
  signatureAlgorithm: 'Ed25519';
  /** The server's audit public key, raw 32 bytes, base64. Compare it with the one the server shows. */
  publicKey: string;
  /** Ed25519 over canonicalJson(manifest without `signature`), base64. */
  signature: string;
}

export interface BundleEvent {
  position: number;
  id: string;
  stream: string;
  revision: number;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The server's audit signing key: an Ed25519 key whose seed is derived from the server secret. */
export function auditSigningKey(secret: string): { privateKey: KeyObject; publicKey: string } {
  const seed = createHmac('sha256', secret).update('paperlink audit bundle signing key v1').digest();
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  return { privateKey, publicKey: rawPublicKey(createPublicKey(privateKey)) };
}

function rawPublicKey(key: KeyObject): string {
  const der = key.export({ format: 'der', type: 'spki' });
  return der.subarray(der.length - 32).toString('base64');
}

function publicKeyFromRaw(raw: string): KeyObject {
  const spkiPrefix = Buffer.from('302a300506032b6570032100', 'hex');
  return createPublicKey({ key: Buffer.concat([spkiPrefix, Buffer.from(raw, 'base64')]), format: 'der', type: 'spki' });
}

type Row = [position: number, eventId: string, streamKey: number, revision: number, type: string, data: string, metadata: string | null, commitPosition: number | null, hash: Buffer | null];

export interface ExportInput {
  file: string;
  out: string;
  companyId: string;
  startDate: string | null;
  endDate: string | null;
  /** The server secret the signing key is derived from (never written). */
  secret: string;
}

/** Writes the bundle of one company's events to `out`; returns its manifest. */
export async function writeBundle(input: ExportInput): Promise<BundleManifest> {
  const { privateKey, publicKey } = auditSigningKey(input.secret);
  const db = new Database(input.file, { readonly: true, fileMustExist: true });
  const lines: string[] = [];
  const digest = createHash('sha256');
  let count = 0;
  let first: BundleManifest['first'] = null;
  let last: BundleManifest['last'] = null;
  let head = { position: 0, hash: GENESIS_HASH };
  const from = input.startDate ? `${input.startDate}T00:00:00.000Z` : '';
  const until = input.endDate ? `${input.endDate}T23:59:59.999Z` : '\uffff';
  try {
    // One read transaction: the bundle and its logHead are one state of the log.
    db.exec('BEGIN');
    const names = new Map<number, string>();
    for (const [key, id] of db.prepare<[], [number, string]>('SELECT stream_key, stream_id FROM streams').raw().iterate()) names.set(key, id);
    const commitMeta = db.prepare<[number], { metadata: string | null }>('SELECT metadata FROM events WHERE position = ?');
    const rows = db.prepare<[], Row>('SELECT position, event_id, stream_key, revision, type, data, metadata, commit_position, hash FROM events ORDER BY position').raw();
    let lastCommit = -1;
    let meta: Record<string, unknown> = {};
    let prevHash = GENESIS_HASH;
    for (const [position, id, streamKey, revision, type, data, metadataJson, commitPosition, stored] of rows.iterate()) {
      const hash = stored ? stored.toString('hex') : '';
      const commit = commitPosition ?? position;
      if (commit !== lastCommit) {
        meta = JSON.parse(metadataJson ?? commitMeta.get(commit)?.metadata ?? '{}') as Record<string, unknown>;
        lastCommit = commit;
      }
      const stream = names.get(streamKey) ?? `#${streamKey}`;
      const occurredAt = typeof meta.occurredAt === 'string' ? meta.occurredAt : '';
      const category = stream.slice(0, Math.max(0, stream.indexOf('-')));
      if (meta.companyId === input.companyId && !EXCLUDED_CATEGORIES.has(category) && occurredAt >= from && occurredAt <= until) {
        const event: BundleEvent = { position, id, stream, revision, type, data: JSON.parse(data), metadata: meta, prevHash, hash };
        const line = `${canonicalJson(event)}\n`;
        digest.update(line);
        lines.push(line);
        count += 1;
        first ??= { position, hash, prevHash };
        last = { position, hash };
      }
      prevHash = hash;
      head = { position, hash };
    }
    db.exec('COMMIT');
  } finally {
    db.close();
  }
  const unsigned = {
    format: BUNDLE_FORMAT,
    companyId: input.companyId,
    period: { startDate: input.startDate, endDate: input.endDate },
    count,
    first,
    last,
    logHead: head,
    eventsSha256: digest.digest('hex'),
    createdAt: new Date().toISOString(),
    hashRule: 'SHA-256 over RFC 8785 {data,id,metadata,position,prevHash,revision,stream,type}',
    signatureAlgorithm: 'Ed25519' as const,
    publicKey,
  };
  const signature = sign(null, Buffer.from(canonicalJson(unsigned)), privateKey).toString('base64');
  const manifest: BundleManifest = { ...unsigned, signature };
  await new Promise<void>((resolve, reject) => {
    const out = createWriteStream(input.out, { mode: 0o600 });
    out.on('error', reject);
    out.on('finish', resolve);
    out.write(`${JSON.stringify({ manifest })}\n`);
    for (const line of lines) out.write(line);
    out.end();
  });
  return manifest;
}

export interface BundleCheck {
  ok: boolean;
  problems: string[];
  manifest: BundleManifest | null;
  events: number;
  /** Pairs of consecutive global positions in the bundle whose link was checked. */
  linksChecked: number;
}

/** Checks a bundle offline: signature, digest, count, each event's hash, the links it holds. */
export function checkBundle(text: string, expectedPublicKey?: string): BundleCheck {
  const problems: string[] = [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  let manifest: BundleManifest | null = null;
  try {
    manifest = (JSON.parse(lines[0] ?? '') as { manifest: BundleManifest }).manifest;
  } catch {
    return { ok: false, problems: ['the first line is not a manifest'], manifest: null, events: 0, linksChecked: 0 };
  }
  if (!manifest || manifest.format !== BUNDLE_FORMAT) return { ok: false, problems: [`not a ${BUNDLE_FORMAT} file`], manifest: null, events: 0, linksChecked: 0 };
  const { signature, ...unsigned } = manifest;
  try {
    if (!verify(null, Buffer.from(canonicalJson(unsigned)), publicKeyFromRaw(manifest.publicKey), Buffer.from(signature, 'base64'))) problems.push('the manifest signature does not match its content');
  } catch {
    problems.push('the manifest signature or public key cannot be read');
  }
  if (expectedPublicKey && expectedPublicKey !== manifest.publicKey) problems.push('the bundle is signed with another key than the one expected');
  const digest = createHash('sha256');
  let previous: BundleEvent | null = null;
  let linksChecked = 0;
  const events = lines.slice(1);
  const from = manifest.period.startDate ? `${manifest.period.startDate}T00:00:00.000Z` : '';
  const until = manifest.period.endDate ? `${manifest.period.endDate}T23:59:59.999Z` : '\uffff';
  for (const [i, line] of events.entries()) {
    digest.update(`${line}\n`);
    let e: BundleEvent;
    try {
      e = JSON.parse(line) as BundleEvent;
    } catch {
      problems.push(`line ${i + 2} is not JSON`);
      continue;
    }
    const expected = chainHash(e.prevHash, { id: e.id, stream: e.stream, revision: e.revision, position: e.position, type: e.type, data: canonicalJson(e.data), metadata: canonicalJson(e.metadata) });
    if (expected !== e.hash) problems.push(`event at position ${e.position} (${e.id}): content does not match its hash (expected ${expected}, found ${e.hash})`);
    if (e.metadata.companyId !== manifest.companyId) problems.push(`event at position ${e.position} belongs to another company`);
    const at = typeof e.metadata.occurredAt === 'string' ? e.metadata.occurredAt : '';
    if (at < from || at > until) problems.push(`event at position ${e.position} is outside the period`);
    if (previous) {
      if (e.position <= previous.position) problems.push(`event at position ${e.position} is out of order (after ${previous.position})`);
      else if (e.position === previous.position + 1) {
        linksChecked += 1;
        if (e.prevHash !== previous.hash) problems.push(`event at position ${e.position}: its previous hash is not the hash of position ${previous.position}`);
      }
    }
    previous = e;
  }
  if (digest.digest('hex') !== manifest.eventsSha256) problems.push('the event lines do not match the manifest digest (lines changed, added or removed)');
  if (events.length !== manifest.count) problems.push(`the manifest says ${manifest.count} events, the file holds ${events.length}`);
  const firstEvent = events.length ? (JSON.parse(events[0]!) as BundleEvent) : null;
  if ((firstEvent?.hash ?? null) !== (manifest.first?.hash ?? null)) problems.push('the first event is not the one the manifest names');
  if ((previous?.hash ?? null) !== (manifest.last?.hash ?? null)) problems.push('the last event is not the one the manifest names');
  return { ok: problems.length === 0, problems, manifest, events: events.length, linksChecked };
}

export function checkBundleFile(file: string, expectedPublicKey?: string): BundleCheck {
  return checkBundle(readFileSync(file, 'utf8'), expectedPublicKey);
}
