/**
 * Matches sized to their decisions (ADR 0021), in one process, no HTTP:
 *
 * 1. A company with 100,000 matches in its history (side streams, as the commands write them):
 *    confirm, reject and manual match through the command bus on the SQLite event store
 *    (read the pair's two side streams, decide, append with revisions), median and p95; beside
 *    it, in the same run, the design before: reading and folding `matching-<company>` holding
 *    the same 100,000 matches, and deciding on it (no append).
 *    Then the upgrade's carry of that old stream into side streams (once per data folder).
 * 2. Auto-match after one new receipt (runAutoMatch with its seed: the candidate block by the
 *    read model's posting-day index, the assignment, and the pair's side streams), in an
 *    embedded read store holding 90 days and then 360 days of lines at 1,000,000 lines over
 *    five years' density (550 a day): the cost follows the density, not the history's length.
 *
 *   node --import tsx bench/match-streams.ts [matches, default 100000] [decisions, default 300]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  decideManual,
  decidePair,
  decideProposals,
  emptySide,
  eventsOfChanges,
  fold,
  isoOfDay,
  matchingDecider,
  matchingStream,
  receiptMatchesStream,
  transactionMatchesStream,
  type MatchEvent,
  type MatchEvidence,
  type NewEvent,
  type RequestContext,
  type StreamAppend,
} from '@paperlink/domain';
import { CommandBus, runAutoMatch, type MatchDeps } from '@paperlink/command-api';
import { LoadedBook } from '../command-api/src/matches/book';
import { RECEIPTS, TRANSACTIONS, type ReceiptDoc, type TransactionDoc } from '@paperlink/projections';
import { carryLegacyMatches } from '../infra/src/eventstore/carry-legacy-matches';
import { SqliteEventStore } from '../infra/src/eventstore/sqlite';
import { EmbeddedReadStore } from '../infra/src/readstore/embedded';
import { knownMatches, matchBlock } from '../infra/src/matches/match-block';
import { fmt, median, percentile, row } from './lib';

const MATCHES = Number(process.argv[2] ?? 100_000);
const DECISIONS = Number(process.argv[3] ?? 300);
const dir = mkdtempSync(join(tmpdir(), 'paperlink-bench-match-streams-'));
const events = new SqliteEventStore(join(dir, 'events.sqlite'));
const bus = new CommandBus(events);
const companyId = randomUUID();
const legacyCompany = randomUUID();
const now = new Date();
const ctx: RequestContext = { requestId: 'bench', correlationId: 'bench', companyId, userId: 'ada', role: 'admin', now };
const meta = { companyId, userId: 'ada', occurredAt: now.toISOString() };
const evidence: MatchEvidence = { amountDiffCents: 0, amountRatio: 1, amountKind: 'exact', daysBetween: 1, merchantSimilarity: 1, uploaderIsCardHolder: true, reasons: ['bench'] };
const toNew = (e: { type: string; data: unknown }): NewEvent => ({ id: randomUUID(), type: e.type, data: e.data, metadata: meta });
const ms = (t: number) => performance.now() - t;
const stat = (xs: number[]) => `${median(xs).toFixed(1)} / ${percentile(xs, 95).toFixed(1)}`;

console.log(`Matches on side streams (ADR 0021): ${fmt(MATCHES)} matches in one company, ${DECISIONS} decisions of each kind. Load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);

// 1. History: MATCHES pairs, 4 in 5 confirmed, 1 in 5 rejected; the same in the old one-stream format for another company.
let t = performance.now();
const legacy: MatchEvent[] = [];
for (let k = 0; k < MATCHES; k += 2000) {
  const changes = [];
  const pairs = Array.from({ length: Math.min(2000, MATCHES - k) }, () => ({ receiptId: randomUUID(), transactionId: randomUUID() }));
  const book = { receipt: () => emptySide(), transaction: () => emptySide() };
  changes.push(...decideProposals({ threshold: 75, origin: 'auto', proposals: pairs.map((p) => ({ ...p, confidence: 90, evidence })), considered: [], newId: randomUUID }, book));
  const decided = changes.map((c, i) => ({ kind: i % 5 === 4 ? ('rejected' as const) : ('confirmed' as const), match: c.match, receiptName: `r${k + i}.jpg` }));
  const { receipts, transactions } = eventsOfChanges(companyId, 'ada', [...changes, ...decided]);
  const appends: StreamAppend[] = [];
  for (const [id, es] of transactions) appends.push({ streamId: transactionMatchesStream(id), expectedRevision: 'no_stream', events: es.map(toNew) });
  for (const [id, es] of receipts) appends.push({ streamId: receiptMatchesStream(id), expectedRevision: 'no_stream', events: es.map(toNew) });
  await events.appendMany(appends);
  // The old company's matches: the same shape, their own ids.
  const ids = new Map(changes.map((c) => [c.match.matchId, { matchId: randomUUID(), receiptId: randomUUID(), transactionId: randomUUID() }]));
  const suggestions = changes.map((c) => ({ ...ids.get(c.match.matchId)!, confidence: 90, evidence }));
  legacy.push({ type: 'MatchesSuggested', data: { companyId: legacyCompany, origin: 'auto', threshold: 75, by: 'ada', suggestions } });
  for (const d of decided) {
    const base = { companyId: legacyCompany, ...ids.get(d.match.matchId)!, by: 'ada' };
    legacy.push(d.kind === 'rejected' ? { type: 'MatchRejected', data: base } : { type: 'MatchConfirmed', data: { ...base, receiptName: d.receiptName } });
  }
}
for (let i = 0; i < legacy.length; i += 5000) await events.appendToStream(matchingStream(legacyCompany), legacy.slice(i, i + 5000).map(toNew), 'any');
row('history written (s)', (ms(t) / 1000).toFixed(1), `${fmt(MATCHES)} matches as side streams and as one old stream (${fmt(legacy.length)} events)`);

// Fresh suggestions to decide on, recorded as a run would.
const fresh = Array.from({ length: DECISIONS * 3 }, () => ({ receiptId: randomUUID(), transactionId: randomUUID() }));
for (let i = 0; i < fresh.length; i += 200) {
  const slice = fresh.slice(i, i + 200);
  await bus.run(ctx, async () => {
    const book = await new LoadedBook(events, companyId).load(slice.map((p) => p.receiptId), slice.map((p) => p.transactionId));
    return { appends: await book.appends('system', decideProposals({ threshold: 75, origin: 'auto', proposals: slice.map((p) => ({ ...p, confidence: 90, evidence })), considered: [], newId: randomUUID }, book)), body: null };
  });
}
const matchOf = async (p: { receiptId: string; transactionId: string }) => [...(await new LoadedBook(events, companyId).load([p.receiptId], [])).receipt(p.receiptId).matches.values()][0]!.matchId;
const times: Record<'confirm' | 'reject' | 'manual', number[]> = { confirm: [], reject: [], manual: [] };
for (let i = 0; i < DECISIONS; i++) {
  for (const [kind, p] of [['confirm', fresh[3 * i]!], ['reject', fresh[3 * i + 1]!]] as const) {
    const matchId = await matchOf(p);
    t = performance.now();
    await bus.run(ctx, async () => {
      const book = await new LoadedBook(events, companyId).load([p.receiptId], [p.transactionId]);
      const changes = decidePair(kind === 'confirm' ? 'ConfirmMatch' : 'RejectMatch', { companyId, by: 'ada', role: 'admin', matchId, ...p, side: { receiptName: 'x.jpg' } }, book);
      return { appends: await book.appends('ada', changes), body: null };
    });
    times[kind].push(ms(t));
  }
  const m = fresh[3 * i + 2]!;
  const other = { receiptId: m.receiptId, transactionId: randomUUID() };
  t = performance.now();
  await bus.run(ctx, async () => {
    const book = await new LoadedBook(events, companyId).load([other.receiptId], [other.transactionId]);
    const changes = decideManual({ by: 'ada', role: 'admin', ...other, confidence: 0, evidence, side: { receiptName: 'x.jpg' }, newId: randomUUID }, book);
    return { appends: await book.appends('ada', changes), body: null };
  });
  times.manual.push(ms(t));
}
row('confirm (ms, median / p95)', stat(times.confirm), 'goal p95 <= 30 (reads 2 side streams, appends to both)');
row('reject (ms, median / p95)', stat(times.reject), 'goal p95 <= 30');
row('manual match (ms, median / p95)', stat(times.manual), 'goal p95 <= 30 (withdraws the receipt\'s suggestion on its line\'s stream)');
const before: number[] = [];
for (let i = 0; i < 5; i++) {
  t = performance.now();
  const recorded = await events.readStream(matchingStream(legacyCompany));
  const state = fold(matchingDecider, recorded as unknown as MatchEvent[]);
  try {
    matchingDecider.decide({ type: 'ConfirmMatch', companyId: legacyCompany, by: 'ada', role: 'admin', matchId: 'none', side: {} }, state);
  } catch {
    // not found: the read and fold are the cost
  }
  before.push(ms(t));
}
row('baseline: read + fold matching-<company> (ms, median)', median(before).toFixed(1), `the design before, the same ${fmt(MATCHES)} matches; ratio ${(median(before) / median(times.confirm)).toFixed(0)}x a confirm`);

// The upgrade of a folder written before (ADR 0021): the old stream carried into side streams, once.
t = performance.now();
const carried = await carryLegacyMatches(events, [legacyCompany]);
row('upgrade: carry matching-<company> into side streams (s)', (ms(t) / 1000).toFixed(1), `${fmt(carried.sides)} side streams, once per folder`);

// 2. Auto-match after one new receipt, at 550 lines a day, over 90 and 360 days of history.
const PER_DAY = 550;
const FIRST_DAY = 19_000; // 2022-01-08
const merchants = ['BLUE BOTTLE COFFEE', 'SHELL 1123', 'HOME DEPOT #442', 'UBER *TRIP', 'STAPLES 0091', 'DELTA AIR 006', 'MARRIOTT SF', 'AMAZON MKTP'];
for (const days of [90, 360]) {
  const store = new EmbeddedReadStore();
  await store.ensureIndexes(TRANSACTIONS, [['companyId'], ['companyId', 'userId'], ['companyId', 'transaction_date']]);
  await store.ensureIndexes(RECEIPTS, [['companyId'], ['companyId', 'userId'], ['companyId', 'sha256'], ['companyId', 'extracted_date']]);
  await store.ensureIndexes('matches', [['companyId'], ['companyId', 'status'], ['companyId', 'receiptId'], ['companyId', 'transactionId']]);
  let n = 0;
  for (let d = 0; d < days; d++) {
    const docs = new Map<string, TransactionDoc | null>();
    for (let k = 0; k < PER_DAY; k++) {
      const id = randomUUID();
      docs.set(id, { _id: id, companyId, userId: 'ada', transaction_date: isoOfDay(FIRST_DAY + d), description: merchants[(n + k) % merchants.length]!, amountCents: -(100 + ((n + k) * 7919) % 50_000) } as unknown as TransactionDoc);
    }
    n += PER_DAY;
    await store.commit(new Map([[TRANSACTIONS, docs]]), []);
  }
  const asReceipt = (r: ReceiptDoc) => ({ id: r._id, totalCents: r.extractedCents, date: r.extracted_date, merchant: r.extracted_merchant, uploadedBy: r.userId, owner: r.userId, name: r.original_filename });
  const asTransaction = (x: TransactionDoc) => ({ id: x._id, amountCents: x.amountCents, date: x.transaction_date, description: x.description, cardHolder: x.userId, owner: x.userId });
  const deps: MatchDeps = {
    bus,
    inputs: async () => { throw new Error('a new receipt never reads the whole company'); },
    block: matchBlock(store, asReceipt, asTransaction),
    matchesOf: knownMatches(store),
    receipt: async () => null,
    transaction: async () => null,
    matchSides: async () => null,
  };
  const runs: number[] = [];
  let considered = 0;
  for (let i = 0; i < 40; i++) {
    const day = FIRST_DAY + days - 10 - (i % 7);
    const lines = await store.collection<TransactionDoc>(TRANSACTIONS).find({ companyId, transaction_date: isoOfDay(day + 1) }, { limit: 1, skip: i });
    const line = lines[0]!;
    const id = randomUUID();
    await store.commit(new Map([[RECEIPTS, new Map([[id, { _id: id, companyId, userId: 'ada', processing_status: 'completed', extractedCents: -line.amountCents, extracted_date: isoOfDay(day), extracted_merchant: line.description, original_filename: `${id}.jpg` } as unknown as ReceiptDoc]])]]), []);
    t = performance.now();
    const out = await runAutoMatch(deps, { ...ctx, userId: 'system:auto-match' }, 75, {}, { receiptIds: [id] });
    runs.push(ms(t));
    considered += out.transactionsConsidered;
  }
  row(`auto-match after one receipt, ${days} days (ms, median / p95)`, stat(runs), `${fmt(n)} lines in the company; ${fmt(considered / runs.length, 1)} lines in its block on average; goal <= 200`);
  await store.close();
}
await events.close();
rmSync(dir, { recursive: true, force: true });
