import {
  addInto, addTransactionInto, emptyTally, isBlank, matchTally, receiptTally, tallyDelta, transactionFacts, transactionTally,
  splitFacts,
  type Doc, type ImportEvent, type MatchEvent, type MatchStatus, type ProcessingStatus, type ReceiptEvent, type RecordedEvent, type SplitEvent, type SplitRecord, type Tally,
  type TransactionEvent, type TransactionFacts,
} from '@paperlink/domain';
import type { Projection, ProjectionView } from '../core/projection';

/**
 * The analytics read model (ADR 0014). Counters per company and per member, whole and per day,
 * kept by deltas as events arrive, so that the dashboard, the stats and a date-range export
 * read a handful of documents, never every transaction. Every figure is counted with the
 * definitions of `@paperlink/domain` analytics (tallies); this projector only decides which
 * tally a record contributes, to which scopes, and keeps the little state a delta needs.
 *
 * Scopes: the company (what an admin sees) and each member (their own transactions and
 * receipts, and the matches both sides of which are theirs: the matches they may see).
 * Days: a transaction and its matches count on the transaction's date, a receipt on the day
 * it was uploaded (UTC).
 * Splits (TransactionSplitSaved / Removed) are folded here from their own events (the projector
 * reads no other read model): a transaction's state keeps its split, and `splitFacts` decides
 * what it changes (ADR 0014, splits).
 */
export const ANALYTICS_TALLIES = 'analytics_tallies';
export const ANALYTICS_ACTIVITY = 'analytics_activity';
/** The state deltas are taken from: one small document per transaction, receipt and live match. */
export const ANALYTICS_TRANSACTIONS = 'analytics_transactions';
export const ANALYTICS_RECEIPTS = 'analytics_receipts';
export const ANALYTICS_MATCHES = 'analytics_matches';

/** Activity entries kept per company and per member. */
export const ACTIVITY_LIMIT = 50;

export const companyScope = (companyId: string) => `c:${companyId}`;
export const memberScope = (companyId: string, userId: string) => `u:${companyId}:${userId}`;
export const dayBucket = (scope: string, day: string) => `${scope}|${day}`;

/** A scope's tally (whole: also the first and last day any of its buckets holds). */
export interface TallyDoc extends Doc, Tally {
  firstDay?: string;
  lastDay?: string;
}

export interface ActivityEntry {
  type: 'transaction' | 'receipt' | 'match';
  /** Who did it (the owner of the record when a system job did). */
  userId: string | null;
  description: string;
  timestamp: string;
  /** Entries of one import or one matching run merge into one (their count grows). */
  key?: string;
  count?: number;
}

export interface ActivityDoc extends Doc {
  items: ActivityEntry[];
}

/** Missing fields as bits (of the transaction's own fields): description 1, category 2, job number 4, cost code 8. */
interface TxState extends Doc {
  c: string;
  u: string;
  d: string;
  a: number;
  cat: string | null;
  miss: number;
  r: number;
  /** Its saved split (the amount it was saved for and the parts), when it has one. */
  sp?: SplitRecord | null;
}

interface ReceiptState extends Doc {
  c: string;
  u: string;
  day: string;
  s: ProcessingStatus;
  m: number;
  t: number | null;
  /** The total was corrected by a person: a later OCR run leaves it. */
  tc: boolean;
  name: string;
}

interface MatchState extends Doc {
  c: string;
  rid: string;
  tid: string;
  /** The member both sides belong to, or null when they belong to different members. */
  owner: string | null;
  day: string;
  s: MatchStatus;
}

const factsOf = (t: TxState): TransactionFacts => splitFacts({
  amountCents: t.a,
  category: t.cat,
  missing: { description: (t.miss & 1) !== 0, category: (t.miss & 2) !== 0, jobNumber: (t.miss & 4) !== 0, costCode: (t.miss & 8) !== 0 },
  receiptCount: t.r,
}, t.sp);
const missBits = (f: TransactionFacts): number => (f.missing.description ? 1 : 0) | (f.missing.category ? 2 : 0) | (f.missing.jobNumber ? 4 : 0) | (f.missing.costCode ? 8 : 0);
const txTally = (t: TxState | null) => (t ? transactionTally(factsOf(t)) : null);
const receiptTallyOf = (r: ReceiptState | null) => (r ? receiptTally({ processingStatus: r.s, matchCount: r.m, totalCents: r.t }) : null);
const dayOf = (iso: string) => iso.slice(0, 10);
/** The counters of a tally (every key but the categories). */
const TALLY_KEYS = Object.keys(emptyTally()).filter((k) => k !== 'categories') as Array<Exclude<keyof Tally, 'categories'>>;

