import type { CalendarEntry, CalendarEvent, Doc, Filter, ReadStore, RecordedEvent } from '@paperlink/domain';
import type { Projection } from '../core/projection';

export const CALENDAR_EVENTS = 'calendar_events';
export const CALENDARS = 'calendars';

/** One occurrence of a member's calendar. */
export interface CalendarEventDoc extends Doc, CalendarEntry {
  companyId: string;
  userId: string;
  calendarId: string;
}

/** One uploaded calendar (a file name per member): what it holds now. */
export interface CalendarDoc extends Doc {
  companyId: string;
  userId: string;
  fileName: string;
  calendarName: string | null;
  eventCount: number;
  skipped: number;
  truncated: number;
  uploaded_at: string;
}

const eventId = (calendarId: string, i: number) => `${calendarId}:${i}`;

export const calendarProjection: Projection = {
  name: 'calendar',
  version: 1,
  collections: { [CALENDAR_EVENTS]: [['companyId', 'userId'], ['companyId']], [CALENDARS]: [['companyId', 'userId']] },
  handles: new Set(['CalendarImported', 'CalendarRemoved']),
  async apply(event: RecordedEvent, view) {
    const e = event as unknown as CalendarEvent;
    if (e.type === 'CalendarRemoved') {
      const gone = await view.get<CalendarDoc>(CALENDARS, e.data.calendarId);
      for (let i = 0; i < (gone?.eventCount ?? 0); i++) await view.update<CalendarEventDoc>(CALENDAR_EVENTS, eventId(e.data.calendarId, i), () => null);
      await view.update<CalendarDoc>(CALENDARS, e.data.calendarId, () => null);
      return;
    }
    const d = e.data;
    const before = await view.get<CalendarDoc>(CALENDARS, d.calendarId);
    // A new upload of the same file replaces its events: the ones past the new count go.
    for (let i = d.entries.length; i < (before?.eventCount ?? 0); i++) await view.update<CalendarEventDoc>(CALENDAR_EVENTS, eventId(d.calendarId, i), () => null);
    for (const [i, entry] of d.entries.entries()) {
      const id = eventId(d.calendarId, i);
      await view.update<CalendarEventDoc>(CALENDAR_EVENTS, id, () => ({ _id: id, companyId: d.companyId, userId: d.userId, calendarId: d.calendarId, ...entry }));
    }
    await view.update<CalendarDoc>(CALENDARS, d.calendarId, () => ({
      _id: d.calendarId, companyId: d.companyId, userId: d.userId, fileName: d.fileName, calendarName: d.calendarName,
      eventCount: d.entries.length, skipped: d.skipped, truncated: d.truncated, uploaded_at: event.metadata.occurredAt,
    }));
  },
};

/** The calendar occurrences a viewer may see: a member's own, or (userId unset) the company's. */
export async function calendarEventsOf(store: ReadStore, companyId: string, scope: { userId?: string }, days?: { from: string; to: string }): Promise<CalendarEventDoc[]> {
  const filter: Filter = { companyId, ...(scope.userId ? { userId: scope.userId } : {}) };
  // An event overlaps [from, to] when it starts before `to` and ends after `from`.
  if (days) Object.assign(filter, { startDay: { $lte: days.to }, endDay: { $gte: days.from } });
  return store.collection<CalendarEventDoc>(CALENDAR_EVENTS).find(filter, { sort: { startDay: 1 } });
}

export async function calendarsOf(store: ReadStore, companyId: string, scope: { userId?: string }): Promise<CalendarDoc[]> {
  return store.collection<CalendarDoc>(CALENDARS).find({ companyId, ...(scope.userId ? { userId: scope.userId } : {}) }, { sort: { uploaded_at: -1 } });
}
