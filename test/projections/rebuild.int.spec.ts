import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Doc, ReadStore, RecordedEvent } from '@paperlink/domain';
import { commandEventTypes } from '@paperlink/command-api';
import { allProjections, ProjectionRunner, rebuildInBulk, UnitOfWork } from '@paperlink/projections';
import type { ReceiptReader, ReceiptReading } from '../../infra/src/receipts/ocr-job';
import { EmbeddedReadStore } from '../../infra/src/readstore/embedded';
import { SqliteReadStore } from '../../infra/src/readstore/sqlite';
import { listIndexes } from '../../infra/src/readstore/sqlite-indexes';
import type { SqliteEventStore } from '../../infra/src/eventstore/sqlite';
import { rebuildFlushDocs, rebuildGroups, rebuildInThreads, rebuildThreads } from '../../infra/src/cli/rebuild-threads';
import { invite, registerAccount, settle, startApi, type Account, type Api } from '../support/harness';
import { USER_CHECKPOINT_AFTER } from '../../command-api/src/accounts/user-streams';
import { imageOf, labels } from '../support/labelled-reader';

/** A small seeded generator so the history is random but repeatable. */
function rng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

async function dump(store: ReadStore, collections: string[]): Promise<Record<string, Doc[]>> {
  const out: Record<string, Doc[]> = {};
  for (const c of collections) out[c] = await store.collection(c).find({}, { sort: { _id: 1 } });
  return out;
}

const collections = allProjections().flatMap((p) => Object.keys(p.collections));

/**
 * Every event type the product writes: the ones the feature modules declare (command-api's
 * modules.ts). The log must hold each of them, and nothing else, so that the rebuild and
 * double-apply checks below cover every projector's every branch; a new event type fails this
 * test until its module declares it and it is seeded here.
 */
const KNOWN_EVENT_TYPES = new Set([...allProjections().flatMap((p) => [...p.handles]), ...commandEventTypes]);

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sidOf = (accessToken: string) => decodeJwt(accessToken).sid as string;
type Fields = ReceiptReading['fields'];

/** OCR as a deterministic fake: each file reads as the test says, after failing as often as it says. */
function scriptedReader() {
  const script = new Map<string, { fields: Fields; failures: number }>();
  const reader: ReceiptReader = {
    async read(bytes) {
      const entry = script.get(sha256(bytes));
      if (!entry) throw new Error('a file the test did not script');
      if (entry.failures > 0) {
        entry.failures--;
        throw new Error('scripted engine failure');
      }
      // A date read is day first as the receipt shows (so the merchants' date-order history has votes).
      const dateOrder = entry.fields.date ? { dateOrder: { order: 'day-first' as const, evidence: 'receipt' as const } } : {};
      return { source: 'ocr', text: `${entry.fields.merchant}\n${entry.fields.date}\nTOTAL ${entry.fields.totalCents}`, fields: entry.fields, confidence: { date: 0.9, totalCents: 0.9, merchant: 0.9 }, ...dateOrder, ocrConfidence: 90, ms: 1 };
    },
  };
  const file = (bytes: Buffer, fields: Omit<Fields, 'taxCents' | 'description'>, failures = 0) => {
    script.set(sha256(bytes), { fields: { taxCents: null, description: null, ...fields }, failures });
    return bytes;
  };
  return { reader, file };
}

