/**
 * iCalendar files (RFC 5545) read with ical.js, in a pool worker (a file is up to 5 MB and a
 * recurring rule can ask for thousands of occurrences). Recurring events are expanded into
 * occurrences (with their exceptions and EXDATEs), from two years before the upload to one
 * year after it; days are the days the calendar shows, in each event's own time zone (its
 * VTIMEZONE, registered for this file only). Anything unreadable is a clear 400. The expansion
 * has a budget of steps and time (budget.ts): a file costs its worker about a second at most.
 */
import ICAL from 'ical.js';
import {
  CALENDAR_MAX_BYTES, MAX_CALENDAR_ENTRIES, MAX_OCCURRENCES_PER_SERIES, ValidationError,
  type CalendarEntry, type ParsedCalendar,
} from '@paperlink/domain';
import { BudgetSpent, ExpansionBudget, withBudget } from './budget';

type Time = InstanceType<typeof ICAL.Time>;
type Component = InstanceType<typeof ICAL.Component>;
type IcalEvent = InstanceType<typeof ICAL.Event>;

export interface CalendarParseOptions {
  /** The upload time (ISO): occurrences are kept from two years before to one year after. */
  now: string;
  /** The expansion's budget (budget.ts); a fresh default one per file when not given. */
  budget?: ExpansionBudget;
}

const MAX_TEXT = 300;

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const dayOf = (t: Time) => `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}`;
const clean = (v: unknown) => (typeof v === 'string' ? v.replace(/\s+/g, ' ').trim().slice(0, MAX_TEXT) : '');

function instant(t: Time): string | null {
  if (t.isDate) return null;
  const zone = t.zone as { tzid?: string } | undefined;
  if (!zone?.tzid || zone.tzid === 'floating') return null;
  const d = t.toJSDate();
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

function entryOf(uid: string, summary: string, location: string, start: Time, end: Time | null, recurring: boolean): CalendarEntry {
  const startDay = dayOf(start);
  let endDay = startDay;
  if (end && end.compare(start) > 0) {
    const last = end.clone();
    // DTEND is exclusive: an all-day event ending on the 14th ends on the 13th; so does a timed one ending at midnight.
    if (last.isDate || (last.hour === 0 && last.minute === 0 && last.second === 0)) last.adjust(-1, 0, 0, 0);
    endDay = dayOf(last) < startDay ? startDay : dayOf(last);
  }
  const zone = (start.zone as { tzid?: string } | undefined)?.tzid;
  return {
    uid: recurring ? `${uid}|${startDay}` : uid,
    summary, location, startDay, endDay,
    start: instant(start), end: end ? instant(end) : null,
    allDay: start.isDate,
    timeZone: zone && zone !== 'floating' && zone !== 'UTC' ? zone.slice(0, 100) : zone === 'UTC' ? 'UTC' : null,
    recurring,
  };
}

function decode(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ValidationError('The calendar file is not UTF-8 text: export it again as an iCalendar (.ics) file.', undefined, 'bad_calendar');
  }
  text = text.replace(/^\uFEFF/, '');
  if (!/^\s*BEGIN:VCALENDAR/i.test(text)) throw new ValidationError('The file is not an iCalendar file: it must start with BEGIN:VCALENDAR.', undefined, 'bad_calendar');
  return text;
}

