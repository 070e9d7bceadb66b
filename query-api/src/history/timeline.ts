import {
  fromCents,
  matchingStream,
  NotFoundError,
  receiptMatchesStream,
  transactionMatchesStream,
  type Doc,
  type EventStore,
  type ReadStore,
  type RecordedEvent,
  type RequestContext,
  type Role,
} from '@paperlink/domain';
import { companyStream, importStream, receiptStream, transactionStream, userStream } from '@paperlink/domain';
import {
  COMPANIES,
  companiesProjection,
  getTransaction,
  MATCHES,
  matchesProjection,
  MEMBERSHIPS,
  membershipId,
  RECEIPTS,
  receiptsProjection,
  TRANSACTIONS,
  transactionsProjection,
  USERS,
  usersProjection,
  type CompanyDoc,
  type MatchDoc,
  type MembershipDoc,
  type Projection,
  type ProjectionView,
  type ReceiptDoc,
  type TransactionDoc,
  type UserDoc,
} from '@paperlink/projections';

/**
 * The history of one record (ADR 0017): its events, oldest first, each with when, who
 * (name and role at that moment), what changed and from where. What changed is computed, not
 * stored: the record's events are applied one by one by the live projector into a private
 * in-memory view, and successive states of the record are compared field by field.
 *
 * The events come from the record's own streams (transaction-, split-, receipt-, company-,
 * user-, and the import stream's one event that holds a transaction's row). Matches live in
 * the streams of their sides (ADR 0021); those decided before ADR 0021 in the company's old
 * stream `matching-<company>`, which a history still reads whole (one pass: about 1 ms per
 * 5,000 events). A match's own history finds its receipt through the read model.
 */
export const HISTORY_KINDS = ['transaction', 'receipt', 'match', 'company', 'member'] as const;
export type HistoryKind = (typeof HISTORY_KINDS)[number];

export interface HistoryChange {
  field: string;
  before: unknown;
  after: unknown;
}

export interface HistoryActor {
  userId: string;
  /** Name and role at the moment of the event (null when unknown, e.g. not a member then). */
  name: string | null;
  role: Role | null;
}

export interface HistoryEntry {
  position: number;
  eventId: string;
  type: string;
  at: string;
  /** null: the system (OCR, scheduled jobs), named in `system`. */
  who: HistoryActor | null;
  system: string | null;
  summary: string;
  changes: HistoryChange[];
  /** Where the change came from: the statement file and row, the upload, the match run and its evidence, the OCR run. */
  source: Record<string, unknown> | null;
  requestId: string | null;
  correlationId: string | null;
}

export interface History {
  kind: HistoryKind;
  id: string;
  entries: HistoryEntry[];
  /** The record's fields after the last event (null: deleted, withdrawn or removed). */
  current: Record<string, unknown> | null;
}

/** A projector's private view: a few documents in maps. */
class MemoryView implements ProjectionView {
  private readonly docs = new Map<string, Map<string, Doc>>();
  async get<T extends Doc>(collection: string, id: string): Promise<T | null> {
    return (this.docs.get(collection)?.get(id) as T | undefined) ?? null;
  }
  peek<T extends Doc>(collection: string, id: string): T | null {
    return (this.docs.get(collection)?.get(id) as T | undefined) ?? null;
  }
  async update<T extends Doc>(collection: string, id: string, change: (doc: T | null) => T | null): Promise<void> {
    let m = this.docs.get(collection);
    if (!m) this.docs.set(collection, (m = new Map()));
    const next = change((m.get(id) as T | undefined) ?? null);
    if (next === null) m.delete(id);
    else m.set(id, next);
  }
}

type Fields = Record<string, unknown> | null;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const blankToNull = (v: unknown) => (v === undefined || v === '' ? null : v);

/** Field by field, in the order of the fields; a record that appears or goes has every field change. */
export function diffFields(before: Fields, after: Fields): HistoryChange[] {
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  const out: HistoryChange[] = [];
  for (const field of keys) {
    // An empty text and no value read the same ("—"): not a change.
    const b = before ? blankToNull(before[field]) : null;
    const a = after ? blankToNull(after[field]) : null;
    if (!same(a, b)) out.push({ field, before: b, after: a });
  }
  return out;
}