async function pdfFile(text: string): Promise<Buffer> {
  const PDFDocument = (await import('pdfkit')).default;
  const doc = new PDFDocument({ size: 'A6' });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((r) => doc.on('end', () => r()));
  doc.text(text);
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

/** Until no job runs, the read models hold the whole log, and the log stops growing. */
const quiet = (a: Api) => settle(a, { rounds: 4, everyMs: 100 });

let api: Api;
/** What the read models must say, tracked from the commands alone (not from any projector). */
const expected = {
  users: new Map<string, { firstName: string; lastName: string; email: string }>(),
  members: new Map<string, Map<string, string>>(), // companyId -> userId -> role
  companyNames: new Map<string, string>(),
  /** sessionId -> owner and whether it ended (logout, password change elsewhere). */
  sessions: new Map<string, { userId: string; revoked: boolean }>(),
  /** Users who signed out of all devices. */
  revokedAll: new Set<string>(),
  /** companyId -> `kind|name|categoryId` of every master data item. */
  masterItems: new Map<string, Set<string>>(),
  /** transactionId -> what the lists show. */
  transactions: new Map<string, { companyId: string; userId: string; transaction_date: string; description: string; amountCents: number; category_name?: string; job_number_name?: string; cost_code_name?: string; receipt_count: number }>(),
  /** receiptId -> what the lists show. */
  receipts: new Map<string, { companyId: string; userId: string; original_filename: string; processing_status: string; extracted_date: string | null; extractedCents: number | null; extracted_merchant: string | null; match_count: number }>(),
  /** `receiptId|transactionId` -> status, for the matches that stay. */
  matches: new Map<string, string>(),
};
const startSession = (userId: string, accessToken: string) => expected.sessions.set(sidOf(accessToken), { userId, revoked: false });
const { reader, file } = scriptedReader();

beforeAll(async () => {
  api = await startApi({}, undefined, { reader });
  const random = rng(7);
  const accounts: Account[] = [];
  for (let i = 0; i < 12; i++) {
    const acc = await registerAccount(api, { firstName: `F${i}`, lastName: `L${i}`, companyName: `Co ${i}` });
    accounts.push(acc);
    startSession(acc.userId, acc.accessToken);
    expected.users.set(acc.userId, { firstName: `F${i}`, lastName: `L${i}`, email: acc.email });
    expected.members.set(acc.companyId, new Map([[acc.userId, 'admin']]));
    expected.companyNames.set(acc.companyId, `Co ${i}`);
  }
  const pick = () => accounts[Math.floor(random() * accounts.length)]!;
  for (let step = 0; step < 80; step++) {
    const a = pick();
    const b = pick();
    const roll = random();
    const members = expected.members.get(a.companyId)!;
    if (roll < 0.25) {
      const first = `N${step}`;
      await api.http.put('/api/auth/profile').set(a.headers()).send({ firstName: first, lastName: `S${step}` }).expect(200);
      expected.users.set(a.userId, { ...expected.users.get(a.userId)!, firstName: first, lastName: `S${step}` });
    } else if (roll < 0.5 && a !== b && !members.has(b.userId)) {
      const role = ['user', 'manager', 'admin'][Math.floor(random() * 3)]!;
      await invite(api, a, b, role);
      members.set(b.userId, role);
    } else if (roll < 0.65) {
      const other = [...members.keys()].find((u) => u !== a.userId);
      if (other) {
        const role = members.get(other) === 'user' ? 'manager' : 'user';
        await api.http.put(`/api/companies/current/users/${other}/role`).set(a.headers()).send({ role }).expect(200);
        members.set(other, role);
      }
    } else if (roll < 0.75) {
      const other = [...members.keys()].find((u) => u !== a.userId);
      if (other) {
        await api.http.delete(`/api/companies/current/users/${other}`).set(a.headers()).expect(200);
        members.delete(other);
      }
    } else if (roll < 0.85) {
      const name = `Renamed ${step}`;
      await api.http.put('/api/companies/current').set(a.headers()).send({ name }).expect(200);
      expected.companyNames.set(a.companyId, name);
    } else {
      const res = await api.http.post('/api/auth/login').send({ email: a.email, password: a.password }).expect(200);
      startSession(a.userId, res.body.accessToken);
    }
  }
  await seedSessions(accounts);
  await seedBusiness();
  await quiet(api);
}, 180_000);

/** Sign-in failures, refreshes, sign-outs, a password change and "sign out everywhere". */
async function seedSessions(accounts: Account[]) {
  const [a, b, c] = accounts as [Account, Account, Account];
  await api.http.post('/api/auth/login').send({ email: a.email, password: 'Not-the-password1' }).expect(401);
  // a refresh keeps the session (a new generation), a logout ends it
  const phone = await api.http.post('/api/auth/login').send({ email: a.email, password: a.password }).expect(200);
  startSession(a.userId, phone.body.accessToken);
  const refreshed = await api.http.post('/api/auth/refresh').send({ refreshToken: phone.body.refreshToken }).expect(200);
  expect(sidOf(refreshed.body.accessToken)).toBe(sidOf(phone.body.accessToken));
  await api.http.post('/api/auth/logout').send({ refreshToken: refreshed.body.refreshToken }).expect(200);
  expected.sessions.get(sidOf(phone.body.accessToken))!.revoked = true;
  // a password change ends the user's other sessions and keeps this one (after a wrong current password, which ends nothing)
  const laptop = await api.http.post('/api/auth/login').send({ email: b.email, password: b.password }).expect(200);
  startSession(b.userId, laptop.body.accessToken);
  await api.http.put('/api/auth/password').set({ authorization: `Bearer ${laptop.body.accessToken}` }).send({ currentPassword: 'Not-the-password1', newPassword: 'Changed-Passw0rd' }).expect(400);
  await api.http.put('/api/auth/password').set({ authorization: `Bearer ${laptop.body.accessToken}` }).send({ currentPassword: b.password, newPassword: 'Changed-Passw0rd' }).expect(200);
  for (const [sid, session] of expected.sessions) if (session.userId === b.userId && sid !== sidOf(laptop.body.accessToken)) session.revoked = true;
  b.password = 'Changed-Passw0rd';
  b.accessToken = laptop.body.accessToken;
  // sign out everywhere: the user's mark, the sessions themselves stay as they were
  await api.http.post('/api/auth/logout-all').set({ authorization: `Bearer ${c.accessToken}` }).expect(200);
  expected.revokedAll.add(c.userId);
  // a user stream long enough to be read from a checkpoint (UserSnapshotTaken, ADR 0022)
  const d = accounts[3]!;
  for (let i = 0; i <= USER_CHECKPOINT_AFTER; i++) await api.http.put('/api/auth/profile').set(d.headers()).send({ firstName: `Long${i}`, lastName: 'Stream' }).expect(200);
  expected.users.set(d.userId, { ...expected.users.get(d.userId)!, firstName: `Long${USER_CHECKPOINT_AFTER}`, lastName: 'Stream' });
}

/** Master data, imports, edits, receipts read (and failing, re-read, corrected, deleted), and matches. */
async function seedBusiness() {
  const ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin', companyName: 'Books Ltd' });
  const bo = await registerAccount(api, { firstName: 'Bo', lastName: 'User', companyName: 'Bo Ltd' });
  for (const [acc, first, last, company] of [[ada, 'Ada', 'Admin', 'Books Ltd'], [bo, 'Bo', 'User', 'Bo Ltd']] as const) {
    startSession(acc.userId, acc.accessToken);
    expected.users.set(acc.userId, { firstName: first, lastName: last, email: acc.email });
    expected.members.set(acc.companyId, new Map([[acc.userId, 'admin']]));
    expected.companyNames.set(acc.companyId, company);
  }
  await invite(api, ada, bo, 'user');
  expected.members.get(ada.companyId)!.set(bo.userId, 'user');
  await api.http.put(`/api/companies/current/users/${bo.userId}/statement-names`).set(ada.headers()).send({ names: ['Bo User', 'B USER'] }).expect(200);
  const X = ada.companyId;
  const h = ada.headers();
  const hb = bo.headers(X);

  // master data: add (one with a retry id), rename, delete, import
  const items = new Set<string>();
  expected.masterItems.set(X, items);
  const add = async (kind: string, name: string, categoryId?: string) => {
    const res = await api.http.post(`/api/masterdata/${kind}`).set({ ...h, 'x-request-id': `md-${kind}-${name}` }).send({ name, ...(categoryId ? { category_id: categoryId } : {}) }).expect(201);
    items.add(`${kind}|${name}|${categoryId ?? ''}`);
    return res.body.id as string;
  };
  const travel = await add('categories', 'Travel');
  await add('categories', 'Meals');
  const office = await add('categories', 'Office');
  await api.http.put(`/api/masterdata/categories/${office}`).set(h).send({ name: 'Office Supplies' }).expect(200);
  items.delete('categories|Office|');
  items.add('categories|Office Supplies|');
  await add('job_numbers', 'JOB-1');
  const job2 = await add('job_numbers', 'JOB-2');
  await api.http.delete(`/api/masterdata/job_numbers/${job2}`).set(h).expect(200);
  items.delete('job_numbers|JOB-2|');
  await add('cost_codes', '01-100', travel);
  const imported = await api.http.post('/api/masterdata/job_numbers/import').set(h).attach('csvFile', Buffer.from('Job Number\nJOB-7\nJOB-8\n'), 'jobs.csv').expect(200);
  expect(imported.body.summary).toMatchObject({ imported: 2 });
  items.add('job_numbers|JOB-7|').add('job_numbers|JOB-8|');

  // transactions: the admin's statement, and the user's in a layout she maps by hand
  const rows: Array<[string, string, number]> = [
    ['2024-03-01', 'Blue Bottle Coffee', -450], ['2024-03-02', 'Shell Fuel', -5210], ['2024-03-03', 'Office Depot', -2399],
    ['2024-03-04', 'Hotel Lisboa', -18000], ['2024-03-05', 'Taxi Rank', -1250], ['2024-03-06', 'Bakery', -725], ['2024-03-09', 'Parking Garage', -900],
  ];
  const csv = `Transaction Date,Description,Amount\n${rows.map(([d, t, c]) => `${d},${t},${(c / 100).toFixed(2)}`).join('\n')}\n`;
  const statement = await api.http.post('/api/transactions/import').set(h).attach('csvFile', Buffer.from(csv), 'march.csv');
  expect(statement.status).toBe(200);
  expect(statement.body.imported).toBe(rows.length);
  const boCsv = 'When,What,How much\n07/03/2024,Train Ticket,-33.00\n08/03/2024,Lunch Spot,-15.40\n';
  expect((await api.http.post('/api/transactions/import').set(hb).attach('csvFile', Buffer.from(boCsv), 'bo.csv')).status).toBe(422);
  const mapping = { date: 0, description: 1, amount: 2, dateOrder: 'dmy', amountSign: 'expense-negative' };
  const mapped = await api.http.post('/api/transactions/import').set(hb).field('mapping', JSON.stringify(mapping)).attach('csvFile', Buffer.from(boCsv), 'bo.csv');
  expect(mapped.status).toBe(200);
  expect(mapped.body.imported).toBe(2);
  const all: Array<[string, string, number, Account]> = [...rows.map(([d, t, c]) => [d, t, c, ada] as [string, string, number, Account]), ['2024-03-07', 'Train Ticket', -3300, bo], ['2024-03-08', 'Lunch Spot', -1540, bo]];
  // ids are looked up by what was sent; everything compared later comes from the commands
  const listed = (await api.http.get('/api/transactions').query({ limit: 100 }).set(h).expect(200)).body.transactions as Array<{ id: string; description: string }>;
  const tx = new Map<string, string>();
  for (const [date, description, amountCents, owner] of all) {
    const id = listed.find((t) => t.description === description)?.id;
    expect(id, description).toBeTruthy();
    tx.set(description, id!);
    expected.transactions.set(id!, { companyId: X, userId: owner.userId, transaction_date: date, description, amountCents, receipt_count: 0 });
  }
  const bakery = tx.get('Bakery')!;
  await api.http.put(`/api/transactions/${bakery}`).set(h).send({ description: 'Bakery and Cafe', amount: -7.25, sales_tax: '', category: 'Meals', job_number: 'JOB-1', cost_code: '01-100' }).expect(200);
  Object.assign(expected.transactions.get(bakery)!, { description: 'Bakery and Cafe', category_name: 'Meals', job_number_name: 'JOB-1', cost_code_name: '01-100' });

  // receipts: four that read as four of the admin's lines, one unrelated, one that fails
  // three times (then is read again), one of the user's that reads as her train ticket
  const pngBytes = await sharp({ create: { width: 120, height: 160, channels: 3, background: { r: 250, g: 250, b: 245 } } }).png().toBuffer();
  const pdfBytes = await pdfFile('HOTEL LISBOA\n2024-03-04\nTOTAL 180.00');
  const uploads: Array<{ name: string; bytes: Buffer; who: Account; fields: Omit<Fields, 'taxCents' | 'description'>; failures?: number; direct?: boolean }> = [
    { name: 'coffee.jpg', bytes: imageOf(labels[0]!.id), who: ada, fields: { date: '2024-03-01', totalCents: 450, merchant: 'Blue Bottle Coffee' } },
    { name: 'fuel.jpg', bytes: imageOf(labels[1]!.id), who: ada, fields: { date: '2024-03-02', totalCents: 5210, merchant: 'Shell Fuel' } },
    { name: 'depot.png', bytes: pngBytes, who: ada, fields: { date: '2024-03-03', totalCents: 2399, merchant: 'Office Depot' }, direct: true },
    { name: 'hotel.pdf', bytes: pdfBytes, who: ada, fields: { date: '2024-03-04', totalCents: 18000, merchant: 'Hotel Lisboa' } },
    { name: 'mystery.jpg', bytes: imageOf(labels[2]!.id), who: ada, fields: { date: '2024-02-01', totalCents: 99999, merchant: 'Mystery Vendor' } },
    { name: 'smudged.jpg', bytes: imageOf(labels[3]!.id), who: ada, fields: { date: '2024-01-15', totalCents: 77777, merchant: 'Late Reader' }, failures: 3 },
    { name: 'train.jpg', bytes: imageOf(labels[4]!.id), who: bo, fields: { date: '2024-03-07', totalCents: 3300, merchant: 'Train Ticket' } },
  ];
  const rc = new Map<string, string>();
  for (const u of uploads) {
    file(u.bytes, u.fields, u.failures);
    const headers = u.who.headers(X);
    let res;
    if (u.direct) {
      const pre = await api.http.post('/api/receipts/presign').set(headers).send({ originalName: u.name, contentType: 'image/png', size: u.bytes.length }).expect(200);
      await api.http.put(pre.body.uploadUrl).set('content-type', 'image/png').send(u.bytes).expect(200);
      res = await api.http.post('/api/receipts/commit').set(headers).send({ key: pre.body.key, originalName: u.name, size: u.bytes.length, contentType: 'image/png' });
    } else {
      res = await api.http.post('/api/receipts/upload').set(headers).attach('receipt', u.bytes, u.name);
    }
    expect(res.status, u.name).toBe(201);
    const id = res.body.receipt.id as string;
    rc.set(u.name, id);
    expected.receipts.set(id, { companyId: X, userId: u.who.userId, original_filename: u.name, processing_status: 'completed', extracted_date: u.fields.date, extractedCents: u.fields.totalCents, extracted_merchant: u.fields.merchant, match_count: 0 });
  }
  await quiet(api);
  const smudged = rc.get('smudged.jpg')!;
  expect((await api.http.get(`/api/receipts/${smudged}`).set(h).expect(200)).body.receipt.processing_status).toBe('failed');
  await api.http.post(`/api/receipts/${smudged}/reprocess`).set(h).expect(200);
  const mystery = rc.get('mystery.jpg')!;
  await api.http.put(`/api/receipts/${mystery}`).set(h).send({ extracted_merchant: 'Known Vendor' }).expect(200);
  expected.receipts.get(mystery)!.extracted_merchant = 'Known Vendor';
  await quiet(api);

  // auto-match has proposed each receipt that reads as a line: the four, and the user's train ticket
  const pairs: Array<[string, string]> = [['coffee.jpg', 'Blue Bottle Coffee'], ['fuel.jpg', 'Shell Fuel'], ['depot.png', 'Office Depot'], ['hotel.pdf', 'Hotel Lisboa'], ['train.jpg', 'Train Ticket']];
  const pending = (await api.http.get('/api/matches/pending').set(h).expect(200)).body as Array<{ id: string; receipt_id: string; transaction_id: string }>;
  const matchId = new Map<string, string>();
  for (const [r, t] of pairs) {
    const m = pending.find((p) => p.receipt_id === rc.get(r) && p.transaction_id === tx.get(t));
    expect(m, `${r} ~ ${t}`).toBeTruthy();
    matchId.set(r, m!.id);
  }
  expect(pending).toHaveLength(pairs.length);
  const pair = (r: string, t: string) => `${rc.get(r)}|${tx.get(t)}`;
  const linked = (r: string, t: string, by: number) => {
    expected.receipts.get(rc.get(r)!)!.match_count += by;
    expected.transactions.get(tx.get(t)!)!.receipt_count += by;
  };
  // decisions: confirm, reject, confirm then delete, delete a receipt with a proposal, match by hand
  await api.http.put(`/api/matches/${matchId.get('coffee.jpg')}/confirm`).set(h).expect(200);
  expected.matches.set(pair('coffee.jpg', 'Blue Bottle Coffee'), 'confirmed');
  linked('coffee.jpg', 'Blue Bottle Coffee', 1);
  await api.http.put(`/api/matches/${matchId.get('fuel.jpg')}/reject`).set(h).expect(200);
  expected.matches.set(pair('fuel.jpg', 'Shell Fuel'), 'rejected');
  await api.http.put(`/api/matches/${matchId.get('depot.png')}/confirm`).set(h).expect(200);
  await api.http.delete(`/api/matches/${matchId.get('depot.png')}`).set(h).expect(200);
  await api.http.delete(`/api/receipts/${rc.get('hotel.pdf')}`).set(h).expect(200);
  expected.receipts.delete(rc.get('hotel.pdf')!);
  await api.http.post('/api/matches').set(h).send({ receiptId: mystery, transactionId: tx.get('Taxi Rank') }).expect(200);
  expected.matches.set(pair('mystery.jpg', 'Taxi Rank'), 'confirmed');
  linked('mystery.jpg', 'Taxi Rank', 1);
  expected.matches.set(pair('train.jpg', 'Train Ticket'), 'pending');
  await api.http.delete(`/api/transactions/${tx.get('Parking Garage')}`).set(h).expect(200);
  expected.transactions.delete(tx.get('Parking Garage')!);

  // settings: a general setting with a description, and the two language models
  await api.http.put('/api/settings/autoMatchThreshold').set(h).send({ value: 80, description: 'Stricter matching' }).expect(200);
  await api.http.put('/api/settings/llm/model').set(h).send({ model: 'claude-rebuild-test' }).expect(200);
  await api.http.put('/api/settings/llm/fallback-model').set(h).send({ model: null }).expect(200);

  // splitting and calendars (the AI tools): a split saved, removed and saved again; a calendar uploaded twice (replaced)
  const split = [{ amount: -2.5, category: 'Travel', job_number: 'JOB-1', cost_code: '01-100' }, { amount: -2, category: 'Meals', job_number: 'JOB-1', cost_code: '01-100' }];
  await api.http.post(`/api/ai/splitting/${tx.get('Blue Bottle Coffee')}`).set(h).send({ parts: split }).expect(200);
  await api.http.delete(`/api/ai/splitting/${tx.get('Blue Bottle Coffee')}`).set(h).expect(200);
  const halves = [{ percentage: 50, category: 'Travel', job_number: 'JOB-1', cost_code: '01-100' }, { percentage: 50, category: 'Meals', job_number: 'JOB-7', cost_code: '01-100' }];
  await api.http.post(`/api/ai/splitting/${tx.get('Shell Fuel')}`).set(h).send({ mode: 'percentage', parts: halves }).expect(200);
  const ics = (summary: string) => `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:lisbon@test\r\nSUMMARY:${summary}\r\nLOCATION:Lisboa\r\nDTSTART;VALUE=DATE:20240303\r\nDTEND;VALUE=DATE:20240306\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:weekly@test\r\nSUMMARY:Standup\r\nDTSTART:20240301T090000Z\r\nDTEND:20240301T093000Z\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;
  await api.http.post('/api/ai/calendar/upload').set(h).attach('calendar', Buffer.from(ics('Trip to Lisboa')), 'trips.ics').expect(201);
  await api.http.post('/api/ai/calendar/upload').set(h).attach('calendar', Buffer.from(ics('Lisboa site visit')), 'trips.ics').expect(201);
  const extra = await api.http.post('/api/ai/calendar/upload').set(h).attach('calendar', Buffer.from(ics('Porto')), 'extra.ics').expect(201);
  await api.http.delete(`/api/ai/calendar/calendars/${extra.body.calendar.id}`).set(h).expect(200);
  // learning AI: a prediction and its feedback; two duplicate pairs, one confirmed, one dismissed
  await quiet(api);
  const categories = (await api.http.get('/api/masterdata/categories').set(h).expect(200)).body as Array<{ id: string; name: string }>;
  const mealsId = categories.find((c) => c.name === 'Meals')!.id;
  const predicted = await api.http.post(`/api/ai/categorize/transaction/${tx.get('Blue Bottle Coffee')}`).set(h).expect(200);
  await api.http.post('/api/ai/categorize/feedback').set(h).send({ transactionId: tx.get('Blue Bottle Coffee'), predictedCategoryId: predicted.body.predictedCategoryId, actualCategoryId: mealsId, confidence: predicted.body.confidence }).expect(200);
  const dupRows: Array<[string, string, number]> = [['2024-03-10', 'Hardware Barn 12', -4000], ['2024-03-11', 'Hardware Barn 12 PENDING', -4000], ['2024-03-12', 'Copy Corner', -1200], ['2024-03-13', 'Copy Corner', -1200]];
  const dupCsv = `Transaction Date,Description,Amount\n${dupRows.map(([d, t, c]) => `${d},${t},${(c / 100).toFixed(2)}`).join('\n')}\n`;
  // in Bo's own company, where no receipt waits for auto-match
  const hbo = bo.headers();
  expect((await api.http.post('/api/transactions/import').set(hbo).attach('csvFile', Buffer.from(dupCsv), 'dups.csv').expect(200)).body.imported).toBe(dupRows.length);
  const relisted = (await api.http.get('/api/transactions').query({ limit: 100 }).set(hbo).expect(200)).body.transactions as Array<{ id: string; description: string; transaction_date: string }>;
  const dupIds: string[] = [];
  for (const [date, description, amountCents] of dupRows) {
    const id = relisted.find((t) => t.description === description && t.transaction_date === date)!.id;
    dupIds.push(id);
    expected.transactions.set(id, { companyId: bo.companyId, userId: bo.userId, transaction_date: date, description, amountCents, receipt_count: 0 });
  }
  const hardware = await api.http.post(`/api/ai/duplicates/check/${dupIds[0]}`).set(hbo).expect(200);
  const copies = await api.http.post(`/api/ai/duplicates/check/${dupIds[2]}`).set(hbo).expect(200);
  expect([hardware.body.duplicateAnalysis.isDuplicate, copies.body.duplicateAnalysis.isDuplicate]).toEqual([true, true]);
  await api.http.put(`/api/ai/duplicates/groups/${hardware.body.duplicateAnalysis.groupId}`).set(hbo).send({ status: 'confirmed' }).expect(200);
  await api.http.put(`/api/ai/duplicates/groups/${copies.body.duplicateAnalysis.groupId}`).set(hbo).send({ status: 'dismissed' }).expect(200);
}
afterAll(async () => api.close());

describe('read models', () => {
  it('built incrementally, equal what the commands imply (computed without the projectors)', async () => {
    const store = api.paperlink.adapters.readStore;
    for (const [id, u] of expected.users) {
      expect(await store.collection('users').findOne({ _id: id })).toMatchObject(u);
    }
    for (const [companyId, members] of expected.members) {
      const docs = await store.collection('memberships').find({ companyId });
      expect(Object.fromEntries(docs.map((d) => [d.userId, d.role]))).toEqual(Object.fromEntries(members));
      expect(await store.collection('companies').findOne({ _id: companyId })).toMatchObject({ name: expected.companyNames.get(companyId), userCount: members.size });
    }
    const users = await store.collection('users').find({});
    expect(users.map((u) => u._id).sort()).toEqual([...expected.users.keys()].sort());
    for (const u of users) expect(u.sessionsRevokedAt !== null, u._id).toBe(expected.revokedAll.has(u._id));
    const sessions = await store.collection('sessions').find({});
    expect(Object.fromEntries(sessions.map((d) => [d._id, { userId: d.userId, revoked: d.revoked }]))).toEqual(Object.fromEntries(expected.sessions));
    expect(sessions.some((d) => d.revoked)).toBe(true);
  });

  it('master data, transactions, receipts and matches equal what the commands imply', async () => {
    const store = api.paperlink.adapters.readStore;
    for (const m of [expected.masterItems, expected.transactions, expected.receipts, expected.matches]) expect(m.size).toBeGreaterThan(0);
    expect(new Set(expected.matches.values())).toEqual(new Set(['confirmed', 'rejected', 'pending']));
    for (const [companyId, items] of expected.masterItems) {
      const docs = await store.collection('master_items').find({ companyId });
      expect(new Set(docs.map((d) => `${d.kind}|${d.name}|${d.categoryId ?? ''}`))).toEqual(items);
    }
    const txs = await store.collection('transactions').find({});
    expect(txs.map((t) => t._id).sort()).toEqual([...expected.transactions.keys()].sort());
    for (const t of txs) {
      const e = expected.transactions.get(t._id)!;
      expect(t, e.description).toMatchObject({ ...e, category_name: e.category_name ?? t.category_name, job_number_name: e.job_number_name ?? t.job_number_name, cost_code_name: e.cost_code_name ?? t.cost_code_name });
      expect((t.receipts as string[]).length).toBe(e.receipt_count);
    }
    // the statistics and duplicate keys count the live transactions of each company
    const perCompany = new Map<string, number>();
    for (const t of expected.transactions.values()) perCompany.set(t.companyId, (perCompany.get(t.companyId) ?? 0) + 1);
    for (const [companyId, n] of perCompany) {
      expect(await store.collection('company_stats').findOne({ _id: companyId })).toMatchObject({ transactionCount: n });
      const keys = (await store.collection('transaction_keys').find({})).filter((k) => k._id.startsWith(`${companyId}|`));
      expect(keys.reduce((sum, k) => sum + (k.count as number), 0)).toBe(n);
    }
    const receipts = await store.collection('receipts').find({});
    expect(receipts.map((r) => r._id).sort()).toEqual([...expected.receipts.keys()].sort());
    for (const r of receipts) expect(r, String(r.original_filename)).toMatchObject(expected.receipts.get(r._id)!);
    const matches = await store.collection('matches').find({});
    expect(Object.fromEntries(matches.map((m) => [`${m.receiptId}|${m.transactionId}`, m.status]))).toEqual(Object.fromEntries(expected.matches));
  });

  it('the log holds every event type the product writes (so the checks below cover every projector)', async () => {
    const events = await api.paperlink.adapters.events.readAll({ after: 0, maxCount: 1_000_000 });
    const seen = new Set(events.map((e) => e.type));
    const counts = Object.fromEntries([...seen].sort().map((t) => [t, events.filter((e) => e.type === t).length]));
    console.log(`rebuild test: ${events.length} events of ${seen.size} types: ${JSON.stringify(counts)}`);
    expect([...KNOWN_EVENT_TYPES].filter((t) => !seen.has(t)), 'known event types never seeded').toEqual([]);
    expect([...seen].filter((t) => !KNOWN_EVENT_TYPES.has(t)), 'event types this test does not know').toEqual([]);
  });

  it('every collection of every projection has documents', async () => {
    const live = await dump(api.paperlink.adapters.readStore, collections);
    expect(Object.entries(live).filter(([, docs]) => docs.length === 0).map(([c]) => c)).toEqual([]);
  });

  it('rebuilt from position zero equal the incrementally built ones', async () => {
    const live = await dump(api.paperlink.adapters.readStore, collections);
    const fresh = new EmbeddedReadStore();
    const runner = new ProjectionRunner(api.paperlink.adapters.events, fresh, allProjections());
    const progress: number[] = [];
    const result = await runner.rebuild((p) => progress.push(p.processed), 50);
    expect(result.events).toBe(await api.paperlink.adapters.events.headPosition());
    expect(progress.length).toBeGreaterThan(1);
    for (const c of collections) expect(live[c]!.length, c).toBeGreaterThan(0);
    expect(await dump(fresh, collections)).toEqual(live);
  });

  it('rebuilt in bulk (make rebuild, ADR 0028) into SQLite over many flushes equal the incrementally built ones', async () => {
    const live = await dump(api.paperlink.adapters.readStore, collections);
    const events = api.paperlink.adapters.events;
    const head = await events.headPosition();
    const fresh = new SqliteReadStore(':memory:', { extraIndexes: listIndexes() });
    // What the rebuild replaces: a document of a collection and a checkpoint at the head.
    await fresh.commit(new Map([['transactions', new Map([['stale', { _id: 'stale', companyId: 'x' }]])]]), [{ name: 'transactions', version: 1, position: head }]);
    const progress: number[] = [];
    // Flushes of 40 documents: documents written in one flush are read back and changed in later ones.
    const result = await rebuildInBulk(events, fresh, allProjections(), { flushDocs: 40, onProgress: (p) => progress.push(p.processed) });
    expect(result.events).toBe(head);
    expect(result.flushes).toBeGreaterThan(5);
    expect(progress.length).toBeGreaterThan(0);
    expect(await dump(fresh, collections)).toEqual(live);
    const checkpoints = await fresh.getCheckpoints();
    expect(Object.fromEntries(checkpoints.map((c) => [c.name, c.position]))).toEqual(Object.fromEntries(allProjections().map((p) => [p.name, head])));
    // The indexes a collection filled from empty waited for are built by the end.
    expect((fresh.plan('transactions', { companyId: 'x' }, { sort: { transaction_date: -1 }, limit: 10 }) ?? []).join(' ')).toMatch(/USING (COVERING )?INDEX/);
    await fresh.close();
  });

  it('rebuilt on two threads (make rebuild, rebuild-threads.ts) over many flushes equal the incrementally built ones', async () => {
    const live = await dump(api.paperlink.adapters.readStore, collections);
    const events = api.paperlink.adapters.events as SqliteEventStore;
    const head = await events.headPosition();
    const dir = mkdtempSync(join(tmpdir(), 'paperlink-rebuild-threads-'));
    try {
      const readModelsFile = join(dir, 'readmodels.sqlite');
      const groups = rebuildGroups(2);
      expect(groups).toHaveLength(2);
      expect(groups.flat().sort()).toEqual(allProjections().map((p) => p.name).sort());
      const positions: number[] = [];
      const result = await rebuildInThreads({ eventsFile: events.file, readModelsFile }, groups, { flushDocs: 5, onProgress: (p) => positions.push(p.position) });
      expect(result.events).toBe(head);
      expect(result.groups.map((g) => g.projections)).toEqual(groups);
      // Both threads flushed many times (the other thread's writes waited for the lock, not failed).
      for (const g of result.groups) expect(g.result.flushes, g.projections.join()).toBeGreaterThan(2);
      expect(positions.at(-1)).toBe(head);
      const rebuilt = new SqliteReadStore(readModelsFile, { extraIndexes: listIndexes() });
      expect(await dump(rebuilt, collections)).toEqual(live);
      expect(Object.fromEntries((await rebuilt.getCheckpoints()).map((c) => [c.name, c.position]))).toEqual(Object.fromEntries(allProjections().map((p) => [p.name, head])));
      expect((rebuilt.plan('transactions', { companyId: 'x' }, { sort: { transaction_date: -1 }, limit: 10 }) ?? []).join(' ')).toMatch(/USING (COVERING )?INDEX/);
      await rebuilt.close();
      // A thread that fails is reported by its group, and the rebuild fails.
      // (A read-models file under a plain file: its folder cannot be made; the threads stop.)
      writeFileSync(join(dir, 'plain'), '');
      await expect(rebuildInThreads({ eventsFile: events.file, readModelsFile: join(dir, 'plain', 'readmodels.sqlite') }, [['users'], ['transactions']])).rejects.toThrow(/EEXIST/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('make rebuild takes a thread per group up to REBUILD_THREADS or the cores, and REBUILD_FLUSH_DOCS', () => {
    expect(rebuildGroups(1)).toEqual([allProjections().map((p) => p.name)]);
    expect(rebuildGroups(8)).toEqual(rebuildGroups(2));
    expect(rebuildThreads({ REBUILD_THREADS: '1' })).toBe(1);
    expect(() => rebuildThreads({ REBUILD_THREADS: 'two' })).toThrow('REBUILD_THREADS must be a whole number');
    expect(rebuildThreads({})).toBeGreaterThanOrEqual(1);
    expect(rebuildFlushDocs({})).toBeUndefined();
    expect(rebuildFlushDocs({ REBUILD_FLUSH_DOCS: '100000' })).toBe(100_000);
    expect(() => rebuildFlushDocs({ REBUILD_FLUSH_DOCS: '0' })).toThrow('REBUILD_FLUSH_DOCS must be a whole number');
  });

  it('a bulk rebuild stopped between flushes is taken up by the next start from its last flush', async () => {
    const live = await dump(api.paperlink.adapters.readStore, collections);
    const events = api.paperlink.adapters.events;
    const store = new SqliteReadStore(':memory:', { extraIndexes: listIndexes() });
    const load = store.bulkLoad.bind(store);
    let loads = 0;
    store.bulkLoad = (writes, checkpoints) => (++loads === 4 ? Promise.reject(new Error('stopped')) : load(writes, checkpoints));
    await expect(rebuildInBulk(events, store, allProjections(), { flushDocs: 40 })).rejects.toThrow('stopped');
    const stoppedAt = Math.max(...(await store.getCheckpoints()).map((c) => c.position));
    expect(stoppedAt).toBeGreaterThan(0);
    expect(stoppedAt).toBeLessThan(await events.headPosition());
    const runner = new ProjectionRunner(events, store, allProjections());
    await runner.start();
    expect(await runner.waitFor(await events.headPosition(), 20_000)).toBe(true);
    await runner.stop();
    expect(await dump(store, collections)).toEqual(live);
    await store.close();
  });

  it('do not change when every event is applied twice', async () => {
    const events: RecordedEvent[] = await api.paperlink.adapters.events.readAll({ after: 0, maxCount: 1_000_000 });
    const once = new EmbeddedReadStore();
    const twice = new EmbeddedReadStore();
    for (const p of allProjections()) {
      const u1 = new UnitOfWork(once);
      const u2 = new UnitOfWork(twice);
      for (const e of events) {
        if (!p.handles.has(e.type)) continue;
        await p.apply(e, u1.viewFor(e));
        await p.apply(e, u2.viewFor(e));
        await p.apply(e, u2.viewFor(e));
      }
      await once.commit(u1.writes, []);
      await twice.commit(u2.writes, []);
    }
    const onceDump = await dump(once, collections);
    for (const c of collections) expect(onceDump[c]!.length, c).toBeGreaterThan(0);
    expect(await dump(twice, collections)).toEqual(onceDump);
    expect(onceDump.users!.length).toBe(expected.users.size);
    expect(onceDump.transactions!.length).toBe(expected.transactions.size);
    expect(onceDump.receipts!.length).toBe(expected.receipts.size);
    expect(onceDump.matches!.length).toBe(expected.matches.size);
  });
});