/** Parses an iCalendar file into the occurrences a member's calendar shows. */
export function parseICalendar(bytes: Uint8Array, options: CalendarParseOptions): ParsedCalendar {
  if (bytes.byteLength > CALENDAR_MAX_BYTES) throw new ValidationError('The calendar file must be less than 5MB.', undefined, 'file_too_large');
  const text = decode(bytes);
  let root: Component;
  try {
    const parsed = ICAL.parse(text) as unknown;
    // Several VCALENDARs in one file parse as a list: read the first.
    const first = Array.isArray(parsed) && Array.isArray(parsed[0]) ? parsed[0] : parsed;
    root = new ICAL.Component(first as never);
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/\s+/g, ' ').slice(0, 160) : 'unreadable';
    throw new ValidationError(`The calendar file could not be read: ${why}`, undefined, 'bad_calendar');
  }
  if (root.name !== 'vcalendar') throw new ValidationError('The file is not an iCalendar file (no VCALENDAR).', undefined, 'bad_calendar');
  const now = new Date(options.now);
  const from = ICAL.Time.fromJSDate(new Date(Date.UTC(now.getUTCFullYear() - 2, now.getUTCMonth(), now.getUTCDate())), true);
  const until = ICAL.Time.fromJSDate(new Date(Date.UTC(now.getUTCFullYear() + 1, now.getUTCMonth(), now.getUTCDate())), true);
  const entries: CalendarEntry[] = [];
  let skipped = 0;
  let truncated = 0;
  try {
    for (const tz of root.getAllSubcomponents('vtimezone')) {
      try {
        ICAL.TimezoneService.register(tz);
      } catch {
        // a broken VTIMEZONE: its events read as floating times, their days as written
      }
    }
    const vevents = root.getAllSubcomponents('vevent');
    const exceptions = new Map<string, Component[]>();
    const masters: Component[] = [];
    for (const c of vevents) {
      if (c.hasProperty('recurrence-id')) {
        const uid = String(c.getFirstPropertyValue('uid') ?? '');
        const list = exceptions.get(uid);
        if (list) list.push(c);
        else exceptions.set(uid, [c]);
      } else {
        masters.push(c);
      }
    }
    /** Keeps an occurrence while the file has room; false once it is full. */
    const add = (e: CalendarEntry): boolean => {
      if (entries.length >= MAX_CALENDAR_ENTRIES) return false;
      entries.push(e);
      return true;
    };
    const budget = options.budget ?? new ExpansionBudget();
    for (const [index, c] of masters.entries()) {
      let event: IcalEvent;
      try {
        const uid = String(c.getFirstPropertyValue('uid') ?? '');
        event = new ICAL.Event(c, { strictExceptions: true, exceptions: exceptions.get(uid) ?? [] });
        if (!event.startDate) throw new Error('no DTSTART');
      } catch {
        skipped++;
        continue;
      }
      const uid = clean(event.uid) || `event-${index}`;
      if (!event.isRecurring()) {
        try {
          if (!add(entryOf(uid, clean(event.summary), clean(event.location), event.startDate, event.endDate ?? null, false))) truncated++;
        } catch {
          skipped++;
        }
        continue;
      }
      if (entries.length >= MAX_CALENDAR_ENTRIES) {
        truncated++;
        continue;
      }
      // Past the file's budget, a recurring event is not expanded at all: counted as not read.
      if (budget.spent) {
        skipped++;
        continue;
      }
      const series = expandSeries(event, uid, { from, until }, budget, add);
      if (series === 'failed') skipped++;
      else if (series === 'cut') truncated++;
    }
  } finally {
    ICAL.TimezoneService.reset();
  }
  const name = root.getFirstPropertyValue('x-wr-calname');
  return { name: typeof name === 'string' ? clean(name) || null : null, entries, skipped, truncated };
}

/**
 * One recurring event's occurrences in the window, through `add`, within the budget: 'cut' when
 * the series was stopped at its occurrence limit or its budget (what it found so far is kept).
 */
function expandSeries(event: IcalEvent, uid: string, window: { from: Time; until: Time }, budget: ExpansionBudget, add: (e: CalendarEntry) => boolean): 'done' | 'cut' | 'failed' {
  budget.startSeries();
  let kept = 0;
  try {
    return withBudget(budget, () => {
      // An occurrence that ends before the window is passed without its details (the costly
      // part of a step), unless an exception could move it into the window.
      const endsBefore = Object.keys(event.exceptions).length === 0 ? window.from.toUnixTime() - event.duration.toSeconds() : -Infinity;
      const it = event.iterator();
      for (;;) {
        const next = it.next();
        if (!next || next.compare(window.until) > 0) return 'done';
        if (next.toUnixTime() < endsBefore) continue;
        const details = event.getOccurrenceDetails(next);
        if (details.endDate.compare(window.from) < 0) continue;
        if (kept >= MAX_OCCURRENCES_PER_SERIES) return 'cut';
        kept++;
        const item = details.item;
        if (!add(entryOf(uid, clean(item.summary), clean(item.location), details.startDate, details.endDate, true))) return 'cut';
      }
    });
  } catch (error) {
    if (error instanceof BudgetSpent) return 'cut';
    return kept > 0 ? 'cut' : 'failed';
  }
}
