/**
 * The work budget of expanding a file's recurring events. ical.js steps a rule one candidate
 * at a time and, for a rule whose BY parts can never match (FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30),
 * loops inside a single `next()` without end; a YEARLY rule that never matches searches to the
 * year 20000 before its first occurrence. So the budget is counted where ical.js does its work,
 * at every candidate it checks (`check_contracting_rules`) and every year it lays out
 * (`expand_year_days`), and a spent budget throws out of the loop that spends it.
 */
import ICAL from 'ical.js';

/** Candidates one recurring series may check: a daily rule begun ten years ago needs about 4,000. */
export const SERIES_STEPS = 5_000;
/** Candidates a whole file may check: 10-50 µs each, so about a second of work. */
export const FILE_STEPS = 50_000;
/** Wall time a file's expansion may take, whatever the steps cost. */
export const FILE_TIME_MS = 2_000;

/** Thrown out of ical.js when a budget is spent; `file` tells whether the whole file's is. */
export class BudgetSpent extends Error {
  constructor(readonly file: boolean) {
    super(file ? 'calendar expansion budget spent' : 'recurring series budget spent');
  }
}

export class ExpansionBudget {
  private fileSteps = 0;
  private seriesSteps = 0;
  private readonly deadline: number;
  /** Set once the file's budget is spent: no further series is expanded. */
  spent = false;

  constructor(private readonly limits: { series: number; file: number; timeMs: number } = { series: SERIES_STEPS, file: FILE_STEPS, timeMs: FILE_TIME_MS }) {
    this.deadline = performance.now() + limits.timeMs;
  }

  /** A new series starts with its own allowance (the file's keeps counting). */
  startSeries(): void {
    this.seriesSteps = 0;
  }

  step(): void {
    this.fileSteps++;
    this.seriesSteps++;
    if (this.spent || this.fileSteps > this.limits.file || ((this.fileSteps & 255) === 0 && performance.now() > this.deadline)) {
      this.spent = true;
      throw new BudgetSpent(true);
    }
    if (this.seriesSteps > this.limits.series) throw new BudgetSpent(false);
  }

  get steps(): number {
    return this.fileSteps;
  }
}

let active: ExpansionBudget | null = null;

interface IteratorInternals {
  check_contracting_rules(): boolean;
  expand_year_days(year: number): number;
}

const proto = ICAL.RecurIterator.prototype as unknown as IteratorInternals;
const checkRules = proto.check_contracting_rules;
const yearDays = proto.expand_year_days;
// Counted only while a budget is active (a parse in this thread); any other use of ical.js is unchanged.
proto.check_contracting_rules = function (this: IteratorInternals) {
  active?.step();
  return checkRules.call(this);
};
proto.expand_year_days = function (this: IteratorInternals, year: number) {
  active?.step();
  return yearDays.call(this, year);
};

/** Runs `work` (synchronous: the budget is this thread's while it runs) under `budget`. */
export function withBudget<T>(budget: ExpansionBudget, work: () => T): T {
  const previous = active;
  active = budget;
  try {
    return work();
  } finally {
    active = previous;
  }
}
