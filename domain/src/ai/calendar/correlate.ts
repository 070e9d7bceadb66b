/**
 * Spending correlated with calendar events by date and place: a card line whose date falls in
 * an event's days (one day either side, for check-in and posting delays) and whose descriptor
 * names a place the event names in its location or title ("HAMPTON INN DENVER CO" during
 * "Trip to Denver", 12-14 March).
 */
import { dayNumber } from '../../matching/score';

export interface CalendarEventRef {
  id: string;
  userId: string;
  summary: string;
  location: string;
  startDay: string;
  endDay: string;
}

export interface SpendLine {
  id: string;
  userId: string;
  date: string;
  description: string;
  amountCents: number;
  category: string | null;
}

export interface CorrelatedEvent {
  id: string;
  summary: string;
  location: string;
  startDay: string;
  endDay: string;
  /** The place both name, as the descriptor spells it. */
  place: string;
  /** Days from the event's first day to the card line's date (negative: the day before). */
  dayOffset: number;
  /** 'city' when the descriptor names it as a city (before a state code), else 'word'. */
  strength: 'city' | 'word';
}

export interface CorrelationResult {
  hasCorrelation: boolean;
  correlationDescription: string;
  events: CorrelatedEvent[];
}

/** Days either side of an event that still count (a hotel charged at check-out, a late posting). */
export const DAY_SLACK = 1;
/** Events longer than this are not trips (a "Q3" all-quarter event); they never correlate. */
export const MAX_EVENT_DAYS = 31;

const STATES = new Set('AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC'.split(' '));

/** Words that name no place, in event titles and locations. */
const EVENT_STOP = new Set([
  'the', 'and', 'for', 'with', 'from', 'into', 'trip', 'travel', 'meeting', 'meet', 'conference', 'conf', 'summit', 'visit', 'site', 'client',
  'team', 'flight', 'hotel', 'inn', 'dinner', 'lunch', 'breakfast', 'office', 'call', 'review', 'project', 'job', 'week', 'day', 'days',
  'annual', 'quarterly', 'kickoff', 'workshop', 'training', 'expo', 'show', 'trade', 'downtown', 'airport', 'street', 'ave', 'avenue',
  'road', 'blvd', 'suite', 'ste', 'floor', 'building', 'center', 'centre', 'north', 'south', 'east', 'west', 'usa', 'united', 'states',
  'drive', 'lane', 'hwy', 'highway', 'convention', 'room', 'online', 'zoom', 'teams', 'google', 'http', 'https', 'www', 'com', 'holiday',
  'party', 'sync', 'standup', 'check', 'inspection', 'walkthrough', 'walk', 'bid', 'out', 'back', 'home', 'return', 'depart', 'arrive',
  'weekly', 'monthly', 'daily', 'new', 'old', 'plaza', 'park', 'hall', 'tower', 'place', 'square', 'main', 'first', 'second', 'third',
]);

/** Words in card descriptors that name no place. */
const DESCRIPTOR_STOP = new Set([
  'the', 'and', 'pending', 'payment', 'online', 'store', 'market', 'inc', 'llc', 'corp', 'com', 'www', 'city', 'dept', 'services', 'service',
  'express', 'inn', 'hotel', 'suites', 'restaurant', 'grill', 'cafe', 'coffee', 'bar', 'shop', 'station', 'fuel', 'gas', 'oil', 'permits',
  'util', 'utilities', 'rentals', 'rental', 'tools', 'tool', 'supply', 'supplies', 'autopay', 'autocharge', 'purchase', 'debit', 'credit',
  'card', 'pos', 'tst', 'help', 'holiday', 'new',
]);

const lettersOnly = (s: string) => s.toLowerCase().match(/[a-z]+/g) ?? [];

/** The place words of an event (location and title), with the two-word names among them ("salt lake", "san diego"). */
export function eventPlaces(summary: string, location: string): Set<string> {
  const out = new Set<string>();
  for (const text of [location, summary]) {
    const words = lettersOnly(text);
    words.forEach((w, i) => {
      if (w.length >= 3 && !EVENT_STOP.has(w)) out.add(w);
      const next = words[i + 1];
      if (next && !EVENT_STOP.has(w) && !EVENT_STOP.has(next) && w.length >= 2 && next.length >= 3) out.add(`${w} ${next}`);
    });
  }
  return out;
}

