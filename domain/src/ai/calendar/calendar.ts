import type { Decider } from '../../core/decider';
import { NotFoundError, ValidationError } from '../../core/errors';

/**
 * A member's calendars in one company, in the stream `calendar-<companyId>.<userId>`: each
 * upload of an iCalendar file records its events (recurring ones expanded into occurrences,
 * dates as the calendar shows them in the event's own time zone). Uploading a file of the same
 * name again replaces that calendar's events.
 */
export interface CalendarEntry {
  /** The event's UID, with the occurrence's date for a recurring one. */
  uid: string;
  summary: string;
  location: string;
  /** First and last day (inclusive) as the calendar shows them, YYYY-MM-DD. */
  startDay: string;
  endDay: string;
  /** The instants in UTC when the calendar gives a time (null for all-day and floating events). */
  start: string | null;
  end: string | null;
  allDay: boolean;
  /** The event's time zone (TZID), when it has one. */
  timeZone: string | null;
  /** An occurrence of a recurring event. */
  recurring: boolean;
}

/** What the parser (infra, off the request thread) makes of a file. */
export interface ParsedCalendar {
  name: string | null;
  entries: CalendarEntry[];
  /**
   * Events that could not be read (no start, a broken rule), counted, and recurring events not
   * expanded once the file's expansion budget was spent (infra/src/calendar/budget.ts).
   */
  skipped: number;
  /**
   * Events left out or cut short past the limits: an event past the file's limit counts one, and
   * so does a recurring series stopped at its occurrence limit or its budget.
   */
  truncated: number;
}

/** Occurrences kept per upload, and per recurring series. */
export const MAX_CALENDAR_ENTRIES = 5000;
export const MAX_OCCURRENCES_PER_SERIES = 400;
/** The upload limit of an iCalendar file. */
export const CALENDAR_MAX_BYTES = 5 * 1024 * 1024;

export type CalendarEvent =
  | {
  type: 'CalendarImported';
  data: {
    companyId: string;
    userId: string;
    calendarId: string;
    fileName: string;
    calendarName: string | null;
    /** Whether an earlier upload of the same name was replaced. */
    replaced: boolean;
    entries: CalendarEntry[];
    skipped: number;
    truncated: number;
  };
} | { type: 'CalendarRemoved'; data: { companyId: string; userId: string; calendarId: string; fileName: string } };

export const CALENDAR_EVENT_TYPES = ['CalendarImported', 'CalendarRemoved'] as const;

export { calendarStream } from '../../core/streams';

export interface CalendarState {
  /** Calendar id by lower-cased file name. */
  byName: ReadonlyMap<string, string>;
}

export type CalendarCommand =
  | { type: 'ImportCalendar'; companyId: string; userId: string; fileName: string; parsed: ParsedCalendar; newId: () => string }
  | { type: 'RemoveCalendar'; companyId: string; userId: string; calendarId: string };

export const calendarDecider: Decider<CalendarState, CalendarCommand, CalendarEvent> = {
  initialState: () => ({ byName: new Map() }),
  evolve(state, event) {
    const byName = new Map(state.byName);
    if (event.type === 'CalendarImported') byName.set(event.data.fileName.toLowerCase(), event.data.calendarId);
    else byName.delete(event.data.fileName.toLowerCase());
    return { byName };
  },
  decide(command, state) {
    if (command.type === 'RemoveCalendar') {
      const name = [...state.byName].find(([, id]) => id === command.calendarId)?.[0];
      // Another member's calendar is in their own stream: here it is not found.
      if (name === undefined) throw new NotFoundError('Calendar not found', 'calendar_not_found');
      return [{ type: 'CalendarRemoved', data: { companyId: command.companyId, userId: command.userId, calendarId: command.calendarId, fileName: name } }];
    }
    const { parsed } = command;
    if (parsed.entries.length === 0) {
      throw new ValidationError(
        parsed.skipped > 0 ? `The calendar has no event that could be read (${parsed.skipped} skipped).` : 'The calendar has no events.',
        undefined,
        'empty_calendar',
      );
    }
    if (parsed.entries.length > MAX_CALENDAR_ENTRIES) throw new ValidationError(`A calendar upload holds at most ${MAX_CALENDAR_ENTRIES} events.`, undefined, 'calendar_too_large');
    const fileName = command.fileName.trim().slice(0, 200) || 'calendar.ics';
    const existing = state.byName.get(fileName.toLowerCase());
    return [{
      type: 'CalendarImported',
      data: {
        companyId: command.companyId,
        userId: command.userId,
        calendarId: existing ?? command.newId(),
        fileName,
        calendarName: parsed.name?.slice(0, 200) ?? null,
        replaced: existing !== undefined,
        entries: parsed.entries,
        skipped: parsed.skipped,
        truncated: parsed.truncated,
      },
    }];
  },
};
