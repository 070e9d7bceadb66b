/**
 * The one definition of every analytics figure (spec section 3, "Analytics dashboard response"
 * and "Stats"). The dashboard read model, GET /analytics/dashboard, GET /analytics/export,
 * GET /matches/stats and the PDF/Excel reports all count with these functions, so a figure
 * means the same wherever it is shown.
 *
 * The shape: a record (a transaction, a receipt, a match) contributes a `Tally`, a vector of
 * additive counters; tallies add up over any set of records (a company, a member, a day, a
 * date range) and a change of a record is the difference of its tally after and before.
 * `dashboardFigures` turns a tally into the response's numbers (rates, averages, dollars).
 * Money inside a tally is integer cents; the figures speak dollars.
 */
import { fromCents, type Cents } from '../core/money';
import type { MatchStatus } from '../matches/matches';
import type { ProcessingStatus } from '../receipts/receipt';

/** The name a transaction without a category is totalled under. */
export const UNCATEGORIZED = 'Uncategorized';

/** The four fields a complete transaction has (the edit form requires them: spec section 5). */
export const REQUIRED_TRANSACTION_FIELDS = ['description', 'category', 'jobNumber', 'costCode'] as const;
export type RequiredTransactionField = (typeof REQUIRED_TRANSACTION_FIELDS)[number];
export type MissingFields = Record<RequiredTransactionField, boolean>;

/** A transaction as the figures need it, whatever read model or event it comes from. */
export interface TransactionRecord {
  amountCents: Cents;
  description?: string | null;
  category?: string | null;
  jobNumber?: string | null;
  costCode?: string | null;
  /** Receipts confirmed as matching it (spec: receipt_count). */
  receiptCount: number;
  /** Its saved split (TransactionSplitSaved), when it has one: see `splitFacts`. */
  split?: SplitRecord | null;
}

/** A saved split as the figures need it: the amount it was saved for and its parts (cents signed like the amount). */
export interface SplitRecord {
  totalCents: Cents;
  parts: ReadonlyArray<{ amountCents: Cents; category?: string | null; jobNumber?: string | null; costCode?: string | null }>;
}

/** A part of a live split as the figures keep it. */
export interface SplitPartFacts {
  /** The category as written (trimmed), null when blank. */
  category: string | null;
  amountCents: Cents;
}

/** What the figures keep of a transaction: enough to count it, nothing more. */
export interface TransactionFacts {
  amountCents: Cents;
  /** The category as written (trimmed), null when blank. */
  category: string | null;
  missing: MissingFields;
  receiptCount: number;
  /** The parts of its live split (null: not split, or the split no longer adds up to the amount). */
  parts?: SplitPartFacts[] | null;
}

/** A receipt as the figures need it. */
export interface ReceiptRecord {
  processingStatus: ProcessingStatus;
  /** Confirmed matches of the receipt (spec: match_count). */
  matchCount: number;
  /** The receipt's total as read by OCR or corrected by a person; null when unknown. */
  totalCents: Cents | null;
}

/** A field counts as missing when it is absent, null, or only spaces. */
export function isBlank(value: string | null | undefined): boolean {
  return value === null || value === undefined || value.trim() === '';
}

export function missingFieldsOf(t: Pick<TransactionRecord, RequiredTransactionField>): MissingFields {
  return { description: isBlank(t.description), category: isBlank(t.category), jobNumber: isBlank(t.jobNumber), costCode: isBlank(t.costCode) };
}

export function transactionFacts(t: TransactionRecord): TransactionFacts {
  return splitFacts({ amountCents: t.amountCents, category: isBlank(t.category) ? null : t.category!.trim(), missing: missingFieldsOf(t), receiptCount: t.receiptCount }, t.split);
}

/** A split is live while its parts add up to the transaction's amount (it was saved for that amount); a stale one (split_stale) counts nowhere until saved again. */
export function isLiveSplit(amountCents: Cents, split: SplitRecord | null | undefined): split is SplitRecord {
  return !!split && split.parts.length > 0 && split.totalCents === amountCents;
}

/**
 * The facts of a transaction with its split (ADR 0014, splits): a live split's parts total its
 * expense by their own categories, and the transaction counts as having a category, a job
 * number or a cost code when every part has one (the split decider requires all three on every
 * part). The description stays the transaction's own. A stale or absent split changes nothing.
 */
