/**
 * A data folder at a company's real size (ADR 0029), written straight to the event store in the
 * events the commands write: same types, data shapes (made by the domain's deciders), metadata
 * and stream names (domain/src/core/streams.ts), a request record beside what a person did (the
 * web app sends an X-Request-Id with every command). Building it through the HTTP API would take
 * hours; here the history of a month is one transaction of the store.
 *
 * The history, month by month over five years (2021-2025), for every company: one statement
 * import (the month's card lines, assigned to members by name; the ledger read and the file
 * claimed as the import route does), the receipts of the month (uploaded by the card holder,
 * read by OCR: fields only, no image files), an auto-match run that proposes each receipt's line
 * (on the side streams of its receipt and transaction, ADR 0021), and the card holder's decision
 * (60 % confirmed, 20 % rejected, 20 % left pending). One member of the big company signs in
 * SIGN_INS times over the period (each sign-in in its session's stream, ADR 0022). Every user
 * registers (and so gets a company of their own, as the product does) and is invited. The
 * streams and their appends come from the command side's own helpers where it has them
 * (userAppends, readLedger / claimAppend, the matching deciders and eventsOfChanges), so that the
 * folder follows the format of the checkout; test/projections/scale-data.int.spec.ts checks that
 * the server starts on it without an upgrade and lists what was generated.
 *
 * Sizes from the environment (defaults: a real company's size, ADR 0029):
 *   SCALE_TX 1,000,000 · SCALE_RECEIPTS 100,000 · SCALE_MATCHES 100,000 · SCALE_MEMBERS 50 ·
 *   SCALE_SMALL_COMPANIES 4 · SCALE_SMALL_TX 2,000 (receipts a tenth, matches a twentieth) ·
 *   SCALE_SIGNINS 10,000 · SCALE_MONTHS 60
 */
import { randomUUID } from 'node:crypto';
import { CommandBus, fingerprintKey, newId, FINGERPRINT_VERSION, type RequestCompleted } from '@paperlink/command-api';
import {
  companyDecider,
  companyStream,
  decideImport,
  decideReceipt,
  dedupKeyOf,
  emailDecider,
  emailStream,
  importStream,
  ledgerStream,
  decidePair,
  decideProposals,
  emptySide,
  eventsOfChanges,
  evolveSide,
  receiptMatchesStream,
  transactionMatchesStream,
  normaliseEmail,
  receiptDecider,
  receiptStream,
  requestStream,
  scoreMatch,
  sessionDecider,
  sessionStream,
  signInAttemptsStream,
  signInHour,
  userDecider,
  userStream,
  type CandidateRow,
  type CompanyState,
  type DomainEvent,
  type EventMetadata,
  type MatchBook,
  type MatchChange,
  type SideState,
  type NewEvent,
  type ReceiptEvent,
  type ReceiptState,
  type Role,
  type StreamAppend,
  type UserState,
} from '@paperlink/domain';
import { userAppends, type LoadedSignIn } from '../../command-api/src/accounts/user-streams';
import { claimAppend, readLedger } from '../../command-api/src/imports/ledger';
import { dataDir } from '../../infra/src/data-dir';
import { SqliteEventStore } from '../../infra/src/eventstore/sqlite';
import { Argon2Hasher } from '../../infra/src/passwords';

export interface ScaleSizes {
  transactions: number;
  receipts: number;
  matches: number;
  members: number;
  smallCompanies: number;
  smallTransactions: number;
  signIns: number;
  months: number;
}

