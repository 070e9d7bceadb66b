import { Router } from 'express';
import { z } from 'zod';
import {
  calendarInsights,
  correlate,
  dayNumber,
  ConflictError,
  fromCents,
  NotFoundError,
  rankCandidates,
  type CalendarEventRef,
  type CalendarInsights,
  type Doc,
  type Filter,
  type ReadCollection,
  type ReadStore,
  type RankedCandidate,
  type RankTarget,
  type ReceiptInput,
  type RequestContext,
  type SpendLine,
  type TransactionInput,
} from '@paperlink/domain';
import { requireCompany } from '@paperlink/domain/http/context';
import { validIdParams } from '@paperlink/domain/http/params';
import {
  CALENDAR_EVENTS, calendarEventsOf, calendarsOf, getReceipt, getTransaction, MATCHES, matchFiguresOf, RECEIPTS, receiptMatchInput, splitViews, TRANSACTIONS,
  type CalendarEventDoc, type MatchDoc, type ReceiptDoc, type TransactionDoc,
} from '@paperlink/projections';

const ctxOf = (res: { locals: Record<string, unknown> }) => res.locals.ctx as RequestContext;
type Scope = { userId?: string };

/** One analysis of the comprehensive call; its failure is reported in its own `error`. */
export type Analyzer = (ctx: RequestContext, transactionId: string) => Promise<Record<string, unknown>>;

export interface AiQueryDeps {
  store: ReadStore;
  /** Whether the company has the AI features on (settings). */
  aiEnabled(companyId: string): Promise<boolean>;
  /** Off the request thread (infra's worker pool); in place when absent (tools and tests). */
  rank?(target: RankTarget, others: Array<ReceiptInput | TransactionInput>, limit: number): Promise<RankedCandidate[]>;
  insights?(events: CalendarEventRef[], lines: SpendLine[]): Promise<CalendarInsights>;
  /**
   * Every document a filter selects, read a page per turn of the event loop (infra's
   * findInPages): a company's 200,000 transactions copied at once hold the request thread.
   */
  readAll?<T extends Doc>(collection: ReadCollection<T>, filter: Filter): Promise<T[]>;
  /** The analyses of section 3 other than the calendar's (ai/categorize, duplicates, recurring). */
  analyzers: Partial<Record<'categorization' | 'duplicateAnalysis' | 'recurringAnalysis', Analyzer>>;
}

export const AdvancedMatchBody = z.object({
  limit: z.coerce.number().int().min(1).max(50).optional().meta({ description: 'How many candidates (default 10)' }),
}).meta({ description: 'Answer: { kind: receipt|transaction, id, candidates: [{ id, kind, confidence, evidence, description|merchant, date, amount, status }] }' });

/** Days a card line may post before and after a receipt's date and still score (matching/factors.ts fades it to nothing by then). */
const BEFORE_DAYS = 10;
const AFTER_DAYS = 40;
const shift = (iso: string, days: number) => new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

const asReceipt = (d: ReceiptDoc): ReceiptInput => receiptMatchInput(d);
const asTransaction = (d: TransactionDoc): TransactionInput => ({ id: d._id, amountCents: d.amountCents, date: d.transaction_date, description: d.description, cardHolder: d.userId });
const asLine = (d: TransactionDoc): SpendLine => ({ id: d._id, userId: d.userId, date: d.transaction_date, description: d.description, amountCents: d.amountCents, category: d.category_name });
const asRef = (e: CalendarEventDoc): CalendarEventRef => ({ id: e._id, userId: e.userId, summary: e.summary, location: e.location, startDay: e.startDay, endDay: e.endDay });