const money = (cents: number | null | undefined) => (cents === null || cents === undefined ? null : fromCents(cents));

export function transactionFields(d: TransactionDoc | null): Fields {
  if (!d) return null;
  return {
    date: d.transaction_date,
    description: d.description,
    amount: money(d.amountCents),
    sales_tax: money(d.salesTaxCents),
    currency: d.currency,
    category: d.category_name,
    job_number: d.job_number_name,
    cost_code: d.cost_code_name,
    owner: d.userId,
    receipts: d.receipts.join(', '),
    split: d.split ? d.split.parts.map((p) => `${fromCents(p.amountCents)} ${p.category} / ${p.jobNumber} / ${p.costCode}`).join('; ') : null,
  };
}

export function receiptFields(d: ReceiptDoc | null): Fields {
  if (!d) return null;
  return {
    file: d.original_filename,
    owner: d.userId,
    processing_status: d.processing_status,
    failure_reason: d.failure_reason,
    merchant: d.extracted_merchant,
    date: d.extracted_date,
    amount: money(d.extractedCents),
    tax: money(d.taxCents),
    description: d.extracted_description,
    ocr_confidence: d.ocr_confidence,
    corrected: d.corrected.join(', '),
    matches: d.match_count,
  };
}

export function matchFields(d: MatchDoc | null): Fields {
  if (!d) return null;
  return { status: d.status, confidence: d.confidence, origin: d.origin, receipt_id: d.receiptId, transaction_id: d.transactionId, decided_by: d.decided_by };
}

function companyFields(d: CompanyDoc | null): Fields {
  if (!d) return null;
  return { name: d.name, domain: d.domain, plan: d.planType, members: d.userCount };
}

function memberFields(m: MembershipDoc | null, u: UserDoc | null): Fields {
  if (!m && !u) return null;
  return { member: m !== null, role: m?.role ?? null, first_name: u?.firstName ?? null, last_name: u?.lastName ?? null, email: u?.email ?? null };
}

type Data = Record<string, unknown>;
const dataOf = (e: RecordedEvent) => e.data as Data;

/** A match event narrowed to one record: a run's suggestions cut to those naming it. */
function narrowMatchEvent(e: RecordedEvent, keep: (s: { matchId: string; receiptId: string; transactionId: string }) => boolean): RecordedEvent | null {
  const d = dataOf(e);
  switch (e.type) {
    case 'MatchesSuggested': {
      const suggestions = (d.suggestions as Array<{ matchId: string; receiptId: string; transactionId: string }>).filter(keep);
      return suggestions.length ? { ...e, data: { ...d, suggestions } } : null;
    }
    case 'MatchesWithdrawn':
      return null; // withdrawals name match ids only: kept for a match's own history (below)
    default:
      return keep(d as { matchId: string; receiptId: string; transactionId: string }) ? e : null;
  }
}

/** Who acted: the request's user, else the user the event names (`by`, `importedBy`). */
function actorOf(e: RecordedEvent): string | null {
  if (e.metadata.userId) return e.metadata.userId;
  const d = dataOf(e);
  for (const k of ['by', 'importedBy', 'changedBy', 'removedBy', 'invitedBy', 'createdBy'] as const) if (typeof d[k] === 'string' && d[k]) return d[k] as string;
  return null;
}

/** Names and roles at a moment, from the company's and the people's own streams. */
class People {
  private companyEvents?: RecordedEvent[];
  private readonly userEvents = new Map<string, Promise<RecordedEvent[]>>();
  constructor(
    private readonly events: EventStore,
    private readonly companyId: string,
  ) {}

  private async company(): Promise<RecordedEvent[]> {
    this.companyEvents ??= await this.events.readStream(companyStream(this.companyId));
    return this.companyEvents;
  }