export function splitFacts(base: TransactionFacts, split: SplitRecord | null | undefined): TransactionFacts {
  if (!isLiveSplit(base.amountCents, split)) return { ...base, parts: null };
  const every = (f: 'category' | 'jobNumber' | 'costCode') => split.parts.every((p) => !isBlank(p[f]));
  return {
    ...base,
    missing: { description: base.missing.description, category: !every('category'), jobNumber: !every('jobNumber'), costCode: !every('costCode') },
    parts: split.parts.map((p) => ({ category: isBlank(p.category) ? null : p.category!.trim(), amountCents: p.amountCents })),
  };
}

/** An expense is a transaction with a negative amount (spec section 3: negative means expense or debit). */
export function isExpense(t: Pick<TransactionFacts, 'amountCents'>): boolean {
  return t.amountCents < 0;
}

/** The size of a transaction's expense in cents: 0 for a credit or a zero amount. */
export function expenseCents(t: Pick<TransactionFacts, 'amountCents'>): Cents {
  return t.amountCents < 0 ? -t.amountCents : 0;
}

/** A matched transaction has at least one confirmed receipt (spec section 4: receipt_count above 0). Pending suggestions do not count. */
export function isMatchedTransaction(t: Pick<TransactionFacts, 'receiptCount'>): boolean {
  return t.receiptCount > 0;
}

/** An incomplete transaction misses at least one of description, category, job number, cost code. */
export function isIncomplete(t: Pick<TransactionFacts, 'missing'>): boolean {
  return t.missing.description || t.missing.category || t.missing.jobNumber || t.missing.costCode;
}

/** The name a transaction's expense is totalled under in `categories`. */
export function categoryOf(t: Pick<TransactionFacts, 'category'>): string {
  return t.category ?? UNCATEGORIZED;
}

/** A processed receipt is one OCR read to the end (processing_status completed); failed, pending and processing ones are not. */
export function isProcessedReceipt(r: Pick<ReceiptRecord, 'processingStatus'>): boolean {
  return r.processingStatus === 'completed';
}

/** A matched receipt has at least one confirmed match (spec section 4: match_count above 0). */
export function isMatchedReceipt(r: Pick<ReceiptRecord, 'matchCount'>): boolean {
  return r.matchCount > 0;
}

/** A confirmed match is one a person confirmed (user_confirmed); a pending one awaits a decision. Rejected, withdrawn and deleted matches count nowhere. */
export function isConfirmedMatch(status: MatchStatus): boolean {
  return status === 'confirmed';
}
export function isPendingMatch(status: MatchStatus): boolean {
  return status === 'pending';
}

export interface CategoryTally {
  name: string;
  cents: Cents;
  count: number;
}

/**
 * Additive counters over a set of records. Every field sums; `categories` sums per name
 * (expense cents). A name whose total falls to zero with no transactions left is dropped.
 */
export interface Tally {
  /** Transactions. */
  transactions: number;
  /** Of which matched (isMatchedTransaction). */
  matchedTransactions: number;
  /** Sum of expenseCents over transactions. */
  expenseCents: Cents;
  /** Sum of expenseCents over matched transactions. */
  matchedExpenseCents: Cents;
  incompleteTransactions: number;
  missingDescription: number;
  missingCategory: number;
  missingJobNumber: number;
  missingCostCode: number;
  /** Receipts (not deleted), processed ones, matched ones. */
  receipts: number;
  processedReceipts: number;
  matchedReceipts: number;
  /** Receipts whose total is known, and the sum of the totals' sizes (for avgAmount). */
  receiptsWithAmount: number;
  receiptAmountCents: Cents;
  pendingMatches: number;
  confirmedMatches: number;
  /**
   * Expense cents per category name (categoryOf), and how many transactions carry each name.
   * A list, not an object keyed by names: names come from people ('__proto__' is a name).
   */
  categories: CategoryTally[];
}

