/**
 * Calendars and advanced matching, on synthetic data: iCalendar parsing
 * (ical.js, recurrences expanded), trip insights (lines indexed by day) against the plain
 * lines × events loop, correlation precision and recall on planted trip spending, and the
 * advanced-matching ranking over its date window against every transaction.
 */
import { calendarInsights, correlatedEvents, rankCandidates, type CalendarEventRef, type SpendLine, type TransactionInput } from '@paperlink/domain';
import { parseICalendar } from '../infra/src/calendar/ical';
import { fmt, median, row, runs } from './lib';

let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
const CITIES: Array<[string, string]> = [['DENVER', 'CO'], ['AUSTIN', 'TX'], ['PHOENIX', 'AZ'], ['BOISE', 'ID'], ['TULSA', 'OK'], ['OMAHA', 'NE'], ['RENO', 'NV'], ['FRESNO', 'CA'], ['TACOMA', 'WA'], ['ALBANY', 'NY'], ['DAYTON', 'OH'], ['MOBILE', 'AL']];
/** Cities no trip goes to: a line there that correlates is a false correlation. */
const ELSEWHERE: Array<[string, string]> = [['MIAMI', 'FL'], ['BOSTON', 'MA'], ['SEATTLE', 'WA'], ['ATLANTA', 'GA'], ['MADISON', 'WI'], ['RALEIGH', 'NC']];
const MERCHANTS = ['HAMPTON INN', 'SQ *SNOOZE', 'SHELL OIL 1050', 'CHIPOTLE 9128', 'HOME DEPOT #5405', 'MARRIOTT', 'UBER TRIP', 'STARBUCKS STORE 9651'];
const day = (d: number) => new Date(Date.UTC(2025, 0, 1) + d * 86_400_000).toISOString().slice(0, 10);

// 1,000 trips of 1-4 days over two years, 1,000 one-day meetings without a place
const events: CalendarEventRef[] = [];
for (let i = 0; i < 1000; i++) {
  const start = Math.floor(rand() * 720);
  const [city, st] = pick(CITIES);
  events.push({ id: `t${i}`, userId: 'u', summary: `Trip to ${city[0]}${city.slice(1).toLowerCase()}`, location: `${city}, ${st}`, startDay: day(start), endDay: day(start + Math.floor(rand() * 4)) });
  events.push({ id: `m${i}`, userId: 'u', summary: 'Weekly review', location: 'Head office', startDay: day(start), endDay: day(start) });
}
// 100,000 card lines: a fifth in a trip's city during the trip (planted), the rest elsewhere; 30 % name no city
const lines: SpendLine[] = [];
const planted = new Set<string>();
for (let i = 0; i < 100_000; i++) {
  const trip = i % 5 === 0 ? events[2 * Math.floor(rand() * 1000)]! : null;
  const [city, st] = trip ? (CITIES.find(([c]) => trip.location.startsWith(c))!) : pick(ELSEWHERE);
  const date = trip ? trip.startDay : day(Math.floor(rand() * 730));
  const plain = rand() < 0.3;
  lines.push({ id: `l${i}`, userId: 'u', date, description: plain ? pick(MERCHANTS) : `${pick(MERCHANTS)} ${city} ${st}`, amountCents: -Math.floor(500 + rand() * 30_000), category: null });
  if (trip && !plain) planted.add(`l${i}`);
}

console.log('  iCalendar parsing (pool worker task, median of 3):');
for (const n of [1000, 5000]) {
  const ev: string[] = [];
  for (let i = 0; i < n; i++) ev.push('BEGIN:VEVENT', `UID:e${i}@b`, 'DTSTAMP:20260101T000000Z', `SUMMARY:${events[i % events.length]!.summary}`, `LOCATION:${events[i % events.length]!.location.replace(',', '\\,')}`, `DTSTART;VALUE=DATE:${events[i % events.length]!.startDay.replace(/-/g, '')}`, 'END:VEVENT');
  ev.push('BEGIN:VEVENT', 'UID:w@b', 'DTSTAMP:20260101T000000Z', 'SUMMARY:Standup', 'DTSTART:20250106T150000Z', 'RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR', 'END:VEVENT');
  const bytes = Buffer.from(['BEGIN:VCALENDAR', 'VERSION:2.0', ...ev, 'END:VCALENDAR', ''].join('\r\n'));
  const ms = median(await runs(3, () => {
    const t = performance.now();
    parseICalendar(bytes, { now: '2026-03-01T00:00:00Z' });
    return performance.now() - t;
  }));
  row(`${fmt(n)} events + a weekly series (${fmt(bytes.length / 1024)} KB)`, `${fmt(ms)} ms`);
}

console.log('  trip insights (2,000 events):');
const small = lines.slice(0, 20_000);
const indexed20 = median(await runs(3, () => {
  const t = performance.now();
  calendarInsights(events, small);
  return performance.now() - t;
}));
const naive = median(await runs(1, () => {
  const t = performance.now();
  for (const l of small) correlatedEvents(l, events);
  return performance.now() - t;
}));
row('20,000 lines, indexed by day', `${fmt(indexed20)} ms`);
row('20,000 lines, every line against every event (baseline)', `${fmt(naive)} ms`, `ratio ${fmt(naive / indexed20, 1)}×`);
let result = calendarInsights(events, lines, Infinity);
const indexed100 = median(await runs(3, () => {
  const t = performance.now();
  result = calendarInsights(events, lines, Infinity);
  return performance.now() - t;
}));
row('100,000 lines, indexed by day', `${fmt(indexed100)} ms`);
const found = new Set(result.trips.flatMap((t) => t.transactions.map((x) => x.id)));
const hits = [...found].filter((id) => planted.has(id)).length;
row('correlated lines: precision (a trip\'s city, within its days)', fmt(hits / Math.max(1, found.size), 3), `${fmt(found.size)} correlated`);
row('correlated lines: recall of planted trip spending', fmt(hits / planted.size, 3), `${fmt(planted.size)} planted (lines with a city)`);

console.log('  advanced matching ranking (matching engine scoreMatch):');
const txs: TransactionInput[] = lines.concat(lines).map((l, i) => ({ id: `x${i}`, amountCents: l.amountCents, date: l.date, description: l.description }));
const receipt = { id: 'r', totalCents: 4250, date: '2025-06-10', merchant: 'Hampton Inn' };
txs.push({ id: 'hit', amountCents: -4250, date: '2025-06-11', description: 'HAMPTON INN DENVER CO' });
const windowed = txs.filter((t) => t.date >= '2025-05-31' && t.date <= '2025-07-20');
let top = '';
const wms = median(await runs(3, () => {
  const t = performance.now();
  top = rankCandidates({ kind: 'receipt', receipt }, windowed, 10)[0]!.id;
  return performance.now() - t;
}));
const all = median(await runs(3, () => {
  const t = performance.now();
  rankCandidates({ kind: 'receipt', receipt }, txs, 10);
  return performance.now() - t;
}));
row(`${fmt(windowed.length)} candidates in the date window`, `${fmt(wms)} ms`, `best: ${top}`);
row(`${fmt(txs.length)} transactions, no window (baseline)`, `${fmt(all)} ms`, `ratio ${fmt(all / wms, 1)}×`);