  async at(userId: string, position: number): Promise<HistoryActor> {
    let role: Role | null = null;
    for (const e of await this.company()) {
      if (e.position > position) break;
      const d = dataOf(e);
      if (d.userId !== userId) continue;
      if (e.type === 'MemberJoined' || e.type === 'MemberRoleChanged') role = d.role as Role;
      if (e.type === 'MemberRemoved') role = null;
    }
    if (!this.userEvents.has(userId)) this.userEvents.set(userId, this.events.readStream(userStream(userId)));
    let name: string | null = null;
    for (const e of await this.userEvents.get(userId)!) {
      if (e.position > position) break;
      if (e.type === 'UserRegistered' || e.type === 'UserProfileUpdated') name = `${String(dataOf(e).firstName)} ${String(dataOf(e).lastName)}`.trim();
    }
    return { userId, name, role };
  }
}

function summarise(kind: HistoryKind, e: RecordedEvent, changes: HistoryChange[]): string {
  const d = dataOf(e);
  switch (e.type) {
    case 'TransactionsImported':
      return `Imported from ${String(d.fileName)}`;
    case 'TransactionUpdated':
      return `Edited: ${changes.map((c) => c.field).join(', ') || 'no visible change'}`;
    case 'TransactionDeleted':
      return 'Deleted';
    case 'TransactionSplitSaved':
      return 'Split saved';
    case 'TransactionSplitRemoved':
      return 'Split removed';
    case 'ReceiptUploaded':
      return `Uploaded ${String(d.originalName)}`;
    case 'ReceiptProcessingStarted':
      return 'Reading started';
    case 'ReceiptRead':
      return `Read by ${d.source === 'pdf-text' ? 'the PDF text layer' : 'OCR'}`;
    case 'ReceiptReadFailed':
      return `Reading failed: ${String(d.reason)}`;
    case 'ReceiptReprocessRequested':
      return 'Reprocessing requested';
    case 'ReceiptCorrected':
      return `Corrected: ${Object.keys(d.changes as object).join(', ')}`;
    case 'ReceiptDeleted':
      return 'Deleted';
    case 'MatchesSuggested': {
      const s = (d.suggestions as Array<{ confidence: number }>)[0];
      const how = d.origin === 'manual' ? 'Matched by hand' : d.origin === 'find' ? 'Suggested by a match search' : 'Suggested by auto-match';
      return s ? `${how} (confidence ${s.confidence})` : how;
    }
    case 'MatchesWithdrawn':
      return `Suggestion withdrawn: ${String(d.reason)}`;
    case 'MatchConfirmed':
      return kind === 'match' ? 'Confirmed' : `Match confirmed with ${String(d.receiptName)}`;
    case 'MatchRejected':
      return 'Match rejected';
    case 'MatchDeleted':
      return kind === 'match' ? 'Deleted' : `Match with ${String(d.receiptName)} deleted`;
    case 'CompanyRegistered':
      return `Company registered as ${String(d.name)}`;
    case 'CompanyUpdated':
      return 'Company details changed';
    case 'MemberJoined':
      return `Joined as ${String(d.role)}`;
    case 'MemberRoleChanged':
      return `Role changed from ${String(d.previousRole)} to ${String(d.role)}`;
    case 'MemberRemoved':
      return 'Removed from the company';
    case 'UserRegistered':
      return 'Account registered';
    case 'UserProfileUpdated':
      return 'Name changed';
    default:
      return e.type;
  }
}