const NUMERIC_KEYS = [
  'transactions', 'matchedTransactions', 'expenseCents', 'matchedExpenseCents', 'incompleteTransactions', 'missingDescription', 'missingCategory',
  'missingJobNumber', 'missingCostCode', 'receipts', 'processedReceipts', 'matchedReceipts', 'receiptsWithAmount', 'receiptAmountCents', 'pendingMatches', 'confirmedMatches',
] as const satisfies ReadonlyArray<keyof Tally>;

export function emptyTally(): Tally {
  return {
    transactions: 0, matchedTransactions: 0, expenseCents: 0, matchedExpenseCents: 0, incompleteTransactions: 0, missingDescription: 0, missingCategory: 0,
    missingJobNumber: 0, missingCostCode: 0, receipts: 0, processedReceipts: 0, matchedReceipts: 0, receiptsWithAmount: 0, receiptAmountCents: 0,
    pendingMatches: 0, confirmedMatches: 0, categories: [],
  };
}

/** What one transaction contributes. */
export function transactionTally(t: TransactionFacts): Tally {
  return addTransactionInto(emptyTally(), t);
}

/**
 * Adds sign × what one transaction contributes into `into` (changes `into`, returns it): the
 * same as addInto(into, transactionTally(t), sign) without building a tally per transaction
 * (an import adds a thousand rows to four tallies per event).
 */
export function addTransactionInto(into: Tally, t: TransactionFacts, sign: 1 | -1 = 1): Tally {
  const expense = expenseCents(t);
  into.transactions += sign;
  into.expenseCents += sign * expense;
  if (isMatchedTransaction(t)) {
    into.matchedTransactions += sign;
    into.matchedExpenseCents += sign * expense;
  }
  if (isIncomplete(t)) into.incompleteTransactions += sign;
  if (t.missing.description) into.missingDescription += sign;
  if (t.missing.category) into.missingCategory += sign;
  if (t.missing.jobNumber) into.missingJobNumber += sign;
  if (t.missing.costCode) into.missingCostCode += sign;
  if (t.parts && t.parts.length > 0) {
    // Each part's expense to its own category (an expense's parts are negative; together they are its expense).
    for (const p of t.parts) addCategoryInto(into, categoryOf(p), sign * expenseCents(p), sign);
  } else addCategoryInto(into, categoryOf(t), sign * expense, sign);
  return into;
}

/** Adds cents and a count to one category of `into`; a category back at zero goes. */
function addCategoryInto(into: Tally, name: string, cents: Cents, count: number): void {
  const list = into.categories;
  let i = 0;
  while (i < list.length && list[i]!.name !== name) i++;
  const prev = list[i];
  const next = { name, cents: (prev?.cents ?? 0) + cents, count: (prev?.count ?? 0) + count };
  if (next.count === 0 && next.cents === 0) {
    if (prev) list.splice(i, 1);
  } else list[i] = next;
}

/** What one receipt contributes. */
export function receiptTally(r: ReceiptRecord): Tally {
  const tally = emptyTally();
  tally.receipts = 1;
  tally.processedReceipts = isProcessedReceipt(r) ? 1 : 0;
  tally.matchedReceipts = isMatchedReceipt(r) ? 1 : 0;
  tally.receiptsWithAmount = r.totalCents === null ? 0 : 1;
  tally.receiptAmountCents = r.totalCents === null ? 0 : Math.abs(r.totalCents);
  return tally;
}

/** What one match contributes (withdrawn, rejected and deleted matches contribute nothing). */
export function matchTally(status: MatchStatus): Tally {
  const tally = emptyTally();
  tally.pendingMatches = isPendingMatch(status) ? 1 : 0;
  tally.confirmedMatches = isConfirmedMatch(status) ? 1 : 0;
  return tally;
}