/**
 * Where a card descriptor says it is: the one or two words before a US state code ("HAMPTON
 * INN AUSTIN TX", "CITY OF DENVER CO PERMITS") are a city; other words may still name a place.
 */
export function descriptorPlaces(description: string): { cities: string[]; words: string[] } {
  const raw = description.toUpperCase().match(/[A-Z]+/g) ?? [];
  const cities: string[] = [];
  raw.forEach((w, i) => {
    if (i === 0 || !STATES.has(w)) return;
    const one = raw[i - 1]!.toLowerCase();
    if (one.length >= 3 && !DESCRIPTOR_STOP.has(one)) {
      cities.push(one);
      const two = raw[i - 2]?.toLowerCase();
      if (two && two.length >= 2 && !DESCRIPTOR_STOP.has(two)) cities.push(`${two} ${one}`);
    }
  });
  const words = raw.map((w) => w.toLowerCase()).filter((w) => w.length >= 4 && !DESCRIPTOR_STOP.has(w));
  return { cities, words };
}

const title = (s: string) => s.replace(/\b[a-z]/g, (c) => c.toUpperCase());

/** Place words per event, read once per event (insights ask them for every line of its days). */
export type PlacesOf = (e: CalendarEventRef) => Set<string>;
export const placesMemo = (): PlacesOf => {
  const memo = new Map<CalendarEventRef, Set<string>>();
  return (e) => {
    let p = memo.get(e);
    if (!p) memo.set(e, (p = eventPlaces(e.summary, e.location)));
    return p;
  };
};

/** The events a card line belongs to by date and place, best first (a city before a word; then the shortest event). */
export function correlatedEvents(line: Pick<SpendLine, 'date' | 'description'>, events: readonly CalendarEventRef[], placesOf: PlacesOf = (e) => eventPlaces(e.summary, e.location)): CorrelatedEvent[] {
  const day = dayNumber(line.date);
  if (day === null) return [];
  const { cities: found, words } = descriptorPlaces(line.description);
  if (found.length === 0 && words.length === 0) return [];
  // Two-word cities first ("salt lake" before "lake").
  const cities = [...found].sort((a, b) => b.length - a.length);
  const out: CorrelatedEvent[] = [];
  for (const e of events) {
    const start = dayNumber(e.startDay);
    const end = dayNumber(e.endDay);
    if (start === null || end === null || end < start || end - start + 1 > MAX_EVENT_DAYS) continue;
    if (day < start - DAY_SLACK || day > end + DAY_SLACK) continue;
    const places = placesOf(e);
    const city = cities.find((c) => places.has(c));
    const word = city ? undefined : words.find((w) => places.has(w));
    const place = city ?? word;
    if (!place) continue;
    out.push({ id: e.id, summary: e.summary, location: e.location, startDay: e.startDay, endDay: e.endDay, place: title(place), dayOffset: day - start, strength: city ? 'city' : 'word' });
  }
  const span = (e: CorrelatedEvent) => (dayNumber(e.endDay) ?? 0) - (dayNumber(e.startDay) ?? 0);
  return out.sort((a, b) => (a.strength === b.strength ? 0 : a.strength === 'city' ? -1 : 1) || span(a) - span(b) || a.startDay.localeCompare(b.startDay));
}

const when = (e: Pick<CorrelatedEvent, 'startDay' | 'endDay'>) => (e.startDay === e.endDay ? e.startDay : `${e.startDay} to ${e.endDay}`);

export function correlate(line: Pick<SpendLine, 'date' | 'description'>, events: readonly CalendarEventRef[]): CorrelationResult {
  const found = correlatedEvents(line, events);
  const best = found[0];
  if (!best) {
    return {
      hasCorrelation: false,
      correlationDescription: events.length === 0 ? 'No calendar uploaded: upload an iCalendar file to correlate spending with your events.' : 'No calendar event matches this transaction by date and place.',
      events: [],
    };
  }
  const inside = best.dayOffset >= 0 && dayNumber(line.date)! <= dayNumber(best.endDay)! ? 'during' : 'next to';
  const where = best.location ? ` at ${best.location}` : '';
  const more = found.length > 1 ? ` (and ${found.length - 1} more event${found.length > 2 ? 's' : ''})` : '';
  return {
    hasCorrelation: true,
    correlationDescription: `${line.description} in ${best.place} on ${line.date}, ${inside} "${best.summary}" (${when(best)}${where})${more}.`,
    events: found,
  };
}