/** From where: the statement row, the upload, the match run and its evidence, the OCR run. */
function sourceOf(e: RecordedEvent): Record<string, unknown> | null {
  const d = dataOf(e);
  switch (e.type) {
    case 'TransactionsImported': {
      const row = (d.rows as Array<Data>)[0];
      return { kind: 'statement', fileName: d.fileName, fileHash: d.fileHash, importId: d.importId, row: row?.row ?? null, providedName: row?.providedName ?? null, assignment: row?.assignment ?? null };
    }
    case 'ReceiptUploaded':
      return { kind: 'upload', fileName: d.originalName, contentType: d.contentType, size: d.size, sha256: d.sha256, via: d.via, duplicateOf: d.duplicateOf };
    case 'ReceiptRead':
      return { kind: 'ocr', reader: d.source, run: d.run, ocrConfidence: d.ocrConfidence, ms: d.ms };
    case 'ReceiptReadFailed':
      return { kind: 'ocr', run: d.run, attempts: d.attempts };
    case 'MatchesSuggested': {
      const s = (d.suggestions as Array<Data>)[0];
      // The run is the request (or job) that appended it: its id is the request id.
      return { kind: d.origin === 'manual' ? 'manual-match' : 'match-run', origin: d.origin, threshold: d.threshold, run: e.metadata.correlationId ?? e.metadata.requestId ?? null, matchId: s?.matchId ?? null, confidence: s?.confidence ?? null, evidence: s?.evidence ?? null };
    }
    case 'TransactionSplitSaved':
      return { kind: 'split', mode: d.mode, source: d.source, receiptId: d.receiptId ?? null };
    default:
      return null;
  }
}

interface Replayed {
  event: RecordedEvent;
  changes: HistoryChange[];
}

/** Applies the events one by one with the projectors and diffs the record's fields after each. */
async function replay(events: RecordedEvent[], projections: Projection[], fields: (view: MemoryView) => Fields): Promise<{ steps: Replayed[]; current: Fields }> {
  const view = new MemoryView();
  let before = fields(view);
  const steps: Replayed[] = [];
  for (const event of [...events].sort((a, b) => a.position - b.position)) {
    for (const p of projections) if (p.handles.has(event.type)) await p.apply(event, view);
    const after = fields(view);
    steps.push({ event, changes: diffFields(before, after) });
    before = after;
  }
  return { steps, current: before };
}

export interface HistoryDeps {
  events: EventStore;
  /** The live read models: where a transaction's import is found, and who may see what. */
  store: ReadStore;
}

const notFound = (kind: HistoryKind) => new NotFoundError(`${kind[0]!.toUpperCase()}${kind.slice(1)} not found`, `${kind}_not_found`);
const isAdmin = (ctx: RequestContext) => ctx.role === 'admin';

/** A receipt's first event says whose it is; null when it is not the company's. */
async function receiptOwner(events: EventStore, companyId: string, receiptId: string): Promise<{ events: RecordedEvent[]; ownerId: string } | null> {
  const stream = await events.readStream(receiptStream(receiptId));
  const first = stream[0];
  if (!first || first.type !== 'ReceiptUploaded' || dataOf(first).companyId !== companyId) return null;
  return { events: stream, ownerId: String(dataOf(first).userId) };
}

/**
 * A plain member sees a match in the history of her transaction or receipt only when its other
 * side is hers too, as the match lists show them: another member's receipt file name (or line)
 * is not hers to read. `other` is the side to check; admins see every match.
 */
async function visibleMatchEvents(deps: HistoryDeps, ctx: RequestContext, matchEvents: RecordedEvent[], other: 'receipt' | 'transaction'): Promise<RecordedEvent[]> {
  if (isAdmin(ctx)) return matchEvents;
  const mine = new Map<string, boolean>();
  const isMine = async (id: string): Promise<boolean> => {
    let known = mine.get(id);
    if (known === undefined) {
      const doc = other === 'receipt' ? await deps.store.collection<ReceiptDoc>(RECEIPTS).findOne({ _id: id, companyId: ctx.companyId! }) : await getTransaction(deps.store, ctx.companyId!, id);
      mine.set(id, (known = doc?.userId === ctx.userId));
    }
    return known;
  };
  const sideOf = (x: { receiptId: string; transactionId: string }) => (other === 'receipt' ? x.receiptId : x.transactionId);
  const out: RecordedEvent[] = [];
  for (const e of matchEvents) {
    const d = dataOf(e);
    if (e.type === 'MatchesSuggested') {
      const suggestions: Array<{ receiptId: string; transactionId: string }> = [];
      for (const x of d.suggestions as Array<{ receiptId: string; transactionId: string }>) if (await isMine(sideOf(x))) suggestions.push(x);
      if (suggestions.length > 0) out.push({ ...e, data: { ...d, suggestions } });
    } else if (typeof d.receiptId === 'string' && typeof d.transactionId === 'string') {
      if (await isMine(sideOf(d as { receiptId: string; transactionId: string }))) out.push(e);
    } else {
      out.push(e);
    }
  }
  return out;
}

