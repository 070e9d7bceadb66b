import {
  addInto, dashboardFigures, emptyTally, matchStatsOf, weekDays,
  type DashboardFigures, type MatchStats, type ReadStore, type Tally,
} from '@paperlink/domain';
import { getUsers } from '../accounts/users';
import { ANALYTICS_ACTIVITY, ANALYTICS_TALLIES, companyScope, dayBucket, memberScope, type ActivityDoc, type TallyDoc } from './analytics';

/** Whose figures: the company's (an admin) or one member's own (`userId`). */
export interface AnalyticsScope {
  companyId: string;
  userId?: string;
}

const scopeKey = (s: AnalyticsScope) => (s.userId ? memberScope(s.companyId, s.userId) : companyScope(s.companyId));

function asTally(doc: TallyDoc | undefined): Tally {
  if (!doc) return emptyTally();
  const { _id: _ignored, _pos: _p, firstDay: _f, lastDay: _l, ...tally } = doc as TallyDoc & { _pos?: number };
  return { ...emptyTally(), ...tally } as Tally;
}

/** The scope's whole tally: one document. */
export async function scopeTally(store: ReadStore, scope: AnalyticsScope): Promise<Tally> {
  const id = scopeKey(scope);
  return asTally((await store.getMany(ANALYTICS_TALLIES, [id])).get(id) as TallyDoc | undefined);
}

/** Receipts uploaded today and the six days before, from seven day buckets. */
async function receiptsInWeek(store: ReadStore, scope: AnalyticsScope, today: string): Promise<number> {
  const key = scopeKey(scope);
  const found = await store.getMany(ANALYTICS_TALLIES, weekDays(today).map((d) => dayBucket(key, d)));
  let n = 0;
  for (const doc of found.values()) n += (doc as TallyDoc).receipts;
  return n;
}

export interface ActivityView {
  type: 'transaction' | 'receipt' | 'match';
  user_name: string;
  description: string;
  timestamp: string;
}

/** The scope's recent activity (newest first, at most ACTIVITY_LIMIT), with people's names as they are now. */
export async function recentActivity(store: ReadStore, scope: AnalyticsScope): Promise<ActivityView[]> {
  const id = scopeKey(scope);
  const doc = (await store.getMany(ANALYTICS_ACTIVITY, [id])).get(id) as ActivityDoc | undefined;
  // Kept in log order; shown newest first by time (a job's event may be decided a moment before a request's that was logged earlier).
  const items = [...(doc?.items ?? [])].sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0));
  // Jobs act as `system:<job>` (auto-match): shown as System, like events with no user.
  const person = (id: string | null) => (id && !id.startsWith('system:') ? id : null);
  const users = await getUsers(store, [...new Set(items.flatMap((i) => (person(i.userId) ? [i.userId!] : [])))]);
  return items.map((i) => {
    const id = person(i.userId);
    const u = id ? users.get(id) : undefined;
    return { type: i.type, user_name: u ? `${u.firstName} ${u.lastName}`.trim() : id ? 'Former member' : 'System', description: i.description, timestamp: i.timestamp };
  });
}

export type AnalyticsDashboard = Omit<DashboardFigures, 'categories'> & { activity: ActivityView[]; categories: DashboardFigures['categories'] };

/** GET /analytics/dashboard: a few documents whatever the number of transactions. `today` is a UTC date. */
export async function analyticsDashboard(store: ReadStore, scope: AnalyticsScope, today: string): Promise<AnalyticsDashboard> {
  const [tally, week, activity] = await Promise.all([scopeTally(store, scope), receiptsInWeek(store, scope, today), recentActivity(store, scope)]);
  const f = dashboardFigures(tally, week);
  return { financial: f.financial, processing: f.processing, missingFields: f.missingFields, activity, categories: f.categories };
}

/** GET /matches/stats, from the same tally. */
export async function analyticsMatchStats(store: ReadStore, scope: AnalyticsScope): Promise<MatchStats> {
  return matchStatsOf(await scopeTally(store, scope));
}

const DAY_MS = 86_400_000;
const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const dayString = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Buckets read per call to the store. */
const BUCKETS_PER_READ = 2000;

/**
 * The figures of the records dated in [start, end] (inclusive, UTC dates; either may be
 * absent): transactions and their matches on the transaction's date, receipts on their upload
 * day. A sum over the scope's day buckets, clamped to the days it holds.
 * `receiptsThisWeek` counts the seven days ending on the range's last day.
 */
export async function analyticsForRange(store: ReadStore, scope: AnalyticsScope, range: { start?: string; end?: string }): Promise<DashboardFigures & { start: string | null; end: string | null }> {
  const key = scopeKey(scope);
  const whole = (await store.getMany(ANALYTICS_TALLIES, [key])).get(key) as TallyDoc | undefined;
  const first = whole?.firstDay;
  const last = whole?.lastDay;
  const start = range.start && (!first || range.start > first) ? range.start : first;
  const end = range.end && (!last || range.end < last) ? range.end : last;
  const sum = emptyTally();
  if (start && end && start <= end) {
    const from = dayMs(start);
    const to = dayMs(end);
    for (let t = from; t <= to; t += DAY_MS * BUCKETS_PER_READ) {
      const ids: string[] = [];
      for (let d = t; d <= to && d < t + DAY_MS * BUCKETS_PER_READ; d += DAY_MS) ids.push(dayBucket(key, dayString(d)));
      for (const doc of (await store.getMany(ANALYTICS_TALLIES, ids)).values()) addInto(sum, doc as TallyDoc);
    }
  }
  let week = 0;
  const weekEnd = range.end ?? end;
  if (weekEnd) {
    for (const doc of (await store.getMany(ANALYTICS_TALLIES, weekDays(weekEnd).filter((d) => !range.start || d >= range.start).map((d) => dayBucket(key, d)))).values()) week += (doc as TallyDoc).receipts;
  }
  return { ...dashboardFigures(sum, week), start: range.start ?? start ?? null, end: range.end ?? end ?? null };
}