export function sizesFromEnv(env: NodeJS.ProcessEnv = process.env): ScaleSizes {
  const n = (name: string, fallback: number) => {
    const v = env[name];
    if (v === undefined || v === '') return fallback;
    const x = Number(v.replace(/[_,]/g, ''));
    if (!Number.isInteger(x) || x < 0) throw new Error(`${name} must be a whole number, not ${v}`);
    return x;
  };
  const transactions = n('SCALE_TX', 1_000_000);
  return {
    transactions,
    receipts: n('SCALE_RECEIPTS', Math.round(transactions / 10)),
    matches: n('SCALE_MATCHES', Math.round(transactions / 10)),
    members: Math.max(2, n('SCALE_MEMBERS', 50)),
    smallCompanies: n('SCALE_SMALL_COMPANIES', 4),
    smallTransactions: n('SCALE_SMALL_TX', 2_000),
    signIns: n('SCALE_SIGNINS', 10_000),
    months: Math.max(1, n('SCALE_MONTHS', 60)),
  };
}

export interface Person {
  userId: string;
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  role: Role;
  /** The session its registration started (never revoked). */
  sessionId: string;
}

export interface ScaleCompany {
  companyId: string;
  name: string;
  admin: Person;
  /** Every member, the admin first. */
  members: Person[];
  transactions: number;
  receipts: number;
  matches: { confirmed: number; rejected: number; pending: number };
  /** Pending suggestions (a sample, in history order), for confirm and reject. */
  pendingMatchIds: string[];
  /** A receipt whose suggestion was rejected and a line without any match (a sample): manual matches that the rules allow. */
  manualPairs: Array<{ receiptId: string; transactionId: string }>;
  /** Lines without a receipt or match (a sample, not in manualPairs), for a new receipt to be matched to. */
  freeLines: Array<{ transactionId: string; date: string; amountCents: number; description: string; merchant: string; owner: string }>;
  /** Transactions per member (user id → count). */
  perMember: Map<string, number>;
}

export interface ScaleData {
  dir: string;
  sizes: ScaleSizes;
  big: ScaleCompany;
  small: ScaleCompany[];
  /** The member of the big company with `sizes.signIns` sign-ins in the history. */
  signInUser: Person;
  events: number;
  ms: number;
}

const PASSWORD = 'Passw0rdOK-scale';
const FIRST = ['Ada', 'Sam', 'Bo', 'Cy', 'Dee', 'Eli', 'Fay', 'Gus', 'Hal', 'Ivy', 'Jo', 'Kai', 'Lu', 'Max', 'Ned', 'Oli', 'Pam', 'Quin', 'Rae', 'Sol', 'Tia', 'Uma', 'Vic', 'Wes', 'Xia'];
const LAST = ['Admin', 'Signin', 'Baker', 'Cole', 'Diaz', 'Evans', 'Ford', 'Gray', 'Hill', 'Ives', 'Jones', 'King', 'Lopez', 'Moss', 'Nash', 'Owen', 'Park', 'Quinn', 'Reed', 'Shaw', 'Todd', 'Upton', 'Voss', 'West', 'Young'];
const MERCHANTS = ['SHELL OIL', 'HOME DEPOT', 'DELTA AIR', 'MARRIOTT HOTELS', 'STAPLES', 'UBER TRIP', 'AMAZON MKTPLACE', 'CHEVRON', 'OFFICE DEPOT', 'BLUE BOTTLE COFFEE'];
const CATEGORIES = ['Travel', 'Meals', 'Fuel', 'Office', 'Lodging', 'Software', 'Tools', 'Materials', 'Permits', 'Phone', 'Training', 'Parking'];
const START = Date.UTC(2021, 0, 1);

/** Deterministic pseudo-random numbers (the same folder for the same sizes, ids aside). */
function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/** What the bus puts on every event of a command (CommandBus.metadata). */
function metaOf(ctx: { companyId?: string; userId?: string; requestId: string; correlationId?: string }, at: number): EventMetadata {
  return {
    ...(ctx.companyId ? { companyId: ctx.companyId } : {}),
    ...(ctx.userId ? { userId: ctx.userId } : {}),
    requestId: ctx.requestId,
    correlationId: ctx.correlationId ?? ctx.requestId,
    causationId: ctx.requestId,
    occurredAt: new Date(at).toISOString(),
  };
}

const toNew = (events: DomainEvent[], meta: EventMetadata): NewEvent[] => events.map((e) => ({ id: randomUUID(), type: e.type, data: e.data, metadata: meta }));

