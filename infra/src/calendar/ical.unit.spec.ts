import { describe, expect, it } from 'vitest';
import { parseICalendar } from './ical';
import { ExpansionBudget, FILE_STEPS, SERIES_STEPS } from './budget';

const NOW = { now: '2026-03-01T12:00:00Z' };
const ics = (...lines: string[]) => Buffer.from(['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//t//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n'));
const event = (...lines: string[]) => ['BEGIN:VEVENT', 'DTSTAMP:20260101T000000Z', ...lines, 'END:VEVENT'];
const NY = ['BEGIN:VTIMEZONE', 'TZID:America/New_York',
  'BEGIN:DAYLIGHT', 'TZOFFSETFROM:-0500', 'TZOFFSETTO:-0400', 'DTSTART:19700308T020000', 'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU', 'END:DAYLIGHT',
  'BEGIN:STANDARD', 'TZOFFSETFROM:-0400', 'TZOFFSETTO:-0500', 'DTSTART:19701101T020000', 'RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU', 'END:STANDARD', 'END:VTIMEZONE'];

describe('iCalendar files', () => {
  it('reads all-day, timed (in its own time zone) and UTC events; DTEND is exclusive', () => {
    const r = parseICalendar(ics(...NY,
      ...event('UID:a', 'SUMMARY:Trip to Austin', 'LOCATION:Austin\\, TX', 'DTSTART;VALUE=DATE:20260310', 'DTEND;VALUE=DATE:20260313'),
      ...event('UID:b', 'SUMMARY:Late call', 'DTSTART;TZID=America/New_York:20260310T220000', 'DTEND;TZID=America/New_York:20260310T230000'),
      ...event('UID:c', 'SUMMARY:Flight', 'DTSTART:20260311T150000Z', 'DURATION:PT3H'),
    ), NOW);
    expect(r.entries.map((e) => [e.uid, e.startDay, e.endDay, e.allDay])).toEqual([['a', '2026-03-10', '2026-03-12', true], ['b', '2026-03-10', '2026-03-10', false], ['c', '2026-03-11', '2026-03-11', false]]);
    expect(r.entries[0]).toMatchObject({ location: 'Austin, TX', start: null });
    // 22:00 in New York (daylight time from 8 March) is 02:00 UTC the next day: the day stays the calendar's
    expect(r.entries[1]).toMatchObject({ start: '2026-03-11T02:00:00.000Z', timeZone: 'America/New_York' });
    expect(r.entries[2]).toMatchObject({ start: '2026-03-11T15:00:00.000Z', end: '2026-03-11T18:00:00.000Z' });
  });

  it('expands recurring events with their exceptions, EXDATEs and the limits', () => {
    const r = parseICalendar(ics(
      ...event('UID:w', 'SUMMARY:Weekly', 'DTSTART;VALUE=DATE:20260302', 'RRULE:FREQ=WEEKLY;COUNT=4', 'EXDATE;VALUE=DATE:20260309'),
      ...event('UID:w', 'RECURRENCE-ID;VALUE=DATE:20260316', 'SUMMARY:Weekly (moved)', 'DTSTART;VALUE=DATE:20260317'),
      ...event('UID:d', 'SUMMARY:Daily forever', 'DTSTART;VALUE=DATE:20250101', 'RRULE:FREQ=DAILY'),
    ), NOW);
    const weekly = r.entries.filter((e) => e.uid.startsWith('w|'));
    expect(weekly.map((e) => [e.startDay, e.summary])).toEqual([['2026-03-02', 'Weekly'], ['2026-03-17', 'Weekly (moved)'], ['2026-03-23', 'Weekly']]);
    const daily = r.entries.filter((e) => e.uid.startsWith('d|'));
    expect(daily).toHaveLength(400);
    expect(r.truncated).toBeGreaterThan(0);
  });

  it('bad input is a clear 400', () => {
    const code = (bytes: Buffer) => {
      try {
        parseICalendar(bytes, NOW);
      } catch (e) {
        return [(e as { status: number }).status, (e as { code: string }).code];
      }
      return null;
    };
    expect(code(Buffer.from('not a calendar'))).toEqual([400, 'bad_calendar']);
    expect(code(Buffer.from([0xff, 0xfe, 0x00]))).toEqual([400, 'bad_calendar']);
    expect(code(Buffer.from('BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART;VALUE=DATE:2026\r\n'))).toEqual([400, 'bad_calendar']);
    expect(code(Buffer.alloc(6 * 1024 * 1024, 0x41))).toEqual([400, 'file_too_large']);
    // an event without a start is skipped, not fatal
    const r = parseICalendar(ics(...event('UID:x', 'SUMMARY:no start'), ...event('UID:y', 'SUMMARY:ok', 'DTSTART;VALUE=DATE:20260301')), NOW);
    expect(r.entries.map((e) => e.uid)).toEqual(['y']);
    expect(r.skipped).toBe(1);
  });

  describe('the expansion is bounded by a budget of steps and time, decided before the work', () => {
    const series = (n: number, rule: string, start: string) =>
      ics(...Array.from({ length: n }, (_, i) => event(`UID:s${i}`, `SUMMARY:s${i}`, `DTSTART:${start}`, `RRULE:${rule}`)).flat());
    const unlimitedTime = () => new ExpansionBudget({ series: SERIES_STEPS, file: FILE_STEPS, timeMs: 1e9 });

    it('a rule whose parts never match (it looped without end inside ical.js) is cut at its series budget', () => {
      const budget = unlimitedTime();
      const r = parseICalendar(series(3, 'FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30', '20260101T000000Z'), { ...NOW, budget });
      expect(r.entries).toEqual([]);
      expect(r.truncated).toBe(3);
      expect(budget.steps).toBeLessThanOrEqual(3 * (SERIES_STEPS + 1));
    });

    it('400 FREQ=SECONDLY events from 1970 (a 33 KB file that held a worker 30 s): the file budget stops the work, the rest is counted as not read', () => {
      const file = series(400, 'FREQ=SECONDLY', '19700101T000000Z');
      expect(file.length).toBeLessThan(60_000);
      const budget = new ExpansionBudget({ series: SERIES_STEPS, file: 12_000, timeMs: 1e9 });
      const r = parseICalendar(file, { ...NOW, budget });
      expect(budget.steps).toBe(12_001);
      expect(r.truncated + r.skipped).toBe(400);
      expect(r.skipped).toBeGreaterThan(300);
    });

    it('the time budget stops a file whose steps are cheap enough to stay under the step budget', () => {
      const budget = new ExpansionBudget({ series: SERIES_STEPS, file: FILE_STEPS, timeMs: 0 });
      const r = parseICalendar(series(50, 'FREQ=SECONDLY', '19700101T000000Z'), { ...NOW, budget });
      expect(budget.steps).toBe(256);
      expect(r.truncated + r.skipped).toBe(50);
    });

    it('a file of ordinary weekly meetings is expanded in full within the budget', () => {
      const r = parseICalendar(series(20, 'FREQ=WEEKLY', '20250301T090000Z'), NOW);
      expect(r.truncated).toBe(0);
      expect(r.skipped).toBe(0);
      expect(r.entries).toHaveLength(20 * 105);
    });
  });
});