export interface TripInsight {
  eventId: string;
  userId: string;
  summary: string;
  location: string;
  startDay: string;
  endDay: string;
  days: number;
  transactionCount: number;
  /** Expenses as a positive number of cents (refunds subtract). */
  spentCents: number;
  byCategory: Array<{ category: string; spentCents: number }>;
  transactions: Array<{ id: string; date: string; description: string; amountCents: number; category: string | null; place: string }>;
}

export interface CalendarInsights {
  trips: TripInsight[];
  totals: { events: number; trips: number; correlatedTransactions: number; correlatedSpendCents: number };
}

/**
 * Trips (events with a place that spending happened in) with what was spent during each. A
 * card line counts once, in its best event. Each member's lines go only with their own events.
 * Events are indexed by the days they cover (a month at most, one day either side), so each
 * line is compared only with the events of its own day: lines + event days, not lines × events.
 */
export function calendarInsights(events: readonly CalendarEventRef[], lines: readonly SpendLine[], limit = 100): CalendarInsights {
  const byDay = new Map<string, CalendarEventRef[]>();
  for (const e of events) {
    const start = dayNumber(e.startDay);
    const end = dayNumber(e.endDay);
    if (start === null || end === null || end < start || end - start + 1 > MAX_EVENT_DAYS) continue;
    for (let d = start - DAY_SLACK; d <= end + DAY_SLACK; d++) {
      const key = `${e.userId}|${d}`;
      const list = byDay.get(key);
      if (list) list.push(e);
      else byDay.set(key, [e]);
    }
  }
  const placesOf = placesMemo();
  const byId = new Map(events.map((e) => [e.id, e]));
  const trips = new Map<string, TripInsight>();
  for (const l of lines) {
    const d = dayNumber(l.date);
    const candidates = d === null ? undefined : byDay.get(`${l.userId}|${d}`);
    if (!candidates) continue;
    const best = correlatedEvents(l, candidates, placesOf)[0];
    if (!best) continue;
    const owner = byId.get(best.id)!;
    let trip = trips.get(best.id);
    if (!trip) {
      trip = {
        eventId: best.id, userId: owner.userId, summary: owner.summary, location: owner.location, startDay: owner.startDay, endDay: owner.endDay,
        days: (dayNumber(owner.endDay) ?? 0) - (dayNumber(owner.startDay) ?? 0) + 1, transactionCount: 0, spentCents: 0, byCategory: [], transactions: [],
      };
      trips.set(best.id, trip);
    }
    trip.transactionCount++;
    trip.spentCents -= l.amountCents;
    trip.transactions.push({ id: l.id, date: l.date, description: l.description, amountCents: l.amountCents, category: l.category, place: best.place });
  }
  const list = [...trips.values()].sort((a, b) => b.startDay.localeCompare(a.startDay) || a.summary.localeCompare(b.summary));
  for (const t of list) {
    const cats = new Map<string, number>();
    for (const x of t.transactions) cats.set(x.category ?? 'Uncategorized', (cats.get(x.category ?? 'Uncategorized') ?? 0) - x.amountCents);
    t.byCategory = [...cats.entries()].map(([category, spentCents]) => ({ category, spentCents })).sort((a, b) => b.spentCents - a.spentCents);
    t.transactions.sort((a, b) => a.date.localeCompare(b.date) || a.id.localeCompare(b.id));
  }
  return {
    trips: list.slice(0, limit),
    totals: {
      events: events.length,
      trips: list.length,
      correlatedTransactions: list.reduce((s, t) => s + t.transactionCount, 0),
      correlatedSpendCents: list.reduce((s, t) => s + t.spentCents, 0),
    },
  };
}
