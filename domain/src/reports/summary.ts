/**
 * The summary of a report, folded row by row (rows arrive a page at a time; nothing is kept but
 * the running figures and one entry per category, cost code, job number, month and status).
 * A transaction with a live split (its parts add up to its amount) counts each part under the
 * part's category, cost code and job number; its count in a breakdown is one per part.
 */
import {
  addTally, categoryOf, dashboardFigures, emptyTally, expenseCents, isConfirmedMatch, isIncomplete, isLiveSplit, isMatchedReceipt, isMatchedTransaction, isProcessedReceipt,
  isThisWeek, matchTally, percent, receiptTally, transactionFacts, transactionTally, type DashboardFigures, type Tally,
} from '../analytics/figures';
import type { ReportRow } from './types';

export interface Breakdown {
  key: string;
  count: number;
  totalCents: number;
}

export interface TransactionFigures {
  count: number;
  /** Sum of the signed amounts. */
  netCents: number;
  /** Size of the debits (negative amounts), as a positive number. */
  expenseCents: number;
  creditCents: number;
  salesTaxCents: number;
  matched: { count: number; expenseCents: number; netCents: number };
  unmatched: { count: number; expenseCents: number; netCents: number };
  matchRate: number;
  incomplete: number;
  missing: { description: number; category: number; jobNumber: number; costCode: number };
  completionRate: number;
  firstDate: string | null;
  lastDate: string | null;
  byCategory: Breakdown[];
  byCostCode: Breakdown[];
  byJobNumber: Breakdown[];
  byMonth: Breakdown[];
}

export interface ReceiptFigures {
  count: number;
  totalCents: number;
  processed: number;
  matched: number;
  processingRate: number;
  matchRate: number;
  byStatus: Breakdown[];
}

export interface MatchFigures {
  count: number;
  confirmed: number;
  pending: number;
  averageConfidence: number;
}

export interface ReportSummary {
  /** The figures of GET /analytics/dashboard over the rows in scope (same definitions, domain/src/analytics). */
  dashboard: DashboardFigures;
  transactions: TransactionFigures;
  receipts: ReceiptFigures;
  matches: MatchFigures;
}

const NONE = '(none)';

class Breakdowns {
  private readonly map = new Map<string, Breakdown>();
  add(key: string | null, cents: number): void {
    const k = key && key.trim() ? key.trim() : NONE;
    const b = this.map.get(k);
    if (b) {
      b.count++;
      b.totalCents += cents;
    } else this.map.set(k, { key: k, count: 1, totalCents: cents });
  }
  /** Largest (by size of total) first, then by name. */
  bySize(): Breakdown[] {
    return [...this.map.values()].sort((a, b) => Math.abs(b.totalCents) - Math.abs(a.totalCents) || a.key.localeCompare(b.key));
  }
  byKey(): Breakdown[] {
    return [...this.map.values()].sort((a, b) => a.key.localeCompare(b.key));
  }
}

/** Folds report rows into the summary figures. */
export class SummaryFold {
  private t = { count: 0, net: 0, expense: 0, credit: 0, tax: 0, incomplete: 0, first: null as string | null, last: null as string | null };
  private tm = { count: 0, expenseCents: 0, netCents: 0 };
  private tu = { count: 0, expenseCents: 0, netCents: 0 };
  private missing = { description: 0, category: 0, jobNumber: 0, costCode: 0 };
  private categories = new Breakdowns();
  private costCodes = new Breakdowns();
  private jobNumbers = new Breakdowns();
  private months = new Breakdowns();
  private r = { count: 0, total: 0, processed: 0, matched: 0 };
  private statuses = new Breakdowns();
  private m = { count: 0, confirmed: 0, pending: 0, confidence: 0 };
  /** The dashboard's additive counters, kept in place (a new tally per row cost a second per 100,000 rows). */
  private tally: Tally = emptyTally();
  private readonly tallyCategories = new Map<string, { name: string; cents: number; count: number }>();
  private receiptsThisWeek = 0;

  /** `today` (YYYY-MM-DD) dates receiptsThisWeek, as the dashboard counts it. */
  constructor(private readonly today: string = new Date().toISOString().slice(0, 10)) {}