/** Split, calendar, advanced matching and comprehensive analysis reads (AI dashboard stats: command-api/src/ai/learning.ts). */
export function aiQueryRouter(deps: AiQueryDeps): Router {
  const { store } = deps;
  const readAll = <T extends Doc>(c: ReadCollection<T>, filter: Filter) => (deps.readAll ? deps.readAll(c, filter) : c.find(filter));
  const router = validIdParams(Router());
  const company = requireCompany();
  const scopeOf = (ctx: RequestContext): Scope => (ctx.role === 'admin' ? {} : { userId: ctx.userId! });
  const mine = (ctx: RequestContext, owner: string) => ctx.role === 'admin' || owner === ctx.userId;
  const aiOn = async (ctx: RequestContext) => {
    if (!(await deps.aiEnabled(ctx.companyId!))) throw new ConflictError("The AI features are switched off in this company's settings.", 'ai_disabled');
  };
  const ownTransaction = async (ctx: RequestContext, id: string) => {
    const t = await getTransaction(store, ctx.companyId!, id);
    if (!t || !mine(ctx, t.userId)) throw new NotFoundError('Transaction not found', 'transaction_not_found');
    return t;
  };

  router.get('/ai/splitting/:id', company, async (req, res) => {
    const ctx = ctxOf(res);
    const t = await ownTransaction(ctx, String(req.params.id));
    res.json({
      transaction_id: t._id,
      amount: fromCents(t.amountCents),
      is_split: !!t.split,
      mode: t.split?.mode ?? null,
      source: t.split?.source ?? null,
      receipt_id: t.split?.receiptId ?? null,
      stale: !!t.split && t.split.totalCents !== t.amountCents,
      parts: splitViews(t),
      updated_at: t.split?.at ?? null,
    });
  });

  /** The calendar analysis of one transaction (also a part of the comprehensive analysis). */
  const calendarAnalysis = async (ctx: RequestContext, t: TransactionDoc) => {
    const day = dayNumber(t.transaction_date);
    if (day === null) return { hasCorrelation: false, correlationDescription: 'The transaction has no date.', events: [] };
    // The events of the card line's owner (their calendar), around its date.
    const events = await calendarEventsOf(store, ctx.companyId!, { userId: t.userId }, { from: shift(t.transaction_date, -1), to: shift(t.transaction_date, 1) });
    const any = events.length > 0 || (await calendarsOf(store, ctx.companyId!, { userId: t.userId })).length > 0;
    const result = correlate({ date: t.transaction_date, description: t.description }, events.map(asRef));
    if (!result.hasCorrelation && any) result.correlationDescription = 'No calendar event matches this transaction by date and place.';
    return result;
  };

  router.post('/ai/calendar/correlation/:id', company, async (req, res) => {
    const ctx = ctxOf(res);
    await aiOn(ctx);
    const t = await ownTransaction(ctx, String(req.params.id));
    res.json({ transactionId: t._id, ...(await calendarAnalysis(ctx, t)) });
  });

  router.get('/ai/calendar/insights', company, async (req, res) => {
    const ctx = ctxOf(res);
    await aiOn(ctx);
    const scope = scopeOf(ctx);
    const [events, calendars] = await Promise.all([
      readAll(store.collection<CalendarEventDoc>(CALENDAR_EVENTS), { companyId: ctx.companyId!, ...(scope.userId ? { userId: scope.userId } : {}) }),
      calendarsOf(store, ctx.companyId!, scope),
    ]);
    let lines: SpendLine[] = [];
    if (events.length > 0) {
      // Only card lines inside the calendars' span (one day either side) are read.
      const from = shift(events.reduce((m, e) => (e.startDay < m ? e.startDay : m), events[0]!.startDay), -1);
      const to = shift(events.reduce((m, e) => (e.endDay > m ? e.endDay : m), events[0]!.endDay), 1);
      const owners = [...new Set(events.map((e) => e.userId))];
      const docs = await readAll(store.collection<TransactionDoc>(TRANSACTIONS), { companyId: ctx.companyId!, ...(scope.userId ? { userId: scope.userId } : { userId: { $in: owners } }), transaction_date: { $gte: from, $lte: to } });
      lines = docs.map(asLine);
    }
    const refs = events.map(asRef);
    const result = deps.insights ? await deps.insights(refs, lines) : calendarInsights(refs, lines);
    res.json({
      calendars: calendars.map((c) => ({ id: c._id, fileName: c.fileName, name: c.calendarName, events: c.eventCount, uploaded_at: c.uploaded_at, user_id: c.userId })),
      trips: result.trips.map((t) => ({
        eventId: t.eventId, userId: t.userId, summary: t.summary, location: t.location, startDate: t.startDay, endDate: t.endDay, days: t.days,
        transactionCount: t.transactionCount, totalSpent: fromCents(t.spentCents),
        byCategory: t.byCategory.map((c) => ({ category: c.category, amount: fromCents(c.spentCents) })),
        transactions: t.transactions.map((x) => ({ id: x.id, date: x.date, description: x.description, amount: fromCents(x.amountCents), category_name: x.category, place: x.place })),
      })),
      totals: { events: result.totals.events, trips: result.totals.trips, correlatedTransactions: result.totals.correlatedTransactions, correlatedSpend: fromCents(result.totals.correlatedSpendCents) },
    });
  });

  router.post('/ai/matching/advanced/:id', company, async (req, res) => {
    const ctx = ctxOf(res);
    await aiOn(ctx);
    const id = String(req.params.id);
    const limit = AdvancedMatchBody.parse(req.body ?? {}).limit ?? 10;
    const scope = scopeOf(ctx);
    const own = { companyId: ctx.companyId!, ...(scope.userId ? { userId: scope.userId } : {}) };
    const receipt = await getReceipt(store, ctx.companyId!, id);
    const transaction = receipt ? null : await getTransaction(store, ctx.companyId!, id);
    if (receipt ? !mine(ctx, receipt.userId) : !transaction || !mine(ctx, transaction.userId)) throw new NotFoundError('No receipt or transaction with this id', 'not_found');
    const rank = deps.rank ?? (async (t: RankTarget, o: Array<ReceiptInput | TransactionInput>, n: number) => rankCandidates(t, o, n));
    let ranked: RankedCandidate[];
    let others: Map<string, ReceiptDoc | TransactionDoc>;
    if (receipt) {
      const date = receipt.extracted_date;
      const window = date ? { transaction_date: { $gte: shift(date, -BEFORE_DAYS), $lte: shift(date, AFTER_DAYS) } } : {};
      const docs = await readAll(store.collection<TransactionDoc>(TRANSACTIONS), { ...own, ...window });
      others = new Map(docs.map((d) => [d._id, d]));
      ranked = await rank({ kind: 'receipt', receipt: asReceipt(receipt) }, docs.map(asTransaction), limit);
    } else {
      const t = transaction!;
      const window = { receipt_date: { $gte: shift(t.transaction_date, -AFTER_DAYS), $lte: shift(t.transaction_date, BEFORE_DAYS) } };
      const docs = await readAll(store.collection<ReceiptDoc>(RECEIPTS), { ...own, processing_status: 'completed', ...window });
      others = new Map(docs.map((d) => [d._id, d]));
      ranked = await rank({ kind: 'transaction', transaction: asTransaction(t) }, docs.map(asReceipt), limit);
    }
    // Where each pair stands: suggested, confirmed or rejected; and candidates already confirmed with something else.
    const side = receipt ? 'transactionId' : 'receiptId';
    const matches = await store.collection<MatchDoc>(MATCHES).find({ companyId: ctx.companyId!, [side]: { $in: ranked.map((r) => r.id) } });
    const statusOf = (candidate: string) => {
      const pair = matches.find((m) => m[side] === candidate && (receipt ? m.receiptId === id : m.transactionId === id));
      if (pair) return pair.status;
      return matches.some((m) => m[side] === candidate && m.status === 'confirmed') ? 'matched_elsewhere' : 'free';
    };
    res.json({
      kind: receipt ? 'receipt' : 'transaction',
      id,
      considered: others.size,
      candidates: ranked.map((r) => {
        const d = others.get(r.id)!;
        const base = { id: r.id, confidence: r.confidence, evidence: r.evidence, status: statusOf(r.id) };
        if (receipt) {
          const t = d as TransactionDoc;
          return { ...base, kind: 'transaction', description: t.description, date: t.transaction_date, amount: fromCents(t.amountCents) };
        }
        const x = d as ReceiptDoc;
        return { ...base, kind: 'receipt', original_filename: x.original_filename, merchant: x.extracted_merchant, date: x.extracted_date, amount: x.extractedCents === null ? null : fromCents(x.extractedCents) };
      }),
    });
  });

  router.get('/ai/matching/stats', company, async (_req, res) => {
    const ctx = ctxOf(res);
    const scope = scopeOf(ctx);
    // One document of the match-figures projection (every match read took 1.6 s at 100,000).
    res.json(await matchFiguresOf(store, ctx.companyId!, scope.userId));
  });


  router.post('/ai/analyze/comprehensive/:id', company, async (req, res) => {
    const ctx = ctxOf(res);
    await aiOn(ctx);
    const t = await ownTransaction(ctx, String(req.params.id));
    const run = async (name: string, f: (() => Promise<Record<string, unknown>>) | undefined) => {
      if (!f) return { error: `The ${name} analysis is not available on this server.` };
      try {
        return await f();
      } catch (error) {
        // A failing analysis says so in its own section; the others stand. No internals leak.
        const e = error as { status?: number; message?: string };
        const message = typeof e.status === 'number' && e.status < 500 && e.message ? e.message : `The ${name} analysis failed.`;
        if (!(typeof e.status === 'number' && e.status < 500)) console.error(`comprehensive analysis: ${name} failed:`, error);
        return { error: message };
      }
    };
    const a = deps.analyzers;
    const [categorization, duplicateAnalysis, recurringAnalysis, calendar] = await Promise.all([
      run('categorization', a.categorization && (() => a.categorization!(ctx, t._id))),
      run('duplicate', a.duplicateAnalysis && (() => a.duplicateAnalysis!(ctx, t._id))),
      run('recurring', a.recurringAnalysis && (() => a.recurringAnalysis!(ctx, t._id))),
      run('calendar', async () => ({ ...(await calendarAnalysis(ctx, t)) })),
    ]);
    res.json({ transactionId: t._id, analysis: { categorization, duplicateAnalysis, recurringAnalysis, calendarAnalysis: calendar } });
  });

  return router;
}