/**
 * What one event changes: tally deltas per document and activity per scope, gathered first and
 * written with one update per document (a document takes one change per event).
 */
class Changes {
  /** Per tally document: the delta, and for a scope's whole tally the days its buckets got. */
  private readonly tallies = new Map<string, { delta: Tally; firstDay?: string; lastDay?: string }>();
  private readonly activity = new Map<string, ActivityEntry[]>();

  /** Adds a delta to a scope's whole tally and to its bucket of `day`. */
  add(scope: string, day: string, delta: Tally): void {
    const whole = this.entry(scope);
    addInto(whole.delta, delta);
    if (!whole.firstDay || day < whole.firstDay) whole.firstDay = day;
    if (!whole.lastDay || day > whole.lastDay) whole.lastDay = day;
    addInto(this.entry(dayBucket(scope, day)).delta, delta);
  }

  private entry(id: string): { delta: Tally; firstDay?: string; lastDay?: string } {
    let t = this.tallies.get(id);
    if (!t) this.tallies.set(id, (t = { delta: emptyTally() }));
    return t;
  }

  /** One transaction (sign -1: taken away) to the company and its member, whole and on its day, without a tally per row. */
  addTransaction(companyId: string, userId: string, day: string, facts: TransactionFacts): void {
    for (const scope of [companyScope(companyId), memberScope(companyId, userId)]) {
      const whole = this.entry(scope);
      addTransactionInto(whole.delta, facts);
      if (!whole.firstDay || day < whole.firstDay) whole.firstDay = day;
      if (!whole.lastDay || day > whole.lastDay) whole.lastDay = day;
      addTransactionInto(this.entry(dayBucket(scope, day)).delta, facts);
    }
  }

  /** A delta to the company and, when there is one, to the member's scope. */
  both(companyId: string, userId: string | null, day: string, delta: Tally): void {
    this.add(companyScope(companyId), day, delta);
    if (userId) this.add(memberScope(companyId, userId), day, delta);
  }

  log(scope: string, entry: ActivityEntry): void {
    let list = this.activity.get(scope);
    if (!list) this.activity.set(scope, (list = []));
    list.push(entry);
  }

  logBoth(companyId: string, userId: string | null, entry: ActivityEntry): void {
    this.log(companyScope(companyId), entry);
    if (userId) this.log(memberScope(companyId, userId), entry);
  }

