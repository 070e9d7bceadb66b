/**
 * The match figures kept by their projection (projections/src/matches/figures.ts) answer GET
 * /ai/matching/stats as reading every match did (the computation kept here as it was: every match
 * of the company from the matches read model, a member's narrowed to their receipts), through
 * random histories of uploads, suggestions of every origin, withdrawals, confirmations,
 * rejections, deletions and receipts deleted, in two companies; the call reads one document.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '@paperlink/domain';
import {
  MATCH_FIGURES, matchesProjection, matchFiguresOf, matchFiguresProjection, MATCHES, RECEIPTS, receiptsProjection, UnitOfWork, type MatchDoc, type ReceiptDoc,
} from '@paperlink/projections';
import { EmbeddedReadStore } from '../../infra/src/readstore/embedded';

function rng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

/** GET /ai/matching/stats as it was computed before the projection. */
async function fromEveryMatch(store: EmbeddedReadStore, companyId: string, userId?: string) {
  let matches = await store.collection<MatchDoc>(MATCHES).find({ companyId });
  if (userId) {
    const ids = new Set((await store.collection<ReceiptDoc>(RECEIPTS).find({ companyId, userId })).map((r) => r._id));
    matches = matches.filter((m) => ids.has(m.receiptId));
  }
  const by = (status: string) => matches.filter((m) => m.status === status);
  const avg = (ms: MatchDoc[]) => (ms.length === 0 ? null : Math.round((ms.reduce((s, m) => s + m.confidence, 0) / ms.length) * 10) / 10);
  const confirmed = by('confirmed');
  const rejected = by('rejected');
  const pending = by('pending');
  const origins: Record<string, number> = {};
  for (const m of matches) origins[m.origin] = (origins[m.origin] ?? 0) + 1;
  const decided = confirmed.length + rejected.length;
  return {
    total_matches: matches.length,
    confirmed_matches: confirmed.length,
    rejected_matches: rejected.length,
    pending_matches: pending.length,
    by_origin: origins,
    acceptance_rate: decided === 0 ? null : Math.round((confirmed.length / decided) * 1000) / 10,
    average_confidence: { all: avg(matches), confirmed: avg(confirmed), rejected: avg(rejected), pending: avg(pending) },
    confidence_bands: {
      high: matches.filter((m) => m.confidence >= 80).length,
      medium: matches.filter((m) => m.confidence >= 60 && m.confidence < 80).length,
      low: matches.filter((m) => m.confidence < 60).length,
    },
  };
}

const USERS = ['u1', 'u2', 'u3'];
const COMPANIES = ['c1', 'c2'];