async function recordEvents(deps: HistoryDeps, ctx: RequestContext, kind: HistoryKind, id: string): Promise<{ events: RecordedEvent[]; projections: Projection[]; fields: (v: MemoryView) => Fields }> {
  const companyId = ctx.companyId!;
  const { events } = deps;
  // Matches decided before ADR 0021 are in the company's old stream (frozen since the upgrade);
  // later ones in the streams of their sides: a receipt's public events, a transaction's notes
  // naming the receipts whose streams hold its matches' events (ADR 0021).
  const legacy = async () => events.readStream(matchingStream(companyId));
  const ofReceipt = async (receiptId: string) => (await events.readStream(receiptMatchesStream(receiptId))).filter((e) => e.type !== 'MatchesNoted');
  const ofTransaction = async (transactionId: string) => {
    const notes = await events.readStream(transactionMatchesStream(transactionId));
    const receiptIds = new Set(notes.flatMap((e) => (dataOf(e).matches as Array<{ receiptId: string; transactionId: string }>).filter((m) => m.transactionId === transactionId).map((m) => m.receiptId)));
    return (await Promise.all([...receiptIds].map(ofReceipt))).flat();
  };
  switch (kind) {
    case 'transaction': {
      // Same scope as GET /transactions/:id: the live record, an admin's or the owner's.
      const doc = await getTransaction(deps.store, companyId, id);
      if (!doc || (!isAdmin(ctx) && doc.userId !== ctx.userId)) throw notFound(kind);
      const [origin] = await events.readStream(importStream(doc.importId), { fromRevision: doc.importRevision, maxCount: 1 });
      const row = origin?.type === 'TransactionsImported' ? (dataOf(origin).rows as Array<{ transactionId: string }>).find((r) => r.transactionId === id) : undefined;
      const own = [
        ...(origin && row ? [{ ...origin, data: { ...dataOf(origin), rows: [row] } }] : []),
        ...(await events.readStream(transactionStream(id))),
        ...(await events.readStream(`split-${id}`)),
        ...(await visibleMatchEvents(deps, ctx, [...(await legacy()), ...(await ofTransaction(id))].flatMap((e) => narrowMatchEvent(e, (s) => s.transactionId === id) ?? []), 'receipt')),
      ];
      return { events: own, projections: [transactionsProjection], fields: (v) => transactionFields(v.peek<TransactionDoc>(TRANSACTIONS, id)) };
    }
    case 'receipt': {
      const found = await receiptOwner(events, companyId, id);
      if (!found || (!isAdmin(ctx) && found.ownerId !== ctx.userId)) throw notFound(kind);
      const own = [...found.events, ...(await visibleMatchEvents(deps, ctx, [...(await legacy()), ...(await ofReceipt(id))].flatMap((e) => narrowMatchEvent(e, (s) => s.receiptId === id) ?? []), 'transaction'))];
      return { events: own, projections: [receiptsProjection], fields: (v) => receiptFields(v.peek<ReceiptDoc>(RECEIPTS, id)) };
    }
    case 'match': {
      const doc = await deps.store.collection<MatchDoc>(MATCHES).findOne({ _id: id, companyId });
      const stream = [...(await legacy()), ...(doc ? await ofReceipt(doc.receiptId) : [])];
      const own: RecordedEvent[] = [];
      let pair: { receiptId: string; transactionId: string } | undefined;
      for (const e of stream) {
        if (e.type === 'MatchesWithdrawn') {
          if ((dataOf(e).matchIds as string[]).includes(id)) own.push({ ...e, data: { ...dataOf(e), matchIds: [id] } });
          continue;
        }
        const narrowed = narrowMatchEvent(e, (s) => s.matchId === id);
        if (!narrowed) continue;
        own.push(narrowed);
        pair ??= e.type === 'MatchesSuggested' ? (dataOf(narrowed).suggestions as Array<{ receiptId: string; transactionId: string }>)[0] : (dataOf(e) as { receiptId: string; transactionId: string });
      }
      if (!pair) throw notFound(kind);
      if (!isAdmin(ctx)) {
        // As the match lists: a plain member sees a match both sides of which are theirs.
        const receipt = await receiptOwner(events, companyId, pair.receiptId);
        const tx = await getTransaction(deps.store, companyId, pair.transactionId);
        if (receipt?.ownerId !== ctx.userId || tx?.userId !== ctx.userId) throw notFound(kind);
      }
      return { events: own, projections: [matchesProjection], fields: (v) => matchFields(v.peek<MatchDoc>(MATCHES, id)) };
    }
    case 'company': {
      if (id !== companyId) throw notFound(kind);
      const stream = await events.readStream(companyStream(companyId));
      // Members see the company's own changes; admins and auditors also who joined, left and changed role.
      const own = isAdmin(ctx) ? stream : stream.filter((e) => e.type === 'CompanyRegistered' || e.type === 'CompanyUpdated');
      return { events: own, projections: [companiesProjection], fields: (v) => companyFields(v.peek<CompanyDoc>(COMPANIES, companyId)) };
    }
    case 'member': {
      if (!isAdmin(ctx) && id !== ctx.userId) throw notFound(kind);
      const membership = (await events.readStream(companyStream(companyId))).filter((e) => e.type !== 'CompanyRegistered' && e.type !== 'CompanyUpdated' && dataOf(e).userId === id);
      if (membership.length === 0) throw notFound(kind);
      const account = (await events.readStream(userStream(id))).filter((e) => e.type === 'UserRegistered' || e.type === 'UserProfileUpdated');
      return {
        events: [...account, ...membership],
        projections: [companiesProjection, usersProjection],
        fields: (v) => memberFields(v.peek<MembershipDoc>(MEMBERSHIPS, membershipId(companyId, id)), v.peek<UserDoc>(USERS, id)),
      };
    }
  }
}