  async write(view: ProjectionView): Promise<void> {
    await view.prefetch?.(ANALYTICS_TALLIES, [...this.tallies.keys()]);
    for (const [id, { delta, firstDay, lastDay }] of this.tallies) {
      await view.update<TallyDoc>(ANALYTICS_TALLIES, id, (doc) => {
        // A copy of the document as it is (one spread: spreading it over an empty tally took
        // 7x as long, the most costly line of a rebuild, ADR 0028), its missing counters zero.
        const next = (doc ? { ...doc, categories: [...(doc.categories ?? [])] } : emptyTally()) as TallyDoc;
        if (doc) for (const k of TALLY_KEYS) if (next[k] === undefined) (next as unknown as Record<string, number>)[k] = 0;
        addInto(next, delta);
        next._id = id;
        if (firstDay) next.firstDay = doc?.firstDay && doc.firstDay < firstDay ? doc.firstDay : firstDay;
        if (lastDay) next.lastDay = doc?.lastDay && doc.lastDay > lastDay ? doc.lastDay : lastDay;
        return next;
      });
    }
    for (const [scope, entries] of this.activity) {
      await view.update<ActivityDoc>(ANALYTICS_ACTIVITY, scope, (doc) => {
        let items = [...(doc?.items ?? [])];
        for (const e of entries) {
          const top = items[0];
          if (e.key && top?.key === e.key) items[0] = { ...e, count: (top.count ?? 0) + (e.count ?? 0), description: describeMerged(e, (top.count ?? 0) + (e.count ?? 0)) };
          else items = [e, ...items];
        }
        return { _id: scope, items: items.slice(0, ACTIVITY_LIMIT) };
      });
    }
  }
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Merged entries say how many: an import's chunks, a matching run's suggestions. */
function describeMerged(e: ActivityEntry, count: number): string {
  if (e.key?.startsWith('import:')) return `Imported ${plural(count, 'transaction')} from ${e.key.slice(e.key.indexOf('|') + 1)}`;
  return `Suggested ${plural(count, 'match', 'matches')}`;
}

const FIELD_LABELS: Record<string, string> = { description: 'description', amountCents: 'amount', salesTaxCents: 'sales tax', category: 'category', jobNumber: 'job number', costCode: 'cost code' };

export const analyticsProjection: Projection = {
  name: 'analytics',
  // 2: splits (TransactionSplitSaved / Removed).
  version: 2,
  collections: {
    [ANALYTICS_TALLIES]: [],
    [ANALYTICS_ACTIVITY]: [],
    [ANALYTICS_TRANSACTIONS]: [],
    [ANALYTICS_RECEIPTS]: [],
    [ANALYTICS_MATCHES]: [],
  },
  handles: new Set([
    'TransactionsImported', 'TransactionUpdated', 'TransactionDeleted',
    'ReceiptUploaded', 'ReceiptProcessingStarted', 'ReceiptRead', 'ReceiptReadFailed', 'ReceiptReprocessRequested', 'ReceiptCorrected', 'ReceiptDeleted',
    'MatchesSuggested', 'MatchesWithdrawn', 'MatchConfirmed', 'MatchRejected', 'MatchDeleted',
    'TransactionSplitSaved', 'TransactionSplitRemoved',
  ]),
  async apply(event: RecordedEvent, view) {
    const e = event as unknown as ImportEvent | TransactionEvent | ReceiptEvent | MatchEvent | SplitEvent;
    const at = event.metadata.occurredAt;
    const actor = event.metadata.userId ?? null;
    const changes = new Changes();
    const entry = (type: ActivityEntry['type'], description: string, userId: string | null, extra: Partial<ActivityEntry> = {}): ActivityEntry => ({ type, userId, description, timestamp: at, ...extra });

    /** A receipt's state changes: its tally delta to the company and its owner. */
    const receiptChange = async (receiptId: string, f: (r: ReceiptState) => ReceiptState | null): Promise<ReceiptState | null> => {
      const before = await view.get<ReceiptState>(ANALYTICS_RECEIPTS, receiptId);
      if (!before) return null;
      const after = f(before);
      await view.update<ReceiptState>(ANALYTICS_RECEIPTS, receiptId, () => (after ? { ...after } : null));
      changes.both(before.c, before.u, before.day, tallyDelta(receiptTallyOf(before), receiptTallyOf(after)));
      return before;
    };
    const txChange = async (transactionId: string, f: (t: TxState) => TxState | null): Promise<TxState | null> => {
      const before = await view.get<TxState>(ANALYTICS_TRANSACTIONS, transactionId);
      if (!before) return null;
      const after = f(before);
      await view.update<TxState>(ANALYTICS_TRANSACTIONS, transactionId, () => (after ? { ...after } : null));
      changes.both(before.c, before.u, before.d, tallyDelta(txTally(before), txTally(after)));
      return before;
    };
    /** A match's status changes (null: it leaves the read model). */
    const matchChange = async (matchId: string, status: MatchStatus | null): Promise<MatchState | null> => {
      const before = await view.get<MatchState>(ANALYTICS_MATCHES, matchId);
      if (!before) return null;
      await view.update<MatchState>(ANALYTICS_MATCHES, matchId, () => (status === null ? null : { ...before, s: status }));
      changes.both(before.c, before.owner, before.day, tallyDelta(matchTally(before.s), status === null ? null : matchTally(status)));
      return before;
    };

    switch (e.type) {
      case 'TransactionsImported': {
        const d = e.data;
        const perMember = new Map<string, number>();
        await view.prefetch?.(ANALYTICS_TRANSACTIONS, d.rows.map((r) => r.transactionId));
        for (const r of d.rows) {
          const facts = transactionFacts({ amountCents: r.amountCents, description: r.description, category: r.category ?? null, jobNumber: r.jobNumber ?? null, costCode: r.costCode ?? null, receiptCount: 0 });
          const state: TxState = { _id: r.transactionId, c: d.companyId, u: r.assignedTo, d: r.date, a: r.amountCents, cat: facts.category, miss: missBits(facts), r: 0 };
          await view.update<TxState>(ANALYTICS_TRANSACTIONS, r.transactionId, () => state);
          changes.addTransaction(d.companyId, r.assignedTo, r.date, facts);
          perMember.set(r.assignedTo, (perMember.get(r.assignedTo) ?? 0) + 1);
        }
        const key = `import:${d.importId}|${d.fileName}`;
        changes.log(companyScope(d.companyId), entry('transaction', describeMerged({ type: 'transaction', userId: null, description: '', timestamp: at, key }, d.rows.length), d.importedBy, { key, count: d.rows.length }));
        for (const [userId, n] of perMember) {
          changes.log(memberScope(d.companyId, userId), entry('transaction', describeMerged({ type: 'transaction', userId: null, description: '', timestamp: at, key }, n), d.importedBy, { key, count: n }));
        }
        break;
      }
      case 'TransactionUpdated': {
        const c = e.data.changes;
        const before = await txChange(e.data.transactionId, (t) => {
          const next = { ...t };
          const bit = (mask: number, value: string | undefined) => {
            if (value !== undefined) next.miss = isBlank(value) ? next.miss | mask : next.miss & ~mask;
          };
          if (c.amountCents !== undefined) next.a = c.amountCents;
          if (c.category !== undefined) next.cat = transactionFacts({ amountCents: 0, category: c.category, receiptCount: 0 }).category;
          bit(1, c.description);
          bit(2, c.category);
          bit(4, c.jobNumber);
          bit(8, c.costCode);
          return next;
        });
        if (!before) return;
        const what = Object.keys(c).map((k) => FIELD_LABELS[k] ?? k).join(', ');
        const text = c.description !== undefined ? `Edited transaction "${c.description}" (${what})` : `Edited a transaction (${what})`;
        changes.logBoth(before.c, before.u, entry('transaction', text, actor ?? before.u));
        break;
      }
      case 'TransactionDeleted': {
        const before = await txChange(e.data.transactionId, () => null);
        if (!before) return;
        changes.logBoth(before.c, before.u, entry('transaction', 'Deleted a transaction', actor ?? before.u));
        break;
      }
      case 'ReceiptUploaded': {
        const d = e.data;
        const state: ReceiptState = { _id: d.receiptId, c: d.companyId, u: d.userId, day: dayOf(at), s: 'pending', m: 0, t: null, tc: false, name: d.originalName };
        await view.update<ReceiptState>(ANALYTICS_RECEIPTS, d.receiptId, () => state);
        changes.both(d.companyId, d.userId, state.day, receiptTallyOf(state)!);
        changes.logBoth(d.companyId, d.userId, entry('receipt', `Uploaded receipt ${d.originalName}`, actor ?? d.userId));
        break;
      }
      case 'ReceiptProcessingStarted':
        await receiptChange(e.data.receiptId, (r) => ({ ...r, s: 'processing' }));
        break;
      case 'ReceiptReprocessRequested':
        await receiptChange(e.data.receiptId, (r) => ({ ...r, s: 'pending' }));
        break;
      case 'ReceiptRead': {
        const total = e.data.fields.totalCents;
        const before = await receiptChange(e.data.receiptId, (r) => ({ ...r, s: 'completed', t: r.tc ? r.t : total }));
        if (before) changes.logBoth(before.c, before.u, entry('receipt', `Read receipt ${before.name}`, before.u));
        break;
      }
      case 'ReceiptReadFailed': {
        const before = await receiptChange(e.data.receiptId, (r) => ({ ...r, s: 'failed' }));
        if (before) changes.logBoth(before.c, before.u, entry('receipt', `Could not read receipt ${before.name}`, before.u));
        break;
      }
      case 'ReceiptCorrected': {
        const c = e.data.changes;
        const before = await receiptChange(e.data.receiptId, (r) => (c.totalCents !== undefined ? { ...r, t: c.totalCents, tc: true } : r));
        if (before) changes.logBoth(before.c, before.u, entry('receipt', `Corrected receipt ${before.name}`, e.data.by));
        break;
      }
      case 'ReceiptDeleted': {
        const before = await receiptChange(e.data.receiptId, () => null);
        if (before) changes.logBoth(before.c, before.u, entry('receipt', `Deleted receipt ${before.name}`, e.data.by));
        break;
      }
      case 'MatchesSuggested': {
        const d = e.data;
        const perMember = new Map<string, number>();
        for (const s of d.suggestions) {
          const [r, t] = await Promise.all([view.get<ReceiptState>(ANALYTICS_RECEIPTS, s.receiptId), view.get<TxState>(ANALYTICS_TRANSACTIONS, s.transactionId)]);
          const owner = r && t && r.u === t.u ? r.u : null;
          const state: MatchState = { _id: s.matchId, c: d.companyId, rid: s.receiptId, tid: s.transactionId, owner, day: t?.d ?? r?.day ?? dayOf(at), s: 'pending' };
          await view.update<MatchState>(ANALYTICS_MATCHES, s.matchId, () => state);
          changes.both(d.companyId, owner, state.day, matchTally('pending'));
          if (owner) perMember.set(owner, (perMember.get(owner) ?? 0) + 1);
        }
        // A manual match is confirmed at once: its confirmation is the activity.
        if (d.origin !== 'manual' && d.suggestions.length > 0) {
          const key = `run:${event.metadata.correlationId ?? event.id}`;
          changes.log(companyScope(d.companyId), entry('match', describeMerged({ type: 'match', userId: null, description: '', timestamp: at, key }, d.suggestions.length), d.by, { key, count: d.suggestions.length }));
          for (const [userId, n] of perMember) changes.log(memberScope(d.companyId, userId), entry('match', describeMerged({ type: 'match', userId: null, description: '', timestamp: at, key }, n), d.by, { key, count: n }));
        }
        break;
      }
      case 'MatchesWithdrawn':
        for (const id of e.data.matchIds) await matchChange(id, null);
        break;
      case 'MatchConfirmed': {
        const m = await matchChange(e.data.matchId, 'confirmed');
        await txChange(e.data.transactionId, (t) => ({ ...t, r: t.r + 1 }));
        await receiptChange(e.data.receiptId, (r) => ({ ...r, m: r.m + 1 }));
        changes.logBoth(e.data.companyId, m?.owner ?? null, entry('match', `Confirmed match of receipt ${e.data.receiptName}`, e.data.by));
        break;
      }
      case 'MatchRejected': {
        const m = await matchChange(e.data.matchId, null);
        const r = await view.get<ReceiptState>(ANALYTICS_RECEIPTS, e.data.receiptId);
        changes.logBoth(e.data.companyId, m?.owner ?? null, entry('match', r ? `Rejected a match for receipt ${r.name}` : 'Rejected a match', e.data.by));
        break;
      }
      case 'MatchDeleted': {
        const m = await matchChange(e.data.matchId, null);
        if (e.data.wasConfirmed) {
          await txChange(e.data.transactionId, (t) => ({ ...t, r: Math.max(0, t.r - 1) }));
          await receiptChange(e.data.receiptId, (r) => ({ ...r, m: Math.max(0, r.m - 1) }));
        }
        changes.logBoth(e.data.companyId, m?.owner ?? null, entry('match', `Deleted the match of receipt ${e.data.receiptName}`, e.data.by));
        break;
      }
      case 'TransactionSplitSaved': {
        const d = e.data;
        const parts = d.parts.map((p) => ({ amountCents: p.amountCents, category: p.category, jobNumber: p.jobNumber, costCode: p.costCode }));
        const before = await txChange(d.transactionId, (t) => ({ ...t, sp: { totalCents: d.totalCents, parts } }));
        if (!before) return;
        changes.logBoth(before.c, before.u, entry('transaction', `Split a transaction in ${plural(parts.length, 'part')}`, d.by));
        break;
      }
      case 'TransactionSplitRemoved': {
        const before = await txChange(e.data.transactionId, ({ sp: _gone, ...t }) => t);
        if (!before?.sp) return;
        changes.logBoth(before.c, before.u, entry('transaction', 'Removed a transaction\'s split', e.data.by));
        break;
      }
      default:
        return;
    }
    await changes.write(view);
  },
};
