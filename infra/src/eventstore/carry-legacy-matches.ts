import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import {
  fold,
  foldSide,
  matchingCarriedStream,
  matchingDecider,
  matchingStream,
  receiptMatchesStream,
  transactionMatchesStream,
  type EventStore,
  type MatchesNotedEvent,
  type MatchEvent,
  type NewEvent,
  type NotedMatch,
  type SideEvent,
  type StreamAppend,
} from '@paperlink/domain';

/**
 * Upgrade step for data folders written before match streams (ADR 0021): every match of a company
 * lived in one stream, `matching-<company>`. Matches now live in the streams of their sides.
 * For each company whose old stream has not been carried yet, the old stream is folded once
 * with the old decider and the decided state of each receipt and transaction (pending,
 * confirmed with the receipt's name, rejected) is written into that side's stream as one
 * `MatchesNoted` (reason `carried`), then `matchingCarried-<company>` marks the company done.
 * Withdrawn and deleted matches are not carried: a decision on them is a 404 either way.
 *
 * Resumable and idempotent: a side whose stream already holds its carried note is skipped,
 * and a carried note's event id is derived from the company and the stream, so appending it
 * twice stores it once (a stop or a crash before the mark: the next start goes on). The old
 * stream is never written again; it stays for auditors. It runs in the background: until a
 * company's mark is there, its match decisions wait (command-api/src/matches/book.ts).
 * Projections ignore `MatchesNoted`: the read models do not change.
 */
export async function carryLegacyMatches(events: EventStore, companyIds: Iterable<string>, stop: { stopped: boolean } = { stopped: false }, now = new Date()): Promise<{ companies: number; sides: number }> {
  let companies = 0;
  let sides = 0;
  for (const companyId of companyIds) {
    if (stop.stopped) break;
    const [mark] = await events.readStream(matchingCarriedStream(companyId), { maxCount: 1 });
    if (mark) continue;
    const legacy = (await events.readStream(matchingStream(companyId))) as unknown as Array<MatchEvent & { revision: number }>;
    const state = fold(matchingDecider, legacy);
    const names = new Map<string, string>();
    for (const e of legacy) if (e.type === 'MatchConfirmed') names.set(e.data.matchId, e.data.receiptName);
    const bySide = new Map<string, NotedMatch[]>();
    for (const m of state.matches.values()) {
      if (m.status !== 'pending' && m.status !== 'confirmed' && m.status !== 'rejected') continue;
      const noted: NotedMatch = { matchId: m.matchId, receiptId: m.receiptId, transactionId: m.transactionId, confidence: m.confidence, status: m.status, ...(m.status === 'confirmed' ? { receiptName: names.get(m.matchId) ?? '' } : {}) };
      for (const stream of [receiptMatchesStream(m.receiptId), transactionMatchesStream(m.transactionId)]) bySide.set(stream, [...(bySide.get(stream) ?? []), noted]);
    }
    const metadata = { companyId, requestId: `upgrade:matching:${companyId}`, correlationId: `upgrade:matching:${companyId}`, occurredAt: now.toISOString() };
    const appends: StreamAppend[] = [];
    for (const [stream, matches] of bySide) {
      const recorded = await events.readStream(stream);
      const sideEvents = recorded as unknown as SideEvent[];
      if (sideEvents.some((e) => e.type === 'MatchesNoted' && e.data.reason === 'carried')) continue;
      // A side the new code already wrote to keeps what it wrote; the old stream adds only what it does not know.
      const known = foldSide(sideEvents).matches;
      const carried = matches.filter((m) => !known.has(m.matchId));
      if (carried.length === 0) continue;
      const note: MatchesNotedEvent = { type: 'MatchesNoted', data: { companyId, reason: 'carried', matches: carried } };
      const event: NewEvent = { id: eventId(companyId, stream), type: note.type, data: note.data, metadata };
      appends.push({ streamId: stream, expectedRevision: recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1]!.revision, events: [event] });
      if (appends.length >= 500) {
        if (stop.stopped) return { companies, sides };
        sides += appends.length;
        await events.appendMany(appends.splice(0));
      }
    }
    if (stop.stopped) break;
    if (appends.length > 0) {
      sides += appends.length;
      await events.appendMany(appends);
    }
    const done: MatchesNotedEvent = { type: 'MatchesNoted', data: { companyId, reason: 'carry-complete', matches: [] } };
    await events.appendToStream(matchingCarriedStream(companyId), [{ id: eventId(companyId, matchingCarriedStream(companyId)), type: done.type, data: done.data, metadata }], 'no_stream');
    companies++;
  }
  return { companies, sides };
}

/** A UUID-shaped id derived from the company and the stream: the same carry appended twice is stored once. */
function eventId(companyId: string, stream: string): string {
  const h = createHash('sha256').update(`carry-legacy-matches|${companyId}|${stream}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Companies with an old matching stream, from the SQLite event store's stream table (before the adapters open it). */
export function legacyMatchingCompanies(file: string): string[] {
  if (!existsSync(file)) return [];
  const db = new Database(file, { readonly: true });
  try {
    const hasStreams = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'streams'").get();
    if (!hasStreams) return [];
    const rows = db.prepare<[], { stream_id: string }>("SELECT stream_id FROM streams WHERE stream_id >= 'matching-' AND stream_id < 'matching.'").all();
    return rows.map((r) => r.stream_id.slice('matching-'.length));
  } finally {
    db.close();
  }
}