/** An owner (a user id) as the person's name then, with the id beside it. */
async function readableOwners(changes: HistoryChange[], people: People, position: number): Promise<HistoryChange[]> {
  const named = async (v: unknown) => (typeof v === 'string' ? `${(await people.at(v, position)).name ?? 'Unknown'} (${v})` : v);
  return Promise.all(changes.map(async (c) => (c.field === 'owner' ? { field: c.field, before: await named(c.before), after: await named(c.after) } : c)));
}

export async function recordHistory(deps: HistoryDeps, ctx: RequestContext, kind: HistoryKind, id: string): Promise<History> {
  const { events, projections, fields } = await recordEvents(deps, ctx, kind, id);
  const { steps, current } = await replay(events, projections, fields);
  const people = new People(deps.events, ctx.companyId!);
  const entries: HistoryEntry[] = [];
  for (const { event, changes } of steps) {
    const actor = actorOf(event);
    // Jobs act as `system:<job>` (OCR, scheduled matching): no person, no role.
    const system = actor?.startsWith('system') ? actor.replace(/^system:?/, '') || 'system' : null;
    entries.push({
      position: event.position,
      eventId: event.id,
      type: event.type,
      at: event.metadata.occurredAt,
      who: actor && !system ? await people.at(actor, event.position) : null,
      system,
      summary: summarise(kind, event, changes),
      changes: await readableOwners(changes, people, event.position),
      source: sourceOf(event),
      requestId: event.metadata.requestId ?? null,
      correlationId: event.metadata.correlationId ?? null,
    });
  }
  return { kind, id, entries, current };
}
