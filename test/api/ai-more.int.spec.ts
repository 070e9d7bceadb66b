/**
 * Splitting, calendar correlation, advanced matching and the comprehensive analysis
 * through the HTTP API: answers, validation, events in the read models, and scope
 * (a plain member sees and acts on their own records; an admin on the company's).
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceiptReader } from '../../infra/src/receipts/ocr-job';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';

const RECEIPT_TEXT = ['TRAVEL CENTER 55', 'DENVER CO', '2026-03-05', 'UNLEADED FUEL 40.00', 'COFFEE LATTE 5.00', 'TURKEY SANDWICH 8.50', 'SUBTOTAL 53.50', 'TAX 4.00', 'TOTAL 57.50', 'VISA 57.50'].join('\n');

/** OCR as a script: the one receipt of this file reads as a fuel stop with a coffee and a sandwich. */
const reader: ReceiptReader = {
  async read() {
    return {
      source: 'ocr', text: RECEIPT_TEXT,
      fields: { date: '2026-03-05', totalCents: 5750, merchant: 'Travel Center 55', taxCents: 400, description: null },
      confidence: { date: 0.95, totalCents: 0.95, merchant: 0.9 }, ocrConfidence: 90, ms: 1,
    };
  },
};

const ICS = [
  'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Paperlink test//EN', 'X-WR-CALNAME:Work',
  'BEGIN:VTIMEZONE', 'TZID:America/Denver',
  'BEGIN:DAYLIGHT', 'TZOFFSETFROM:-0700', 'TZOFFSETTO:-0600', 'TZNAME:MDT', 'DTSTART:19700308T020000', 'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU', 'END:DAYLIGHT',
  'BEGIN:STANDARD', 'TZOFFSETFROM:-0600', 'TZOFFSETTO:-0700', 'TZNAME:MST', 'DTSTART:19701101T020000', 'RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU', 'END:STANDARD',
  'END:VTIMEZONE',
  'BEGIN:VEVENT', 'UID:trip-1@test', 'DTSTAMP:20260201T000000Z', 'SUMMARY:Trip to Denver', 'LOCATION:Denver\\, CO', 'DTSTART;VALUE=DATE:20260309', 'DTEND;VALUE=DATE:20260313', 'END:VEVENT',
  'BEGIN:VEVENT', 'UID:standup@test', 'DTSTAMP:20260201T000000Z', 'SUMMARY:Site standup', 'LOCATION:Boulder yard',
  'DTSTART;TZID=America/Denver:20260302T233000', 'DTEND;TZID=America/Denver:20260303T000000', 'RRULE:FREQ=WEEKLY;COUNT=5', 'EXDATE;TZID=America/Denver:20260309T233000', 'END:VEVENT',
  'END:VCALENDAR', '',
].join('\r\n');

let api: Api;
let ada: Account;
let bo: Account;
const tx = new Map<string, string>();
let receiptId = '';

const csvOf = (rows: Array<[string, string, string]>) => `Transaction Date,Description,Amount\n${rows.map((r) => r.join(',')).join('\n')}\n`;