  add(row: ReportRow): void {
    if (row.type === 'transaction') {
      const t = this.t;
      t.count++;
      t.net += row.amountCents;
      const facts = transactionFacts({ amountCents: row.amountCents, description: row.description, category: row.category, jobNumber: row.jobNumber, costCode: row.costCode, receiptCount: row.receipts.length, split: row.split ?? null });
      this.accumulate(transactionTally(facts));
      const expense = expenseCents(facts);
      t.expense += expense;
      if (row.amountCents > 0) t.credit += row.amountCents;
      t.tax += row.salesTaxCents ?? 0;
      if (t.first === null || row.date < t.first) t.first = row.date;
      if (t.last === null || row.date > t.last) t.last = row.date;
      const side = isMatchedTransaction(facts) ? this.tm : this.tu;
      side.count++;
      side.expenseCents += expense;
      side.netCents += row.amountCents;
      if (isIncomplete(facts)) t.incomplete++;
      for (const g of ['description', 'category', 'jobNumber', 'costCode'] as const) if (facts.missing[g]) this.missing[g]++;
      if (isLiveSplit(row.amountCents, row.split)) {
        // A live split: each part to its own category, cost code and job number (ADR 0014, splits).
        for (const p of row.split.parts) {
          this.categories.add(categoryOf({ category: p.category.trim() || null }), p.amountCents);
          this.costCodes.add(p.costCode, p.amountCents);
          this.jobNumbers.add(p.jobNumber, p.amountCents);
        }
      } else {
        this.categories.add(categoryOf(facts), row.amountCents);
        this.costCodes.add(row.costCode, row.amountCents);
        this.jobNumbers.add(row.jobNumber, row.amountCents);
      }
      this.months.add(row.date.slice(0, 7), row.amountCents);
    } else if (row.type === 'receipt') {
      const record = { processingStatus: row.status, matchCount: row.matched ? 1 : 0, totalCents: row.amountCents };
      this.accumulate(receiptTally(record));
      if (isThisWeek(row.uploadDate, this.today)) this.receiptsThisWeek++;
      this.r.count++;
      this.r.total += row.amountCents ?? 0;
      if (isProcessedReceipt(record)) this.r.processed++;
      if (isMatchedReceipt(record)) this.r.matched++;
      this.statuses.add(row.status, row.amountCents ?? 0);
    } else {
      this.accumulate(matchTally(row.status));
      this.m.count++;
      if (isConfirmedMatch(row.status)) this.m.confirmed++;
      else this.m.pending++;
      this.m.confidence += row.confidence;
    }
  }

  /** Adds one record's tally (addTally's sums, without a new object per record). */
  private accumulate(delta: Tally): void {
    const target = this.tally as unknown as Record<string, number>;
    const add = delta as unknown as Record<string, unknown>;
    for (const k in add) if (typeof add[k] === 'number') target[k]! += add[k];
    for (const c of delta.categories) {
      const prev = this.tallyCategories.get(c.name);
      if (prev) {
        prev.cents += c.cents;
        prev.count += c.count;
      } else this.tallyCategories.set(c.name, { ...c });
    }
  }

  result(): ReportSummary {
    const t = this.t;
    const tally: Tally = addTally(emptyTally(), { ...this.tally, categories: [...this.tallyCategories.values()] });
    return {
      dashboard: dashboardFigures(tally, this.receiptsThisWeek),
      transactions: {
        count: t.count,
        netCents: t.net,
        expenseCents: t.expense,
        creditCents: t.credit,
        salesTaxCents: t.tax,
        matched: { ...this.tm },
        unmatched: { ...this.tu },
        matchRate: percent(this.tm.count, t.count),
        incomplete: t.incomplete,
        missing: { ...this.missing },
        completionRate: t.count > 0 ? percent(t.count - t.incomplete, t.count) : 100,
        firstDate: t.first,
        lastDate: t.last,
        byCategory: this.categories.bySize(),
        byCostCode: this.costCodes.bySize(),
        byJobNumber: this.jobNumbers.bySize(),
        byMonth: this.months.byKey(),
      },
      receipts: {
        count: this.r.count,
        totalCents: this.r.total,
        processed: this.r.processed,
        matched: this.r.matched,
        processingRate: percent(this.r.processed, this.r.count),
        matchRate: percent(this.r.matched, this.r.count),
        byStatus: this.statuses.byKey(),
      },
      matches: {
        count: this.m.count,
        confirmed: this.m.confirmed,
        pending: this.m.pending,
        averageConfidence: this.m.count > 0 ? Math.round((this.m.confidence / this.m.count) * 10) / 10 : 0,
      },
    };
  }
}

export function summarise(rows: Iterable<ReportRow>, today?: string): ReportSummary {
  const fold = new SummaryFold(today);
  for (const r of rows) fold.add(r);
  return fold.result();
}