/** Proposals recorded per command of an auto-match run (command-api/src/matches/auto.ts). */
const PAIRS_PER_COMMAND = 200;

/**
 * The side streams of matches (receiptMatches-<receipt>, transactionMatches-<transaction>) as a
 * decision reads them (command-api/src/matches/book.ts LoadedBook), kept in memory while the
 * history is written: the decisions are the domain's, the appends carry each stream's revision.
 */
class LocalBook implements MatchBook {
  private readonly sides = new Map<string, { state: SideState; revision: number }>();

  private side(stream: string): { state: SideState; revision: number } {
    let s = this.sides.get(stream);
    if (!s) this.sides.set(stream, (s = { state: emptySide(), revision: -1 }));
    return s;
  }

  receipt(receiptId: string): SideState {
    return this.side(receiptMatchesStream(receiptId)).state;
  }

  transaction(transactionId: string): SideState {
    return this.side(transactionMatchesStream(transactionId)).state;
  }

  /** The appends of a decision's changes (transactions' notes first, as LoadedBook.appends), folded in. */
  appends(companyId: string, by: string, changes: readonly MatchChange[]): Array<{ streamId: string; expectedRevision: StreamAppend['expectedRevision']; events: DomainEvent[] }> {
    const { transactions, receipts } = eventsOfChanges(companyId, by, changes);
    const out = [
      ...[...transactions].map(([id, events]) => ({ streamId: transactionMatchesStream(id), expectedRevision: this.revisionOf(transactionMatchesStream(id)), events: events as DomainEvent[] })),
      ...[...receipts].map(([id, events]) => ({ streamId: receiptMatchesStream(id), expectedRevision: this.revisionOf(receiptMatchesStream(id)), events: events as DomainEvent[] })),
    ];
    for (const [id, events] of transactions) this.fold(transactionMatchesStream(id), events);
    for (const [id, events] of receipts) this.fold(receiptMatchesStream(id), events);
    return out;
  }

  private revisionOf(stream: string): StreamAppend['expectedRevision'] {
    const r = this.side(stream).revision;
    return r < 0 ? 'no_stream' : r;
  }

  private fold(stream: string, events: Parameters<typeof evolveSide>[1][]): void {
    const s = this.side(stream);
    for (const e of events) s.state = evolveSide(s.state, e);
    s.revision += events.length;
  }
}

interface CompanyPlan {
  company: ScaleCompany;
  state: CompanyState;
  revision: number;
  transactions: number;
  receipts: number;
  matches: number;
  /** The side streams of the company's matches (ADR 0021), as written so far. */
  book: LocalBook;
  /** Receipts whose suggestion was rejected, waiting for a line without a match. */
  rejectedReceipts: string[];
}

/**
 * Writes the history into a fresh data folder's event store (`dir` must hold no events yet).
 * `secret`: the server's JWT_SECRET, so that request records carry fingerprints it recognises.
 */