function history(seed: number, steps: number): RecordedEvent[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const events: RecordedEvent[] = [];
  const receipts = new Map<string, string>(); // receipt -> company (live)
  const gone: Array<[string, string]> = []; // deleted receipts (a late event may still name one)
  const matches: Array<{ matchId: string; companyId: string; receiptId: string }> = [];
  let position = 0;
  let n = 0;
  const push = (type: string, data: Record<string, unknown>) =>
    events.push({ id: `e${position}`, type, data, metadata: { occurredAt: new Date(Date.UTC(2024, 0, 1) + position * 1000).toISOString() }, streamId: `s-${type}`, revision: 0, position: ++position } as unknown as RecordedEvent);
  for (let step = 0; step < steps; step++) {
    const x = r();
    if (x < 0.2 || receipts.size === 0) {
      const id = `r${++n}`;
      const companyId = pick(COMPANIES);
      receipts.set(id, companyId);
      push('ReceiptUploaded', { receiptId: id, companyId, userId: pick(USERS), originalName: `${id}.jpg`, contentType: 'image/jpeg', kind: 'jpeg', size: 10, sha256: id, duplicateOf: null });
    } else if (x < 0.45) {
      // One run's suggestions in one company: live receipts, now and then one deleted meanwhile.
      const companyId = pick(COMPANIES);
      const own = [...receipts].filter(([, c]) => c === companyId).map(([id]) => id);
      const late = gone.filter(([, c]) => c === companyId).map(([id]) => id);
      const suggestions = Array.from({ length: 1 + Math.floor(r() * 4) }, () => {
        const receiptId = r() < 0.1 && late.length > 0 ? pick(late) : own.length > 0 ? pick(own) : `nowhere${n}`;
        const matchId = `m${++n}`;
        matches.push({ matchId, companyId, receiptId });
        return { matchId, receiptId, transactionId: `t${n}`, confidence: Math.floor(r() * 100), evidence: {} };
      });
      push('MatchesSuggested', { companyId, origin: pick(['auto', 'auto', 'find', 'manual'] as const), threshold: 70, by: 'system', suggestions });
    } else if (x < 0.9 && matches.length > 0) {
      // A decision on any match, live or not (the projections ignore one they no longer hold).
      const m = pick(matches);
      const base = { companyId: m.companyId, matchId: m.matchId, receiptId: m.receiptId, transactionId: `t-${m.matchId}`, by: pick(USERS) };
      const y = r();
      if (y < 0.3) push('MatchConfirmed', { ...base, receiptName: `${m.receiptId}.jpg` });
      else if (y < 0.55) push('MatchRejected', base);
      else if (y < 0.8) push('MatchesWithdrawn', { companyId: m.companyId, matchIds: [m.matchId, ...(r() < 0.3 ? [pick(matches).matchId] : [])], reason: 'newer run' });
      else push('MatchDeleted', { ...base, receiptName: `${m.receiptId}.jpg`, wasConfirmed: r() < 0.5 });
    } else {
      const [id, companyId] = pick([...receipts]);
      receipts.delete(id);
      gone.push([id, companyId]);
      push('ReceiptDeleted', { receiptId: id, companyId, by: 'u1' });
    }
  }
  return events;
}

async function project(events: RecordedEvent[]): Promise<EmbeddedReadStore> {
  const store = new EmbeddedReadStore();
  for (const p of [receiptsProjection, matchesProjection, matchFiguresProjection]) {
    const unit = new UnitOfWork(store);
    for (const e of events) if (p.handles.has(e.type)) await p.apply(e, unit.viewFor(e));
    await store.commit(unit.writes, []);
  }
  return store;
}

describe('the match figures', () => {
  it('kept by their projection equal those read from every match, for the company and each member, through random histories', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const store = await project(history(seed, 700));
      let counted = 0;
      for (const companyId of COMPANIES) {
        const whole = await fromEveryMatch(store, companyId);
        counted += whole.total_matches;
        expect(await matchFiguresOf(store, companyId), `seed ${seed}, ${companyId}`).toEqual(whole);
        for (const userId of USERS) expect(await matchFiguresOf(store, companyId, userId), `seed ${seed}, ${companyId}, ${userId}`).toEqual(await fromEveryMatch(store, companyId, userId));
      }
      // The histories leave matches of every status (the comparison is not of empty figures).
      expect(counted, `seed ${seed}`).toBeGreaterThan(20);
    }
    // An unknown company or member: zeros, no averages.
    const store = await project([]);
    expect(await matchFiguresOf(store, 'nobody')).toEqual(await fromEveryMatch(store, 'nobody'));
  });

  it('is answered from one document, whatever the number of matches', async () => {
    const store = await project(history(9, 3000));
    const read: string[] = [];
    const spy = new Proxy(store, {
      get(target, key, receiver) {
        if (key === 'collection') return (name: string) => (read.push(name), target.collection(name));
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    await matchFiguresOf(spy, 'c1', 'u2');
    expect(read).toEqual([MATCH_FIGURES]);
    // A document per company and member that has matches, and none with nothing counted.
    const docs = await store.collection<{ _id: string; n: Record<string, number> }>(MATCH_FIGURES).find({});
    expect(docs.length).toBeLessThanOrEqual(COMPANIES.length * (1 + USERS.length));
    for (const d of docs) expect(Object.values(d.n).reduce((a, b) => a + b, 0), d._id).toBeGreaterThan(0);
  });
});