/** Adds sign·b into `into` (changes `into`, returns it): the accumulator of reducers over many records. */
export function addInto(into: Tally, b: Tally, sign: 1 | -1 = 1): Tally {
  // Field by field (NUMERIC_KEYS, spelled out): a loop over the keys was a keyed access on tallies
  // of many shapes (documents with _id, _pos, days) each time, the costliest part of a rebuild's
  // tally updates (ADR 0028).
  into.transactions += sign * b.transactions;
  into.matchedTransactions += sign * b.matchedTransactions;
  into.expenseCents += sign * b.expenseCents;
  into.matchedExpenseCents += sign * b.matchedExpenseCents;
  into.incompleteTransactions += sign * b.incompleteTransactions;
  into.missingDescription += sign * b.missingDescription;
  into.missingCategory += sign * b.missingCategory;
  into.missingJobNumber += sign * b.missingJobNumber;
  into.missingCostCode += sign * b.missingCostCode;
  into.receipts += sign * b.receipts;
  into.processedReceipts += sign * b.processedReceipts;
  into.matchedReceipts += sign * b.matchedReceipts;
  into.receiptsWithAmount += sign * b.receiptsWithAmount;
  into.receiptAmountCents += sign * b.receiptAmountCents;
  into.pendingMatches += sign * b.pendingMatches;
  into.confirmedMatches += sign * b.confirmedMatches;
  for (const c of b.categories) addCategoryInto(into, c.name, sign * c.cents, sign * c.count);
  return into;
}

/** a + sign·b, as a new tally (neither argument changes). */
export function addTally(a: Tally, b: Tally, sign: 1 | -1 = 1): Tally {
  return addInto({ ...a, categories: [...a.categories] }, b, sign);
}

/** The change from `before` to `after` of one record (null: the record does not exist on that side). */
export function tallyDelta(before: Tally | null, after: Tally | null): Tally {
  return addTally(after ?? emptyTally(), before ?? emptyTally(), -1);
}

export function isZeroTally(t: Tally): boolean {
  return NUMERIC_KEYS.every((k) => t[k] === 0) && t.categories.length === 0;
}

/** Sums any number of tallies. */
export function sumTallies(tallies: Iterable<Tally>): Tally {
  const out = emptyTally();
  for (const t of tallies) addInto(out, t);
  return out;
}

/**
 * The reducer from plain records: what a report or a test computes over a list. The records
 * must be the ones in scope: for an admin the company's; for a member their own transactions
 * and receipts, and the matches both sides of which are theirs (the matches they may see).
 * Matches are given by status.
 */
export function tallyOf(records: { transactions?: Iterable<TransactionRecord>; receipts?: Iterable<ReceiptRecord>; matchStatuses?: Iterable<MatchStatus> }): Tally {
  const out = emptyTally();
  for (const t of records.transactions ?? []) addInto(out, transactionTally(transactionFacts(t)));
  for (const r of records.receipts ?? []) addInto(out, receiptTally(r));
  for (const s of records.matchStatuses ?? []) addInto(out, matchTally(s));
  return out;
}

/** A share in percent with one decimal place; 0 when there is nothing to share (whole 0). */
export function percent(part: number, whole: number): number {
  if (whole <= 0) return 0;
  return Math.round((part / whole) * 1000) / 10;
}

