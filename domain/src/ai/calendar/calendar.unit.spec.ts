import { describe, expect, it } from 'vitest';
import { calendarDecider, type ParsedCalendar } from './calendar';
import { calendarInsights, correlate, descriptorPlaces, eventPlaces, type CalendarEventRef, type SpendLine } from './correlate';

const trip: CalendarEventRef = { id: 'e1', userId: 'u', summary: 'Trip to Denver', location: 'Denver, CO', startDay: '2026-03-09', endDay: '2026-03-12' };
const slc: CalendarEventRef = { id: 'e2', userId: 'u', summary: 'Bid walk', location: '50 W Broadway, Salt Lake City, UT', startDay: '2026-04-02', endDay: '2026-04-02' };
const line = (id: string, date: string, description: string, amountCents = -1000, userId = 'u'): SpendLine => ({ id, userId, date, description, amountCents, category: null });

describe('places', () => {
  it('reads the city before a state code in a card descriptor', () => {
    expect(descriptorPlaces('HAMPTON INN DENVER CO').cities).toContain('denver');
    expect(descriptorPlaces('CITY OF DENVER CO PERMITS').cities).toContain('denver');
    expect(descriptorPlaces('SQ *SNOOZE SALT LAKE CITY UT').cities).toEqual([]);
    expect(descriptorPlaces('SQ *SNOOZE SALT LAKE CITY UT').words).toEqual(expect.arrayContaining(['salt', 'lake']));
  });
  it('takes place words from the event, not its generic words', () => {
    const p = eventPlaces('Trip to Denver', 'Hilton Denver Downtown, 1701 California St');
    expect(p.has('denver')).toBe(true);
    expect(p.has('trip')).toBe(false);
    expect(p.has('downtown')).toBe(false);
  });
});

describe('correlation by date and place', () => {
  it('a hotel in Denver during the trip, and the day after it ends', () => {
    expect(correlate({ date: '2026-03-10', description: 'HAMPTON INN DENVER CO' }, [trip, slc])).toMatchObject({ hasCorrelation: true, events: [{ id: 'e1', place: 'Denver', strength: 'city' }] });
    expect(correlate({ date: '2026-03-13', description: 'HAMPTON INN DENVER CO' }, [trip]).hasCorrelation).toBe(true);
  });
  it('not two days after, not another city, not a descriptor without a place', () => {
    expect(correlate({ date: '2026-03-14', description: 'HAMPTON INN DENVER CO' }, [trip]).hasCorrelation).toBe(false);
    expect(correlate({ date: '2026-03-10', description: 'MARRIOTT PHOENIX AZ' }, [trip]).hasCorrelation).toBe(false);
    expect(correlate({ date: '2026-03-10', description: 'SHELL OIL 1050' }, [trip]).hasCorrelation).toBe(false);
    expect(correlate({ date: '2026-03-10', description: 'SHELL OIL 1050' }, []).correlationDescription).toMatch(/No calendar uploaded/);
  });
  it('a place written without a state code still matches by word', () => {
    expect(correlate({ date: '2026-04-02', description: 'SQ *SNOOZE SALT LAKE CITY UT' }, [slc])).toMatchObject({ hasCorrelation: true, events: [{ id: 'e2', strength: 'word' }] });
  });
});

describe('trip insights', () => {
  it('sums each trip\'s spending, a line once, a member\'s lines with their own events only', () => {
    const lines = [line('a', '2026-03-10', 'HAMPTON INN DENVER CO', -41250), line('b', '2026-03-11', 'SQ *SNOOZE DENVER CO', -3820), line('c', '2026-03-11', 'MARRIOTT DENVER CO', -30000, 'other'), line('d', '2026-03-20', 'HAMPTON INN DENVER CO')];
    const r = calendarInsights([trip, slc], lines);
    expect(r.trips).toHaveLength(1);
    expect(r.trips[0]).toMatchObject({ eventId: 'e1', transactionCount: 2, spentCents: 45070, days: 4 });
    expect(r.totals).toEqual({ events: 2, trips: 1, correlatedTransactions: 2, correlatedSpendCents: 45070 });
  });
});

describe('calendar decider', () => {
  const parsed = (n: number): ParsedCalendar => ({ name: 'Work', skipped: 0, truncated: 0, entries: Array.from({ length: n }, (_, i) => ({ uid: `u${i}`, summary: 's', location: '', startDay: '2026-01-01', endDay: '2026-01-01', start: null, end: null, allDay: true, timeZone: null, recurring: false })) });
  it('refuses an empty calendar; the same file name again replaces its calendar', () => {
    const cmd = { type: 'ImportCalendar' as const, companyId: 'c', userId: 'u', fileName: 'Work.ics', parsed: parsed(2), newId: () => 'cal-1' };
    expect(() => calendarDecider.decide({ ...cmd, parsed: parsed(0) }, calendarDecider.initialState())).toThrow(/no events/);
    const first = calendarDecider.decide(cmd, calendarDecider.initialState());
    const state = first.reduce(calendarDecider.evolve, calendarDecider.initialState());
    const again = calendarDecider.decide({ ...cmd, fileName: 'work.ics', newId: () => 'cal-2' }, state);
    expect(again[0]!.data).toMatchObject({ calendarId: 'cal-1', replaced: true });
  });
});
