import type { Doc, MatchEvent, MatchOrigin, MatchStatus, ReadStore, ReceiptEvent, RecordedEvent } from '@paperlink/domain';
import type { Projection, ProjectionView } from '../core/projection';

/**
 * The match figures (GET /ai/matching/stats) kept as matches change, so that the call reads one
 * document instead of every match of the company: at 100,000 matches that read took 1.6 s, and a
 * kept answer lasted only until the company's next event (ADR 0029). Per scope (the company; a
 * member: the matches of their receipts), per status the count and the sum of confidences, the
 * confidence bands and the origins, of the matches the matches read model holds (a withdrawn or
 * deleted match leaves it, and so leaves these figures).
 */
export const MATCH_FIGURES = 'match_figures';
/** Each match the figures count: what its delta is taken from. */
export const MATCH_FIGURE_STATES = 'match_figure_states';
/** Each receipt: its owner (a member's scope) and its matches counted now. */
export const MATCH_FIGURE_RECEIPTS = 'match_figure_receipts';

type Counted = 'pending' | 'confirmed' | 'rejected';
const COUNTED: readonly Counted[] = ['pending', 'confirmed', 'rejected'];

export interface MatchFiguresDoc extends Doc {
  /** Per status: how many, and their confidences summed in thousandths (integers: no drift). */
  n: Record<Counted, number>;
  milli: Record<Counted, number>;
  /** Confidence bands over every counted match: high >= 80, medium 60-79, low < 60. */
  bands: { high: number; medium: number; low: number };
  origins: Record<string, number>;
}

interface MatchState extends Doc {
  c: string;
  /** The receipt's owner when the match was suggested, while the receipt exists. */
  u: string | null;
  rid: string;
  s: MatchStatus;
  conf: number;
  o: MatchOrigin;
}

interface ReceiptOwner extends Doc {
  u: string;
  /** Matches of the receipt counted now. */
  m: string[];
}

export const companyFiguresScope = (companyId: string) => `c:${companyId}`;
export const memberFiguresScope = (companyId: string, userId: string) => `u:${companyId}:${userId}`;

const emptyFigures = (id: string): MatchFiguresDoc => ({
  _id: id,
  n: { pending: 0, confirmed: 0, rejected: 0 },
  milli: { pending: 0, confirmed: 0, rejected: 0 },
  bands: { high: 0, medium: 0, low: 0 },
  origins: {},
});

const band = (confidence: number): keyof MatchFiguresDoc['bands'] => (confidence >= 80 ? 'high' : confidence >= 60 ? 'medium' : 'low');

/** Deltas of one event, one write per document at the end (a document takes one change per event). */
class Changes {
  private readonly figures = new Map<string, MatchFiguresDoc>();
  private readonly states = new Map<string, MatchState | null>();
  private readonly owners = new Map<string, ReceiptOwner | null>();

  constructor(private readonly view: ProjectionView) {}

  async state(id: string): Promise<MatchState | null> {
    if (this.states.has(id)) return this.states.get(id)!;
    return this.view.get<MatchState>(MATCH_FIGURE_STATES, id);
  }

  async owner(receiptId: string): Promise<ReceiptOwner | null> {
    if (this.owners.has(receiptId)) return this.owners.get(receiptId)!;
    return this.view.get<ReceiptOwner>(MATCH_FIGURE_RECEIPTS, receiptId);
  }

  setOwner(receiptId: string, owner: ReceiptOwner | null): void {
    this.owners.set(receiptId, owner);
  }

  /** A match's state changes (null: no longer counted); its figures move in each scope it counts in. */
  async set(id: string, after: MatchState | null): Promise<void> {
    const before = await this.state(id);
    this.count(before, -1);
    this.count(after, 1);
    this.states.set(id, after);
    const receiptId = (after ?? before)?.rid;
    if (!receiptId) return;
    const owner = await this.owner(receiptId);
    if (!owner) return;
    const m = owner.m.filter((x) => x !== id);
    if (after) m.push(id);
    this.owners.set(receiptId, { ...owner, m });
  }

  /** Counts a match (sign 1) or takes it away (-1) in its scopes. */
  count(m: MatchState | null, sign: 1 | -1): void {
    if (!m || !COUNTED.includes(m.s as Counted)) return;
    for (const scope of m.u ? [companyFiguresScope(m.c), memberFiguresScope(m.c, m.u)] : [companyFiguresScope(m.c)]) this.add(scope, m, sign);
  }

  private add(scope: string, m: MatchState, sign: 1 | -1): void {
    let f = this.figures.get(scope);
    if (!f) this.figures.set(scope, (f = emptyFigures(scope)));
    const s = m.s as Counted;
    f.n[s] += sign;
    f.milli[s] += sign * Math.round(m.conf * 1000);
    f.bands[band(m.conf)] += sign;
    f.origins[m.o] = (f.origins[m.o] ?? 0) + sign;
  }