/** Days that count as "this week" for a day: it and the six before (UTC dates, YYYY-MM-DD). */
export const WEEK_DAYS = 7;
export function weekDays(today: string): string[] {
  const end = Date.parse(`${today}T00:00:00Z`);
  if (!Number.isFinite(end)) throw new RangeError(`not a date: ${today}`);
  return Array.from({ length: WEEK_DAYS }, (_, i) => new Date(end - (WEEK_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

/** Whether a receipt uploaded at `uploadedAt` (ISO time) counts in receiptsThisWeek on `today`. */
export function isThisWeek(uploadedAt: string, today: string): boolean {
  return weekDays(today).includes(uploadedAt.slice(0, 10));
}

export interface FinancialFigures {
  /** Sum of the expenses (negative amounts, as positive dollars). */
  totalExpenses: number;
  /** Expenses of matched transactions. */
  matchedExpenses: number;
  /** totalExpenses − matchedExpenses. */
  unmatchedExpenses: number;
  /** matchedExpenses as a percentage of totalExpenses: the share of spending backed by a receipt. */
  matchRate: number;
}

export interface ProcessingFigures {
  /** processedReceipts as a percentage of totalReceipts. */
  processingRate: number;
  /** matchedReceipts as a percentage of totalReceipts: the share of receipts matched to a transaction. */
  matchRate: number;
  /** Average size of the receipts' totals where known, in dollars. */
  avgAmount: number;
  totalReceipts: number;
  processedReceipts: number;
  matchedReceipts: number;
  confirmedMatches: number;
  /** Receipts uploaded today or in the six days before (UTC). */
  receiptsThisWeek: number;
}

export interface MissingFieldFigures {
  incompleteTransactions: number;
  /** Complete transactions as a percentage of all (100 when there are none). */
  completionRate: number;
  missingDescription: number;
  missingCategory: number;
  missingJobNumber: number;
  missingCostCode: number;
  /** Each count as a percentage of all transactions. */
  missingDescriptionPercentage: number;
  missingCategoryPercentage: number;
  missingJobNumberPercentage: number;
  missingCostCodePercentage: number;
}

export interface CategoryFigure {
  category: string;
  /** Expenses in the category, in dollars. */
  total_amount: number;
}

export interface DashboardFigures {
  financial: FinancialFigures;
  processing: ProcessingFigures;
  missingFields: MissingFieldFigures;
  categories: CategoryFigure[];
}

/** Categories by total expenses, largest first (ties by name); names with no expenses are left out. */
export function categoryFigures(t: Tally): CategoryFigure[] {
  return t.categories
    .filter((c) => c.cents > 0)
    .sort((a, b) => b.cents - a.cents || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((c) => ({ category: c.name, total_amount: fromCents(c.cents) }));
}

/** The figures of a tally, as the dashboard response names them. */
export function dashboardFigures(t: Tally, receiptsThisWeek: number): DashboardFigures {
  const n = t.transactions;
  return {
    financial: {
      totalExpenses: fromCents(t.expenseCents),
      matchedExpenses: fromCents(t.matchedExpenseCents),
      unmatchedExpenses: fromCents(t.expenseCents - t.matchedExpenseCents),
      matchRate: percent(t.matchedExpenseCents, t.expenseCents),
    },
    processing: {
      processingRate: percent(t.processedReceipts, t.receipts),
      matchRate: percent(t.matchedReceipts, t.receipts),
      avgAmount: t.receiptsWithAmount === 0 ? 0 : fromCents(Math.round(t.receiptAmountCents / t.receiptsWithAmount)),
      totalReceipts: t.receipts,
      processedReceipts: t.processedReceipts,
      matchedReceipts: t.matchedReceipts,
      confirmedMatches: t.confirmedMatches,
      receiptsThisWeek,
    },
    missingFields: {
      incompleteTransactions: t.incompleteTransactions,
      completionRate: n === 0 ? 100 : percent(n - t.incompleteTransactions, n),
      missingDescription: t.missingDescription,
      missingCategory: t.missingCategory,
      missingJobNumber: t.missingJobNumber,
      missingCostCode: t.missingCostCode,
      missingDescriptionPercentage: percent(t.missingDescription, n),
      missingCategoryPercentage: percent(t.missingCategory, n),
      missingJobNumberPercentage: percent(t.missingJobNumber, n),
      missingCostCodePercentage: percent(t.missingCostCode, n),
    },
    categories: categoryFigures(t),
  };
}

/** The Stats entity of GET /matches/stats (spec section 3), from the same tally. */
export interface MatchStats {
  total_matches: number;
  confirmed_matches: number;
  pending_matches: number;
  unmatched_receipts: number;
  unmatched_transactions: number;
}

export function matchStatsOf(t: Tally): MatchStats {
  return {
    total_matches: t.pendingMatches + t.confirmedMatches,
    confirmed_matches: t.confirmedMatches,
    pending_matches: t.pendingMatches,
    unmatched_receipts: t.receipts - t.matchedReceipts,
    unmatched_transactions: t.transactions - t.matchedTransactions,
  };
}

/** System health as spec section 4 computes it on the client, from the processing figures. */
export const HEALTH = { processingRateFloor: 80, processingPenalty: 20, matchRateFloor: 70, matchPenalty: 15 } as const;
export function systemHealth(p: Pick<ProcessingFigures, 'processingRate' | 'matchRate'>): { status: 'healthy' | 'warning'; score: number } {
  let score = 100;
  let status: 'healthy' | 'warning' = 'healthy';
  if (p.processingRate < HEALTH.processingRateFloor) {
    status = 'warning';
    score -= HEALTH.processingPenalty;
  }
  if (p.matchRate < HEALTH.matchRateFloor) {
    status = 'warning';
    score -= HEALTH.matchPenalty;
  }
  return { status, score };
}