async function until<T>(what: string, f: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never: ${what}`);
}

beforeAll(async () => {
  api = await startApi({}, undefined, { reader });
  ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
  bo = await registerAccount(api, { firstName: 'Bo', lastName: 'User' });
  await invite(api, ada, bo, 'user');
  const h = ada.headers();
  const ids = new Map<string, string>();
  for (const c of ['MEALS', 'LODGING', 'FUEL']) ids.set(c, (await api.http.post('/api/masterdata/categories').set(h).send({ name: c }).expect(201)).body.id);
  for (const j of ['J-1', 'J-2']) await api.http.post('/api/masterdata/job_numbers').set(h).send({ name: j }).expect(201);
  for (const [cc, c] of [['01-3300', 'MEALS'], ['01-3400', 'LODGING'], ['01-2200', 'FUEL']]) await api.http.post('/api/masterdata/cost_codes').set(h).send({ name: cc, category_id: ids.get(c!) }).expect(201);
  await api.http.post('/api/transactions/import').set(h).attach('csvFile', Buffer.from(csvOf([
    ['2026-03-10', 'HAMPTON INN DENVER CO', '-412.50'], ['2026-03-11', 'SQ *SNOOZE DENVER CO', '-38.20'], ['2026-03-20', 'SHELL OIL 1050', '-60.00'],
    ['2026-03-05', 'TRAVEL CENTER 55', '-57.50'], ['2026-03-12', 'CHIPOTLE PHOENIX AZ', '-12.00'],
  ])), 'ada.csv').expect(200);
  await api.http.post('/api/transactions/import').set(bo.headers(ada.companyId)).attach('csvFile', Buffer.from(csvOf([['2026-03-11', 'MARRIOTT DENVER CO', '-300.00']])), 'bo.csv').expect(200);
  const list = (await api.http.get('/api/transactions').query({ limit: 100 }).set(h).expect(200)).body.transactions as Array<{ id: string; description: string }>;
  for (const t of list) tx.set(t.description, t.id);
  const png = await sharp({ create: { width: 60, height: 90, channels: 3, background: { r: 255, g: 255, b: 250 } } }).png().toBuffer();
  receiptId = (await api.http.post('/api/receipts/upload').set(h).attach('receipt', png, 'travel-center.png').expect(201)).body.receipt.id;
  // auto-match suggests the receipt for its card line once OCR has read it
  await until('the receipt is suggested for its line', async () => {
    const pending = (await api.http.get('/api/matches/pending').set(h)).body as Array<{ receipt_id: string; transaction_id: string }>;
    return pending.find((m) => m.receipt_id === receiptId && m.transaction_id === tx.get('TRAVEL CENTER 55'));
  });
}, 60_000);
afterAll(async () => api?.close());

const part = (amount: number | null, category: string, cost: string, percentage?: number) => ({ ...(amount === null ? {} : { amount }), ...(percentage === undefined ? {} : { percentage }), category, job_number: 'J-1', cost_code: cost });

describe('splitting', () => {
  it('proposes a split from the matched receipt\'s item lines, scaled to the card amount, without saving it', async () => {
    const id = tx.get('TRAVEL CENTER 55')!;
    const res = await api.http.post(`/api/ai/splitting/${id}`).set(ada.headers()).send({}).expect(200);
    expect(res.body.saved).toBe(false);
    const p = res.body.proposal;
    expect(p.source).toBe('receipt');
    expect(p.receipt_id).toBe(receiptId);
    expect(p.items.map((i: { category_name: string }) => i.category_name)).toEqual(['FUEL', 'MEALS', 'MEALS']);
    expect(p.parts.map((x: { category_name: string }) => x.category_name)).toEqual(['FUEL', 'MEALS']);
    // 40.00 and 13.50 of 53.50 items, scaled to 57.50 (tax spread in proportion), to the cent
    expect(p.parts.map((x: { amount: number }) => x.amount)).toEqual([-42.99, -14.51]);
    expect(p.parts.map((x: { cost_code_name: string }) => x.cost_code_name)).toEqual(['01-2200', '01-3300']);
    expect((await api.http.get(`/api/ai/splitting/${id}`).set(ada.headers()).expect(200)).body.is_split).toBe(false);
  });

  it('saves the proposal as events: the split shows in GET and in the transactions list', async () => {
    const id = tx.get('TRAVEL CENTER 55')!;
    const res = await api.http.post(`/api/ai/splitting/${id}`).set(ada.headers()).send({ save: true }).expect(200);
    expect(res.body).toMatchObject({ saved: true, changed: true });
    const got = (await api.http.get(`/api/ai/splitting/${id}`).set(ada.headers()).expect(200)).body;
    expect(got).toMatchObject({ is_split: true, mode: 'amount', source: 'receipt', receipt_id: receiptId, stale: false });
    expect(got.parts.map((x: { amount: number; category_name: string }) => [x.amount, x.category_name])).toEqual([[-42.99, 'FUEL'], [-14.51, 'MEALS']]);
    const row = ((await api.http.get('/api/transactions').query({ limit: 100 }).set(ada.headers())).body.transactions as Array<{ id: string; splits: unknown[] }>).find((t) => t.id === id)!;
    expect(row.splits).toHaveLength(2);
    const events = await api.paperlink.adapters.events.readStream(`split-${id}`);
    expect(events.map((e) => e.type)).toEqual(['TransactionSplitSaved']);
    // the same split again appends nothing
    expect((await api.http.post(`/api/ai/splitting/${id}`).set(ada.headers()).send({ save: true }).expect(200)).body.changed).toBe(false);
  });

  it('saves a split by percentage: cents by largest remainder, adding up to the amount exactly', async () => {
    const id = tx.get('HAMPTON INN DENVER CO')!;
    const parts = [part(null, 'LODGING', '01-3400', 33.33), part(null, 'LODGING', '01-3400', 33.33), part(null, 'MEALS', '01-3300', 33.34)];
    const res = await api.http.post(`/api/ai/splitting/${id}`).set(ada.headers()).send({ mode: 'percentage', parts }).expect(200);
    const amounts = res.body.split.parts.map((x: { amount: number }) => x.amount);
    // 137.48625, 137.48625 and 137.5275 (of 412.50): the two cents left go to the largest remainders
    expect(amounts).toEqual([-137.49, -137.48, -137.53]);
    expect(Math.round(amounts.reduce((a: number, b: number) => a + b, 0) * 100)).toBe(-41250);
    expect(res.body.split.parts.map((x: { percentage: number }) => x.percentage)).toEqual([33.33, 33.33, 33.34]);
  });

  it('refuses parts that do not add up, unknown names and a single part (400, nothing saved)', async () => {
    const id = tx.get('SHELL OIL 1050')!;
    const h = ada.headers();
    const off = await api.http.post(`/api/ai/splitting/${id}`).set(h).send({ parts: [part(30, 'FUEL', '01-2200'), part(29.99, 'MEALS', '01-3300')] }).expect(400);
    expect(off.body.code).toBe('invalid_split');
    expect(off.body.error).toBe('The parts add up to -59.99, not the transaction amount -60.00');
    const unknown = await api.http.post(`/api/ai/splitting/${id}`).set(h).send({ parts: [part(30, 'FUEL', '01-2200'), part(30, 'Snacks', '01-3300')] }).expect(400);
    expect(JSON.stringify(unknown.body.details)).toMatch(/Unknown category: Snacks/);
    await api.http.post(`/api/ai/splitting/${id}`).set(h).send({ parts: [part(60, 'FUEL', '01-2200')] }).expect(400);
    await api.http.post(`/api/ai/splitting/${id}`).set(h).send({ mode: 'percentage', parts: [part(null, 'FUEL', '01-2200', 50), part(null, 'FUEL', '01-2200', 49.99)] }).expect(400);
    expect((await api.http.get(`/api/ai/splitting/${id}`).set(h).expect(200)).body.is_split).toBe(false);
    // positive parts of an expense are parts of the expense
    const ok = await api.http.post(`/api/ai/splitting/${id}`).set(h).send({ parts: [part(30, 'FUEL', '01-2200'), part(30, 'MEALS', '01-3300')] }).expect(200);
    expect(ok.body.split.parts.map((x: { amount: number }) => x.amount)).toEqual([-30, -30]);
    await api.http.delete(`/api/ai/splitting/${id}`).set(h).expect(200);
    expect((await api.http.get(`/api/ai/splitting/${id}`).set(h).expect(200)).body.is_split).toBe(false);
  });

  it('without a matched receipt proposes an even split and says why', async () => {
    const res = await api.http.post(`/api/ai/splitting/${tx.get('SHELL OIL 1050')}`).set(ada.headers()).send({}).expect(200);
    expect(res.body.proposal.source).toBe('even');
    expect(res.body.proposal.details).toMatch(/No receipt is matched/);
    expect(res.body.proposal.parts.map((x: { amount: number }) => x.amount)).toEqual([-30, -30]);
  });

  it('a plain member splits only their own transactions', async () => {
    const hb = bo.headers(ada.companyId);
    await api.http.post(`/api/ai/splitting/${tx.get('HAMPTON INN DENVER CO')}`).set(hb).send({}).expect(404);
    await api.http.get(`/api/ai/splitting/${tx.get('HAMPTON INN DENVER CO')}`).set(hb).expect(404);
    await api.http.post(`/api/ai/splitting/${tx.get('HAMPTON INN DENVER CO')}`).set(hb).send({ parts: [part(-200, 'LODGING', '01-3400'), part(-212.5, 'MEALS', '01-3300')] }).expect(404);
    const own = tx.get('MARRIOTT DENVER CO')!;
    await api.http.post(`/api/ai/splitting/${own}`).set(hb).send({ parts: [part(-200, 'LODGING', '01-3400'), part(-100, 'MEALS', '01-3300')] }).expect(200);
    expect((await api.http.get(`/api/ai/splitting/${own}`).set(hb).expect(200)).body.is_split).toBe(true);
  });
});

describe('calendar', () => {
  it('refuses what is not an iCalendar file, and a missing file (clear 400s)', async () => {
    const h = ada.headers();
    const bad = await api.http.post('/api/ai/calendar/upload').set(h).attach('calendar', Buffer.from('hello, world\n'), 'notes.ics').expect(400);
    expect(bad.body.code).toBe('bad_calendar');
    const broken = await api.http.post('/api/ai/calendar/upload').set(h).attach('calendar', Buffer.from('BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART;VALUE=DATE:2026\r\n'), 'broken.ics').expect(400);
    expect(broken.body.code).toBe('bad_calendar');
    const empty = await api.http.post('/api/ai/calendar/upload').set(h).attach('calendar', Buffer.from('BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n'), 'empty.ics').expect(400);
    expect(empty.body.code).toBe('empty_calendar');
    expect((await api.http.post('/api/ai/calendar/upload').set(h).expect(400)).body.code).toBe('file_required');
  });

  it('uploads a calendar: recurring events expanded (an EXDATE left out), stored as events', async () => {
    const res = await api.http.post('/api/ai/calendar/upload').set(ada.headers()).attach('calendar', Buffer.from(ICS), 'work.ics').expect(201);
    expect(res.body.calendar).toMatchObject({ fileName: 'work.ics', name: 'Work', events: 5, recurringOccurrences: 4, replaced: false });
    const stored = await api.paperlink.adapters.readStore.collection('calendar_events').find({ companyId: ada.companyId, userId: ada.userId }, { sort: { startDay: 1 } });
    const standups = stored.filter((e) => e.summary === 'Site standup');
    // 23:30 in Denver is the next morning in UTC: the day is the calendar's own
    expect(standups.map((e) => e.startDay)).toEqual(['2026-03-02', '2026-03-16', '2026-03-23', '2026-03-30']);
    expect(standups[0]).toMatchObject({ start: '2026-03-03T06:30:00.000Z', timeZone: 'America/Denver' });
    expect(standups[1]!.start).toBe('2026-03-17T05:30:00.000Z'); // daylight saving time from 8 March
    expect(stored.find((e) => e.summary === 'Trip to Denver')).toMatchObject({ startDay: '2026-03-09', endDay: '2026-03-12', allDay: true });
    // the same file name again replaces it
    const again = await api.http.post('/api/ai/calendar/upload').set(ada.headers()).attach('calendar', Buffer.from(ICS), 'work.ics').expect(201);
    expect(again.body.calendar).toMatchObject({ id: res.body.calendar.id, replaced: true });
    expect(await api.paperlink.adapters.readStore.collection('calendar_events').count({ companyId: ada.companyId })).toBe(5);
  });

  it('correlates a hotel and a meal in Denver with the trip, by date and place; not a purchase elsewhere', async () => {
    const h = ada.headers();
    const hotel = (await api.http.post(`/api/ai/calendar/correlation/${tx.get('HAMPTON INN DENVER CO')}`).set(h).expect(200)).body;
    expect(hotel.hasCorrelation).toBe(true);
    expect(hotel.correlationDescription).toMatch(/Denver.*during "Trip to Denver"/);
    expect(hotel.events[0]).toMatchObject({ summary: 'Trip to Denver', place: 'Denver', strength: 'city' });
    expect((await api.http.post(`/api/ai/calendar/correlation/${tx.get('SQ *SNOOZE DENVER CO')}`).set(h).expect(200)).body.hasCorrelation).toBe(true);
    const phoenix = (await api.http.post(`/api/ai/calendar/correlation/${tx.get('CHIPOTLE PHOENIX AZ')}`).set(h).expect(200)).body;
    expect(phoenix).toMatchObject({ hasCorrelation: false, events: [] });
    expect((await api.http.post(`/api/ai/calendar/correlation/${tx.get('SHELL OIL 1050')}`).set(h).expect(200)).body.hasCorrelation).toBe(false);
  });

  it("a member's spending goes with their own calendar only; insights: trips with their spending, in scope", async () => {
    const hb = bo.headers(ada.companyId);
    const marriott = tx.get('MARRIOTT DENVER CO')!;
    expect((await api.http.post(`/api/ai/calendar/correlation/${marriott}`).set(hb).expect(200)).body.hasCorrelation).toBe(false);
    await api.http.post(`/api/ai/calendar/correlation/${tx.get('HAMPTON INN DENVER CO')}`).set(hb).expect(404);
    const boIcs = ICS.replace('trip-1@test', 'bo-trip@test').replace('Trip to Denver', 'Denver site visit').replace(/BEGIN:VEVENT\r\nUID:standup[\s\S]*?END:VEVENT\r\n/, '');
    await api.http.post('/api/ai/calendar/upload').set(hb).attach('calendar', Buffer.from(boIcs), 'bo.ics').expect(201);
    expect((await api.http.post(`/api/ai/calendar/correlation/${marriott}`).set(hb).expect(200)).body.hasCorrelation).toBe(true);

    const mine = (await api.http.get('/api/ai/calendar/insights').set(hb).expect(200)).body;
    expect(mine.trips.map((t: { summary: string; totalSpent: number }) => [t.summary, t.totalSpent])).toEqual([['Denver site visit', 300]]);
    expect(mine.calendars).toHaveLength(1);
    const all = (await api.http.get('/api/ai/calendar/insights').set(ada.headers()).expect(200)).body;
    const trip = all.trips.find((t: { summary: string }) => t.summary === 'Trip to Denver');
    expect(trip).toMatchObject({ startDate: '2026-03-09', endDate: '2026-03-12', transactionCount: 2, totalSpent: 450.7 });
    expect(trip.transactions.map((t: { description: string }) => t.description)).toEqual(['HAMPTON INN DENVER CO', 'SQ *SNOOZE DENVER CO']);
    expect(all.trips.map((t: { summary: string }) => t.summary).sort()).toEqual(['Denver site visit', 'Trip to Denver']);
    expect(all.totals).toMatchObject({ trips: 2, correlatedTransactions: 3, correlatedSpend: 750.7 });

    // a member removes their own calendar (and nobody else's): its events go, their spending no longer correlates
    const boCalendar = mine.calendars[0].id as string;
    await api.http.delete(`/api/ai/calendar/calendars/${boCalendar}`).set(ada.headers()).expect(404);
    await api.http.delete(`/api/ai/calendar/calendars/${boCalendar}`).set(hb).expect(200);
    await api.http.delete(`/api/ai/calendar/calendars/${boCalendar}`).set(hb).expect(404);
    expect((await api.http.post(`/api/ai/calendar/correlation/${marriott}`).set(hb).expect(200)).body.hasCorrelation).toBe(false);
    expect(await api.paperlink.adapters.readStore.collection('calendar_events').count({ companyId: ada.companyId, userId: bo.userId })).toBe(0);
    expect((await api.http.get('/api/ai/calendar/insights').set(hb).expect(200)).body).toMatchObject({ calendars: [], trips: [] });
  });
});

describe('advanced matching and comprehensive analysis', () => {
  it('scores candidates for a receipt and for a transaction with the engine\'s evidence', async () => {
    const h = ada.headers();
    const line = tx.get('TRAVEL CENTER 55')!;
    const byReceipt = (await api.http.post(`/api/ai/matching/advanced/${receiptId}`).set(h).send({}).expect(200)).body;
    expect(byReceipt.kind).toBe('receipt');
    expect(byReceipt.candidates[0]).toMatchObject({ id: line, kind: 'transaction', status: 'pending', amount: -57.5 });
    expect(byReceipt.candidates[0].confidence).toBeGreaterThanOrEqual(80);
    expect(byReceipt.candidates[0].evidence.reasons.length).toBeGreaterThan(0);
    const scores = byReceipt.candidates.map((c: { confidence: number }) => c.confidence);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const byLine = (await api.http.post(`/api/ai/matching/advanced/${line}`).set(h).send({ limit: 3 }).expect(200)).body;
    expect(byLine.kind).toBe('transaction');
    expect(byLine.candidates[0]).toMatchObject({ id: receiptId, kind: 'receipt', original_filename: 'travel-center.png' });
    // a plain member does not see another member's receipt
    await api.http.post(`/api/ai/matching/advanced/${receiptId}`).set(bo.headers(ada.companyId)).send({}).expect(404);
  });

  it('match stats in scope', async () => {
    const stats = (await api.http.get('/api/ai/matching/stats').set(ada.headers()).expect(200)).body;
    expect(stats).toMatchObject({ total_matches: 1, pending_matches: 1, confirmed_matches: 0, by_origin: { auto: 1 } });
    expect(stats.confidence_bands.high).toBe(1);
    expect((await api.http.get('/api/ai/matching/stats').set(bo.headers(ada.companyId)).expect(200)).body.total_matches).toBe(0);
  });

  it('returns the four analyses, each with its own error when it fails', async () => {
    const res = await api.http.post(`/api/ai/analyze/comprehensive/${tx.get('HAMPTON INN DENVER CO')}`).set(ada.headers()).expect(200);
    const a = res.body.analysis;
    expect(Object.keys(a).sort()).toEqual(['calendarAnalysis', 'categorization', 'duplicateAnalysis', 'recurringAnalysis']);
    expect(a.calendarAnalysis).toMatchObject({ hasCorrelation: true });
    expect(a.calendarAnalysis.error).toBeUndefined();
    expect(a.categorization.error).toBeUndefined();
    expect(a.categorization.confidence).toBeGreaterThanOrEqual(0);
    expect(a.duplicateAnalysis).toMatchObject({ isDuplicate: false, similarTransactions: [] });
    expect(a.recurringAnalysis).toMatchObject({ hasPattern: false, frequency: null });
    // one analysis failing (categorisation switched off) leaves the others standing
    const h = ada.headers();
    await api.http.put('/api/settings/autoCategorization').set(h).send({ value: false }).expect(200);
    try {
      const partial = (await api.http.post(`/api/ai/analyze/comprehensive/${tx.get('HAMPTON INN DENVER CO')}`).set(h).expect(200)).body.analysis;
      expect(partial.categorization.error).toMatch(/switched off/);
      expect(partial.calendarAnalysis).toMatchObject({ hasCorrelation: true });
      expect(partial.duplicateAnalysis.error).toBeUndefined();
    } finally {
      await api.http.put('/api/settings/autoCategorization').set(h).send({ value: true }).expect(200);
    }
    await api.http.post(`/api/ai/analyze/comprehensive/${tx.get('HAMPTON INN DENVER CO')}`).set(bo.headers(ada.companyId)).expect(404);
  });

  it('the AI switch in settings turns the AI reads and proposals off (409), not saving a split by hand', async () => {
    const h = ada.headers();
    await api.http.put('/api/settings/aiEnabled').set(h).send({ value: false }).expect(200);
    try {
      expect((await api.http.post(`/api/ai/calendar/correlation/${tx.get('HAMPTON INN DENVER CO')}`).set(h).expect(409)).body.code).toBe('ai_disabled');
      await api.http.post(`/api/ai/analyze/comprehensive/${tx.get('HAMPTON INN DENVER CO')}`).set(h).expect(409);
      await api.http.post(`/api/ai/splitting/${tx.get('SHELL OIL 1050')}`).set(h).send({}).expect(409);
      await api.http.post(`/api/ai/splitting/${tx.get('SHELL OIL 1050')}`).set(h).send({ parts: [part(-20, 'FUEL', '01-2200'), part(-40, 'MEALS', '01-3300')] }).expect(200);
    } finally {
      await api.http.put('/api/settings/aiEnabled').set(h).send({ value: true }).expect(200);
    }
  });
});