  async write(): Promise<void> {
    for (const [id, delta] of this.figures) {
      await this.view.update<MatchFiguresDoc>(MATCH_FIGURES, id, (doc) => {
        const next = emptyFigures(id);
        for (const s of COUNTED) {
          next.n[s] = (doc?.n[s] ?? 0) + delta.n[s];
          next.milli[s] = (doc?.milli[s] ?? 0) + delta.milli[s];
        }
        for (const b of ['high', 'medium', 'low'] as const) next.bands[b] = (doc?.bands[b] ?? 0) + delta.bands[b];
        const origins = { ...(doc?.origins ?? {}) };
        for (const [o, k] of Object.entries(delta.origins)) {
          const v = (origins[o] ?? 0) + k;
          if (v === 0) delete origins[o];
          else origins[o] = v;
        }
        next.origins = origins;
        return COUNTED.every((s) => next.n[s] === 0) ? null : next;
      });
    }
    for (const [id, state] of this.states) await this.view.update<MatchState>(MATCH_FIGURE_STATES, id, () => state);
    for (const [id, owner] of this.owners) await this.view.update<ReceiptOwner>(MATCH_FIGURE_RECEIPTS, id, () => owner);
  }
}

export const matchFiguresProjection: Projection = {
  name: 'match-figures',
  version: 1,
  collections: { [MATCH_FIGURES]: [], [MATCH_FIGURE_STATES]: [], [MATCH_FIGURE_RECEIPTS]: [] },
  handles: new Set(['ReceiptUploaded', 'ReceiptDeleted', 'MatchesSuggested', 'MatchesWithdrawn', 'MatchConfirmed', 'MatchRejected', 'MatchDeleted']),
  async apply(event: RecordedEvent, view) {
    const e = event as unknown as MatchEvent | ReceiptEvent;
    const changes = new Changes(view);
    switch (e.type) {
      case 'ReceiptUploaded':
        changes.setOwner(e.data.receiptId, { _id: e.data.receiptId, u: e.data.userId, m: [] });
        break;
      case 'ReceiptDeleted': {
        // Its matches no longer count as the member's (a member's figures are of their receipts).
        const owner = await changes.owner(e.data.receiptId);
        if (!owner) return;
        for (const id of owner.m) {
          const m = await changes.state(id);
          if (m) await changes.set(id, { ...m, u: null });
        }
        changes.setOwner(e.data.receiptId, null);
        break;
      }
      case 'MatchesSuggested':
        for (const s of e.data.suggestions) {
          const owner = await changes.owner(s.receiptId);
          await changes.set(s.matchId, { _id: s.matchId, c: e.data.companyId, u: owner?.u ?? null, rid: s.receiptId, s: 'pending', conf: s.confidence, o: e.data.origin });
        }
        break;
      case 'MatchesWithdrawn':
        for (const id of e.data.matchIds) if (await changes.state(id)) await changes.set(id, null);
        break;
      case 'MatchConfirmed':
      case 'MatchRejected': {
        const m = await changes.state(e.data.matchId);
        if (!m) return;
        await changes.set(e.data.matchId, { ...m, s: e.type === 'MatchConfirmed' ? 'confirmed' : 'rejected' });
        break;
      }
      case 'MatchDeleted':
        if (!(await changes.state(e.data.matchId))) return;
        await changes.set(e.data.matchId, null);
        break;
      default:
        return;
    }
    await changes.write();
  },
};

/** GET /ai/matching/stats: the figures of a scope (the company, or a member's receipts), from one document. */
export async function matchFiguresOf(store: ReadStore, companyId: string, userId?: string) {
  const doc = ((await store.collection<MatchFiguresDoc>(MATCH_FIGURES).findOne({ _id: userId ? memberFiguresScope(companyId, userId) : companyFiguresScope(companyId) })) ?? emptyFigures('')) as MatchFiguresDoc;
  const n = (s: Counted) => doc.n[s];
  const total = COUNTED.reduce((sum, s) => sum + n(s), 0);
  const avg = (count: number, milli: number) => (count === 0 ? null : Math.round((milli / 1000 / count) * 10) / 10);
  const decided = n('confirmed') + n('rejected');
  return {
    total_matches: total,
    confirmed_matches: n('confirmed'),
    rejected_matches: n('rejected'),
    pending_matches: n('pending'),
    by_origin: { ...doc.origins },
    acceptance_rate: decided === 0 ? null : Math.round((n('confirmed') / decided) * 1000) / 10,
    average_confidence: {
      all: avg(total, COUNTED.reduce((sum, s) => sum + doc.milli[s], 0)),
      confirmed: avg(n('confirmed'), doc.milli.confirmed),
      rejected: avg(n('rejected'), doc.milli.rejected),
      pending: avg(n('pending'), doc.milli.pending),
    },
    confidence_bands: { ...doc.bands },
  };
}