export async function generateScaleData(dir: string, sizes: ScaleSizes, options: { secret: string; log?: (line: string) => void }): Promise<ScaleData> {
  const started = performance.now();
  const log = options.log ?? (() => {});
  const store = new SqliteEventStore(dataDir(dir).eventsFile, { synchronous: 'NORMAL' });
  if ((await store.headPosition()) > 0) throw new Error(`${dir} holds events already`);
  const bus = new CommandBus(store, async () => true, fingerprintKey(options.secret));
  const hasher = new Argon2Hasher();
  const passwordHash = () => hasher.hash(PASSWORD);
  const rand = lcg(13);
  let clock = START - 86_400_000;
  /** Each command a moment after the one before. */
  const tick = (ms = 1000) => (clock += ms);
  let batch: StreamAppend[] = [];
  const flush = async () => {
    for (let i = 0; i < batch.length; i += 20_000) await store.appendMany(batch.slice(i, i + 20_000));
    batch = [];
  };
  /** A person's request: its events and, as the bus writes it, the record of its answer. */
  const request = (ctx: { companyId?: string; userId?: string }, appends: Array<{ streamId: string; expectedRevision: StreamAppend['expectedRevision']; events: DomainEvent[] }>, reply: { method: string; path: string; body?: unknown; status: number; answer: unknown; grant?: RequestCompleted['data']['grant'] }) => {
    const requestId = randomUUID();
    const meta = metaOf({ ...ctx, requestId }, tick());
    for (const a of appends) if (a.events.length > 0) batch.push({ streamId: a.streamId, expectedRevision: a.expectedRevision, events: toNew(a.events, meta) });
    const record: RequestCompleted = {
      type: 'RequestCompleted',
      data: {
        requestId,
        fingerprint: bus.fingerprint([reply.method, reply.path, ctx.userId ?? null, ctx.companyId ?? null, reply.body ?? null, null, null]),
        fingerprintVersion: FINGERPRINT_VERSION,
        status: reply.status,
        body: reply.answer,
        ...(reply.grant ? { grant: reply.grant } : {}),
      },
    };
    batch.push({ streamId: requestStream(requestId), expectedRevision: 'no_stream', events: toNew([record], meta) });
    return meta;
  };

  // ---- Accounts: every user registers (a company of their own), admins invite members. ----
  const users = new Map<string, { person: Person; state: UserState; revision: number }>();
  const register = async (i: number, companyName: string, role: Role): Promise<{ person: Person; companyId: string }> => {
    const firstName = FIRST[i % FIRST.length]!;
    const lastName = `${LAST[Math.floor(i / FIRST.length) % LAST.length]!}${i >= FIRST.length * LAST.length ? i : ''}`;
    const email = normaliseEmail(`${firstName}.${lastName}.${i}@scale.example`);
    const userId = newId(clock);
    const companyId = newId(clock);
    const sessionId = newId(clock);
    const now = new Date(tick()).toISOString();
    const hash = await passwordHash();
    const userEvents = userDecider.decide({ type: 'RegisterUser', userId, email, firstName, lastName, passwordHash: hash, now }, userDecider.initialState());
    request({}, [
      { streamId: emailStream(email), expectedRevision: 'no_stream', events: emailDecider.decide({ type: 'ClaimEmail', email, userId }, emailDecider.initialState()) },
      { streamId: userStream(userId), expectedRevision: 'no_stream', events: userEvents },
      { streamId: companyStream(companyId), expectedRevision: 'no_stream', events: companyDecider.decide({ type: 'RegisterCompany', companyId, name: companyName, adminUserId: userId, now }, companyDecider.initialState()) },
      { streamId: sessionStream(sessionId), expectedRevision: 'no_stream', events: sessionDecider.decide({ type: 'StartSession', sessionId, userId, now, expiresAt: new Date(clock + 30 * 86_400_000).toISOString() }, sessionDecider.initialState()) },
    ], { method: 'POST', path: '/api/auth/register', body: { firstName, lastName, email, companyName }, status: 201, answer: { user: { id: userId, email, firstName, lastName }, company: { id: companyId, name: companyName, role: 'admin' } }, grant: { userId, email, firstName, lastName, role: 'admin', companyId, sessionId, generation: 0, issuedAt: Math.floor(clock / 1000) } });
    const person: Person = { userId, email, password: PASSWORD, firstName, lastName, role, sessionId };
    users.set(userId, { person, state: userEvents.reduce(userDecider.evolve, userDecider.initialState()), revision: 0 });
    return { person, companyId };
  };
  const companyState = (companyId: string, name: string, adminId: string): CompanyState =>
    companyDecider.decide({ type: 'RegisterCompany', companyId, name, adminUserId: adminId, now: new Date(clock).toISOString() }, companyDecider.initialState()).reduce(companyDecider.evolve, companyDecider.initialState());

  let userIndex = 0;
  const makeCompany = async (name: string, memberCount: number, transactions: number, receipts: number, matches: number): Promise<CompanyPlan> => {
    const { person: admin, companyId } = await register(userIndex++, name, 'admin');
    const company: ScaleCompany = { companyId, name, admin, members: [admin], transactions: 0, receipts: 0, matches: { confirmed: 0, rejected: 0, pending: 0 }, pendingMatchIds: [], manualPairs: [], freeLines: [], perMember: new Map() };
    const plan: CompanyPlan = { company, state: companyState(companyId, name, admin.userId), revision: 1, transactions, receipts: Math.min(receipts, transactions), matches: Math.min(matches, receipts, transactions), book: new LocalBook(), rejectedReceipts: [] };
    for (let m = 1; m < memberCount; m++) {
      const i = userIndex++;
      const role: Role = m % 10 === 5 ? 'manager' : 'user';
      const { person } = await register(i, `${FIRST[i % FIRST.length]} personal`, role);
      const events = companyDecider.decide({ type: 'InviteMember', actorId: admin.userId, userId: person.userId, role, now: new Date(tick()).toISOString() }, plan.state);
      request({ companyId, userId: admin.userId }, [{ streamId: companyStream(companyId), expectedRevision: plan.revision, events }], { method: 'POST', path: '/api/companies/current/invite', body: { email: person.email, role }, status: 201, answer: { user: { id: person.userId, email: person.email, role } } });
      plan.state = events.reduce(companyDecider.evolve, plan.state);
      plan.revision += events.length;
      company.members.push(person);
    }
    await flush();
    return plan;
  };

  const plans: CompanyPlan[] = [await makeCompany('Scale Construction Inc', sizes.members, sizes.transactions, sizes.receipts, sizes.matches)];
  for (let c = 0; c < sizes.smallCompanies; c++) {
    plans.push(await makeCompany(`Small Co ${c + 1}`, 3, sizes.smallTransactions, Math.round(sizes.smallTransactions / 10), Math.round(sizes.smallTransactions / 20)));
  }
  const signInUser = plans[0]!.company.members[1]!;
  log(`accounts: ${users.size} users, ${plans.length} companies with members (${((performance.now() - started) / 1000).toFixed(1)} s)`);

  // ---- The history, month by month. ----
  const monthMs = (5 * 365 + 1) * 86_400_000 / sizes.months;
  const dayOf = (month: number, k: number, perMonth: number) => new Date(START + month * monthMs + Math.floor((k / Math.max(1, perMonth)) * (monthMs - 86_400_000))).toISOString().slice(0, 10);
  let signInsDone = 0;
  const ledgerHints = new Map<string, number>();
  /** The sign-in user's state with its address marks (the user stream itself holds no sign-ins). */
  const signInStates = new Map<string, UserState>();
  for (let month = 0; month < sizes.months; month++) {
    clock = Math.max(clock, START + month * monthMs + 86_400_000);
    for (const plan of plans) await writeMonth(plan, month);
    // The sign-ins of the month.
    const signInTarget = Math.round(((month + 1) * sizes.signIns) / sizes.months);
    const u = users.get(signInUser.userId)!;
    for (; signInsDone < signInTarget; signInsDone++) signIn(u, plans[0]!.company.companyId);
    await flush();
    if (month % 12 === 11 || month === sizes.months - 1) log(`month ${month + 1}/${sizes.months} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }

  function signIn(u: { person: Person; state: UserState; revision: number }, companyId: string): void {
    const sessionId = newId(clock);
    const at = tick(60_000);
    const now = new Date(at).toISOString();
    // The keyed tag of the address group (a few offices and phones), never the address itself.
    const source = `scale-source-${signInsDone % 7}`.padEnd(22, 'x').slice(0, 22);
    const { person } = u;
    const state = signInStates.get(person.userId) ?? u.state;
    const decided = userDecider.decide({ type: 'RecordLogin', passwordValid: true, sessionId, now, source }, state);
    const started = sessionDecider.decide({ type: 'StartSession', sessionId, userId: person.userId, now, expiresAt: new Date(at + 30 * 86_400_000).toISOString() }, sessionDecider.initialState());
    // Each event in the stream the sign-in route puts it in (its userAppends: the user's own stream is not read or written).
    const loaded: LoadedSignIn = { user: { state: u.state, expected: u.revision }, state, attempts: { streamId: signInAttemptsStream(person.userId, signInHour(now)), expected: 'no_stream' } };
    request({}, userAppends(loaded, decided, { streamId: sessionStream(sessionId), expectedRevision: 'no_stream', events: started }), { method: 'POST', path: '/api/auth/login', body: { email: person.email }, status: 200, answer: { user: { id: person.userId, email: person.email, lastLogin: now } }, grant: { userId: person.userId, email: person.email, firstName: person.firstName, lastName: person.lastName, role: person.role, companyId, sessionId, generation: 0, issuedAt: Math.floor(at / 1000) } });
    signInStates.set(person.userId, decided.reduce(userDecider.evolve, state));
  }

  async function writeMonth(plan: CompanyPlan, month: number): Promise<void> {
    const { company } = plan;
    const companyId = company.companyId;
    const admin = company.admin;
    const members = company.members;
    const from = Math.floor((month * plan.transactions) / sizes.months);
    const to = Math.floor(((month + 1) * plan.transactions) / sizes.months);
    if (to <= from) return;
    // 1. The month's statement, imported by the admin; rows carry the card holder's name.
    const rows: CandidateRow[] = [];
    for (let i = from; i < to; i++) {
      const owner = members[i % members.length]!;
      const merchant = MERCHANTS[i % MERCHANTS.length]!;
      const date = dayOf(month, i - from, to - from);
      const x = rand();
      const amountCents = x < 0.04 ? 1 + Math.floor(rand() * 50_000) : -(100 + Math.floor(rand() * 50_000));
      const description = `${merchant} ${i}`;
      rows.push({
        row: i - from + 2, date, description, amountCents,
        ...(x > 0.97 ? {} : { category: CATEGORIES[i % CATEGORIES.length]! }),
        ...(x > 0.9 && x < 0.95 ? {} : { jobNumber: `J-${i % 40}` }),
        ...(x > 0.6 && x < 0.68 ? {} : { costCode: `0${i % 9}-100` }),
        assignedTo: owner.userId, providedName: `${owner.firstName} ${owner.lastName}`, assignment: 'name_matched',
        dedupKey: dedupKeyOf(date, description, amountCents),
      });
      company.perMember.set(owner.userId, (company.perMember.get(owner.userId) ?? 0) + 1);
    }
    const importId = newId(clock);
    const fileName = `statement-${new Date(START + month * monthMs).toISOString().slice(0, 7)}.csv`;
    const fileHash = randomUUID().replace(/-/g, '') + randomUUID().replace(/-/g, '');
    // The ledger as the import route reads it (the file's claim, the ledger's revision; its index on the first import).
    const ledger = await readLedger(store, companyId, fileHash, ledgerHints);
    const { events, result } = decideImport({ importId, companyId, importedBy: admin.userId, fileName, fileHash, layout: 'generic', rows, rowErrors: [], existingKeys: new Map(), newIds: rows.map(() => newId(clock)) }, { fileHashes: ledger.alreadyImported ? { [fileHash]: importId } : {} });
    const txIds: string[] = [];
    for (const e of events) if (e.type === 'TransactionsImported') for (const r of e.data.rows) txIds.push(r.transactionId);
    request({ companyId, userId: admin.userId }, [
      { streamId: importStream(importId), expectedRevision: 'no_stream', events: events.filter((e) => e.type === 'TransactionsImported') },
      { streamId: ledgerStream(companyId), expectedRevision: ledger.expected, events: events.filter((e) => e.type === 'StatementImported') },
      claimAppend(companyId, fileHash, importId),
      ...ledger.indexAppends,
    ], { method: 'POST', path: '/api/transactions/import', status: 200, answer: { imported: result.imported, skipped: result.skipped, total: result.total, rejected: result.rejected, fileName, fileHash, layout: 'generic', message: `Import completed! ${result.imported} transactions imported` } });
    company.transactions += txIds.length;

    // 2. Receipts: every (transactions / receipts)-th line has one, uploaded by its card holder and read by OCR.
    const step = plan.transactions / Math.max(1, plan.receipts);
    const firstReceipt = Math.ceil(from / step);
    const proposals: Array<{ receiptId: string; transactionId: string; confidence: number; evidence: NonNullable<ReturnType<typeof scoreMatch>>['evidence'] }> = [];
    const matchedThisMonth: Array<{ k: number; receiptId: string; transactionId: string; owner: Person; name: string }> = [];
    for (let k = firstReceipt; k < plan.receipts && Math.floor(k * step) < to; k++) {
      const i = Math.floor(k * step);
      const row = rows[i - from]!;
      const owner = members[i % members.length]!;
      const receiptId = newId(clock);
      const name = `receipt-${k}.jpg`;
      const upload = decideReceipt(receiptId, { type: 'UploadReceipt', data: { receiptId, companyId, userId: owner.userId, originalName: name, contentType: 'image/jpeg', size: 80_000 + (k % 100_000), sha256: (randomUUID() + randomUUID()).replace(/-/g, ''), kind: 'jpeg', width: 1200, height: 1600, duplicateOf: null, via: 'multipart' } }, receiptDecider.initialState());
      const uploadMeta = request({ companyId, userId: owner.userId }, [{ streamId: receiptStream(receiptId), expectedRevision: 'no_stream', events: upload }], { method: 'POST', path: '/api/receipts/upload', status: 201, answer: { receipt: { id: receiptId, original_filename: name, file_size: 80_000 + (k % 100_000), content_type: 'image/jpeg', processing_status: 'pending', duplicate_of: null }, duplicate: false, message: 'Receipt uploaded successfully' } });
      let state: ReceiptState = upload.reduce(receiptDecider.evolve, receiptDecider.initialState());
      // The OCR job (its steps are commands of the system user, correlated with the upload).
      const jobId = `ocr-${receiptId}-0`;
      const jobCtx = (step: string) => ({ companyId, userId: 'system:ocr', requestId: `${jobId}-${step}-1`, correlationId: uploadMeta.correlationId! });
      const started = decideReceipt(receiptId, { type: 'StartProcessing', run: 0, attempt: 1 }, state);
      state = started.reduce(receiptDecider.evolve, state);
      batch.push({ streamId: receiptStream(receiptId), expectedRevision: 0, events: toNew(started, metaOf(jobCtx('start'), tick(200))) });
      const totalCents = Math.abs(row.amountCents);
      const fields = { date: row.date, totalCents, merchant: MERCHANTS[i % MERCHANTS.length]!, taxCents: k % 3 === 0 ? Math.round(totalCents * 0.07) : null, description: null };
      const read: ReceiptEvent[] = decideReceipt(receiptId, { type: 'RecordRead', result: { run: 0, source: 'ocr', text: `${fields.merchant}\nDATE ${fields.date}\nTOTAL ${(totalCents / 100).toFixed(2)}`, fields, confidence: { date: 0.9, totalCents: 0.92, merchant: 0.8 }, boxes: { merchant: [0.1, 0.05, 0.9, 0.1], date: [0.1, 0.2, 0.6, 0.24], totalCents: [0.5, 0.7, 0.9, 0.74] }, dateOrder: { order: 'month-first', evidence: 'default' }, ocrConfidence: 87.5, ms: 900 } }, state);
      batch.push({ streamId: receiptStream(receiptId), expectedRevision: 1, events: toNew(read, metaOf(jobCtx('read'), tick(900))) });
      company.receipts += 1;
      if (k < plan.matches) {
        const transactionId = txIds[i - from]!;
        const score = scoreMatch({ id: receiptId, totalCents, date: fields.date, merchant: fields.merchant, uploadedBy: owner.userId }, { id: transactionId, amountCents: row.amountCents, date: row.date, description: row.description, cardHolder: row.assignedTo });
        proposals.push({ receiptId, transactionId, confidence: score?.confidence ?? 90, evidence: score?.evidence ?? { amountDiffCents: 0, amountRatio: 1, amountKind: 'exact', daysBetween: 0, merchantSimilarity: 1, uploaderIsCardHolder: true, reasons: ['Same amount'] } });
        matchedThisMonth.push({ k, receiptId, transactionId, owner, name });
      }
    }
    // Lines of this month without a receipt, for manual matches of receipts whose suggestion was rejected.
    for (let i = from; i < to && plan.rejectedReceipts.length > 0 && company.manualPairs.length < 2000; i++) {
      if (Math.floor(Math.ceil(i / step) * step) === i) continue; // this line has a receipt
      company.manualPairs.push({ receiptId: plan.rejectedReceipts.shift()!, transactionId: txIds[i - from]! });
    }
    // A few more such lines (the month's last ones), for new receipts.
    for (let i = to - 1; i >= from && company.freeLines.length < 200 && i > to - 4; i--) {
      if (Math.floor(Math.ceil(i / step) * step) === i || company.manualPairs.some((p) => p.transactionId === txIds[i - from])) continue;
      const r = rows[i - from]!;
      if (r.amountCents >= 0) continue;
      company.freeLines.push({ transactionId: txIds[i - from]!, date: r.date, amountCents: r.amountCents, description: r.description, merchant: MERCHANTS[i % MERCHANTS.length]!, owner: r.assignedTo });
    }

    // 3. The auto-match run the receipts triggered: it proposes each receipt's line, a slice of pairs per command.
    const runId = `automatch-${randomUUID()}`;
    const runMeta = { companyId, userId: 'system:auto-match', requestId: `${runId}-1`, correlationId: runId };
    for (let p = 0; p < proposals.length; p += PAIRS_PER_COMMAND) {
      const changes = decideProposals({ threshold: 70, origin: 'auto', proposals: proposals.slice(p, p + PAIRS_PER_COMMAND), considered: [], newId: () => newId(clock) }, plan.book);
      const meta = metaOf(runMeta, tick(500));
      for (const a of plan.book.appends(companyId, 'system:auto-match', changes)) batch.push({ ...a, events: toNew(a.events, meta) });
    }
    // 4. The card holders' decisions.
    for (const m of matchedThisMonth) {
      const matchId = [...plan.book.receipt(m.receiptId).matches.values()].find((x) => x.status === 'pending' && x.transactionId === m.transactionId)?.matchId;
      if (!matchId) throw new Error('a proposal was not recorded');
      const verdict = m.k % 10;
      if (verdict >= 8) {
        company.matches.pending++;
        if (company.pendingMatchIds.length < 5000) company.pendingMatchIds.push(matchId);
        continue;
      }
      const type = verdict < 6 ? 'ConfirmMatch' : 'RejectMatch';
      const side = { receiptName: m.name, receiptOwner: m.owner.userId, transactionOwner: m.owner.userId };
      const changes = decidePair(type, { companyId, by: m.owner.userId, role: m.owner.role, matchId, receiptId: m.receiptId, transactionId: m.transactionId, side }, plan.book);
      request({ companyId, userId: m.owner.userId }, plan.book.appends(companyId, m.owner.userId, changes), { method: 'PUT', path: `/api/matches/${matchId}/${type === 'ConfirmMatch' ? 'confirm' : 'reject'}`, status: 200, answer: { success: true, id: matchId, message: type === 'ConfirmMatch' ? 'Match confirmed' : 'Match rejected' } });
      if (type === 'ConfirmMatch') company.matches.confirmed++;
      else {
        company.matches.rejected++;
        plan.rejectedReceipts.push(m.receiptId);
      }
    }
  }

  const head = await store.headPosition();
  await store.close();
  return { dir, sizes, big: plans[0]!.company, small: plans.slice(1).map((p) => p.company), signInUser, events: head, ms: performance.now() - started };
}
