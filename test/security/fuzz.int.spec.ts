/**
 * ADR 0007: a property-based fuzz suite over every operation of the OpenAPI document
 * (the document the server serves, generated from the routers' zod schemas). Each operation is
 * driven with generated valid and invalid inputs (params with other users' and other companies'
 * real ids, `__proto__`, huge strings, unicode; queries; JSON bodies generated from the
 * operation's JSON Schema, then mutated or replaced by garbage; files) by two attackers:
 *
 *   Eve, a plain user of company B, who may see nothing of company A;
 *   Cy, a plain user of company A, who may see only her own records there.
 *
 * Company A's admin (Ada) and a second plain user (Bo) own transactions, receipts, matches (one
 * of them across members) and master data. For every answer: no 5xx; a 4xx is `{error, code}`;
 * no body or header carries a record the caller may not see (its id, unique description or file
 * name), unless the caller sent that very string herself. Afterwards the owners' records are
 * what they were. The number of operations and cases is printed.
 *
 * FUZZ_SEED=<n> replays a run; FUZZ_RUNS=<n> changes the cases per operation and caller.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../infra/src/app';
import { apiDocument } from '../../infra/src/http/api-docs';
import { answerClientErrors } from '../../infra/src/http/client-errors';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';
import { imageOf, labelledReader, labels } from '../support/labelled-reader';
import { longRowStatement, pdfBomb, secondlyCalendar } from './worst-inputs';

type Json = Record<string, unknown>;
type Schema = Json & { type?: string; properties?: Record<string, Schema>; required?: string[]; items?: Schema; anyOf?: Schema[]; enum?: unknown[] };

/** The operations, from the same document /api/openapi.json serves (a test below checks that). */
const DOC = apiDocument(VERSION);
interface Op { method: string; path: string; op: Json }
const OPERATIONS: Op[] = Object.entries(DOC.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method, path, op })));

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2_147_483_647;
const BASE_RUNS = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : 30;
/** Operations that hash a password (argon2) or upload files get fewer cases. */
const runsFor = (o: Op): number => {
  if (/^\/auth\/(register|login|password)$/.test(o.path)) return Math.max(4, Math.round(BASE_RUNS / 3));
  if ((o.op.requestBody as Json | undefined)?.content && !('application/json' in ((o.op.requestBody as Json).content as Json))) return Math.max(6, Math.round(BASE_RUNS / 2));
  return BASE_RUNS;
};
/** Operations after which the caller signs in again (they may end her session on purpose). */
const SESSION_ENDING = new Set(['post /auth/logout', 'post /auth/logout-all', 'post /auth/refresh', 'put /auth/password']);

let api: Api;
/** The app behind a real HTTP server as main.ts runs it (Node's own refusals answered too). */
let server: Server;
const tok = randomUUID().slice(0, 8).toUpperCase();

interface Caller {
  name: 'Eve' | 'Cy';
  email: string;
  password: string;
  userId: string;
  /** The company she is a plain user of. */
  companyId: string;
  /** A company she does not belong to (she will try it anyway). */
  foreignCompanyId: string;
  access: string;
  refresh: string;
  /** Strings she must never receive. */
  secrets: Set<string>;
  /** Real ids she knows of (hers, and others' she will try). */
  ids: string[];
  /** Users' ids: others' (of both companies) and her own. */
  userIds: string[];
  /** Ids of records and users she may not see: every operation is also tried with each of them. */
  targets: string[];
  /** Ids of her own records (the other side of an attack: her receipt, another's transaction). */
  own: string[];
  /** Direct-upload tokens of her own (valid credentials for PUT /receipts/direct/{token}). */
  uploadTokens: string[];
  /** Secrets (ids she knows) that she stored herself in a write that succeeded: her own data may show them back. */
  stored: Set<string>;
}

let ada: Account;
let bo: Account;
let cyAccount: Account;
let zed: Account;
let eveAccount: Account;
let eve: Caller;
let cy: Caller;
/** Company A as its admin reads it, before the run (compared after it). */
let before: unknown;
/** Company A's matches before the run, and whose records each side is. */
let matchesBefore: Array<Mt & { cySides: number }> = [];
let emailsOfA: string[] = [];

const stats = { cases: 0, operations: new Set<string>(), byStatus: new Map<number, number>(), relogins: 0, started: 0 };
const allFindings: string[] = [];

// ---------- seed ----------

const HEADER = 'Transaction Date,Description,Amount,Category,Job Number,Cost Code,First Name,Last Name';
const line = (date: string, description: string, amount: number, first = '', last = '') => `${date},${description},${(-amount).toFixed(2)},,,,${first},${last}`;
const [l1, l2, l3, l4] = labels;

async function upload(who: Account, companyId: string, bytes: Buffer, name: string): Promise<string> {
  const res = await api.http.post('/api/receipts/upload').set(who.headers(companyId)).attach('receipt', bytes, name);
  if (res.status !== 201) throw new Error(`upload ${res.status} ${res.text}`);
  return res.body.receipt.id as string;
}
async function completed(who: Account, companyId: string, id: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const r = await api.http.get(`/api/receipts/${id}`).set(who.headers(companyId));
    if (r.status === 200 && r.body.receipt.processing_status === 'completed') return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`receipt ${id} never completed`);
}
async function list<T>(who: Account, companyId: string, path: string, key?: string): Promise<T[]> {
  const r = await api.http.get(path).query({ limit: 200 }).set(who.headers(companyId));
  if (r.status !== 200) throw new Error(`${path} ${r.status} ${r.text}`);
  return (key ? r.body[key] : r.body) as T[];
}

interface Tx { id: string; description: string; user_id: string; amount: number; transaction_date: string }
interface Rc { id: string; original_filename: string; user_id?: string; userId?: string; extracted_amount: number | null }
interface Mt { id: string; receipt_id: string; transaction_id: string; status?: string }
interface Item { id: string; name: string }

/** Company A's matches, each with how many of its sides are Cy's (0, 1 or 2), as the admin sees them. */
async function matchesOfA(): Promise<Array<Mt & { cySides: number }>> {
  const h = ada.headers();
  const [m, t, r] = await Promise.all([
    api.http.get('/api/matches').set(h),
    api.http.get('/api/transactions').query({ limit: 500 }).set(h),
    api.http.get('/api/receipts').query({ limit: 200 }).set(h),
  ]);
  const cys = new Set([
    ...(t.body.transactions as Tx[]).filter((x) => x.user_id === cyAccount.userId).map((x) => x.id),
    ...(r.body.receipts as Rc[]).filter((x) => (x.user_id ?? x.userId) === cyAccount.userId).map((x) => x.id),
  ]);
  return (m.body as Mt[]).map((x) => ({ id: x.id, receipt_id: x.receipt_id, transaction_id: x.transaction_id, status: x.status, cySides: Number(cys.has(x.receipt_id)) + Number(cys.has(x.transaction_id)) }));
}

/** Everything of company A, as its admin sees it. */
async function snapshotOfA(): Promise<unknown> {
  const h = ada.headers();
  const get = async (path: string) => {
    const r = await api.http.get(path).query(path.includes('?') ? {} : { limit: 200 }).set(h);
    return { status: r.status, body: r.body };
  };
  const tx = await get('/api/transactions');
  const rc = await get('/api/receipts');
  return {
    masterdata: await Promise.all(['categories', 'job_numbers', 'cost_codes'].map((k) => get(`/api/masterdata/${k}`))),
    // Ada's and Bo's: Cy may add her own records, and edit or delete hers.
    transactions: (tx.body.transactions as Array<Tx & Json>).filter((t) => t.user_id !== cyAccount.userId).map((t) => [t.id, t.description, t.amount, t.transaction_date, t.category_name, t.user_id]),
    receipts: (rc.body.receipts as Array<Rc & Json>).filter((r) => (r.user_id ?? r.userId) !== cyAccount.userId).map((r) => [r.id, r.original_filename, r.extracted_amount, r.extracted_date, r.extracted_merchant]),
    // (not their last sign-in, nor Cy's own name, which she may change)
    members: ((await get('/api/companies/current/users')).body.users as Json[]).map((u) => [u.id, u.email, u.role, ...(u.id === cyAccount.userId ? [] : [u.firstName, u.lastName])]),
    company: (await get('/api/companies/current')).body.company?.name,
  };
}

async function signIn(c: Pick<Caller, 'email' | 'password'>): Promise<{ access: string; refresh: string }> {
  const res = await api.http.post('/api/auth/login').send({ email: c.email, password: c.password });
  if (res.status !== 200) throw new Error(`sign-in of ${c.email} failed: ${res.status} ${res.text}`);
  return { access: res.body.accessToken, refresh: res.body.refreshToken };
}

async function presignToken(who: Account, companyId: string): Promise<string> {
  const r = await api.http.post('/api/receipts/presign').set(who.headers(companyId)).send({ originalName: 'direct.jpg', contentType: 'image/jpeg', size: 1000 });
  if (r.status !== 200) throw new Error(`presign ${r.status}`);
  return r.body.key as string;
}

beforeAll(async () => {
  api = await startApi({ LOGIN_MAX_FAILURES_PER_ADDRESS: '1000000' }, undefined, { reader: labelledReader() });
  server = answerClientErrors(createServer(api.paperlink.app));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin', companyName: `Acme ${tok}` });
  bo = await registerAccount(api, { firstName: 'Bo', lastName: 'Plain', companyName: `Bo Own ${tok}` });
  cyAccount = await registerAccount(api, { firstName: 'Cy', lastName: 'Other', companyName: `Cy Own ${tok}` });
  zed = await registerAccount(api, { firstName: 'Zed', lastName: 'Boss', companyName: `Beta ${tok}` });
  eveAccount = await registerAccount(api, { firstName: 'Eve', lastName: 'Plain', companyName: `Eve Own ${tok}` });
  await invite(api, ada, bo, 'user');
  await invite(api, ada, cyAccount, 'user');
  await invite(api, zed, eveAccount, 'user');
  // Card lines go to a member by the statement names an admin set (ADR 0005).
  for (const [who, name] of [[bo, 'Bo Plain'], [cyAccount, 'Cy Other']] as const) {
    const set = await api.http.put(`/api/companies/current/users/${who.userId}/statement-names`).set(ada.headers()).send({ names: [name] });
    if (set.status !== 200) throw new Error(`statement names ${set.status} ${set.text}`);
  }
  const A = ada.companyId;
  const B = zed.companyId;

  // Master data of A.
  const items: Item[] = [];
  for (const [kind, name] of [['categories', `ACME-CAT-${tok}`], ['job_numbers', `ACME-JOB-${tok}`], ['cost_codes', `ACME-COST-${tok}`]] as const) {
    const r = await api.http.post(`/api/masterdata/${kind}`).set(ada.headers()).send({ name, ...(kind === 'cost_codes' ? { category_id: items[0]!.id } : {}) });
    if (r.status !== 201) throw new Error(`masterdata ${r.status} ${r.text}`);
    items.push({ id: r.body.id, name });
  }

  // Transactions: Ada's, Bo's (assigned by name) and Cy's, in one statement by the admin; and one Bo imports himself.
  const csv = [
    HEADER,
    line(l1!.date, `${l1!.merchant} ADA-PRIVATE-${tok}`, l1!.total),
    line(l2!.date, `${l2!.merchant} BO-PRIVATE-${tok}`, l2!.total, 'Bo', 'Plain'),
    line(l4!.date, `${l4!.merchant} CY-OWN-${tok}`, l4!.total, 'Cy', 'Other'),
    line('2024-03-01', `ADA-SECOND-${tok}`, 12.5),
  ].join('\n');
  const imp = await api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', Buffer.from(csv), `ada-statement-${tok}.csv`);
  if (imp.status !== 200 || imp.body.imported !== 4) throw new Error(`import ${imp.status} ${imp.text}`);
  const boImp = await api.http.post('/api/transactions/import').set(bo.headers(A)).attach('csvFile', Buffer.from([HEADER, line('2024-04-02', `BO-SELF-${tok}`, 7.25)].join('\n')), `bo-statement-${tok}.csv`);
  if (boImp.status !== 200 || boImp.body.imported !== 1) throw new Error(`bo import ${boImp.status} ${boImp.text}`);
  // (reads catch up with writes a moment later)
  const eventually = async <T>(read: () => Promise<T[]>, count: number, what: string): Promise<T[]> => {
    for (let i = 0; i < 400; i++) {
      const rows = await read();
      if (rows.length >= count) return rows;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`seed: fewer than ${count} ${what}`);
  };
  const txs = await eventually(() => list<Tx>(ada, A, '/api/transactions', 'transactions'), 5, 'transactions');
  const txOf = (needle: string) => txs.find((t) => t.description.includes(needle))!;

  // Receipts: Ada's, Bo's two, Cy's.
  const adaR = await upload(ada, A, imageOf(l1!.id), `ada-private-${tok}.jpg`);
  const boR = await upload(bo, A, imageOf(l2!.id), `bo-private-${tok}.jpg`);
  const boR2 = await upload(bo, A, imageOf(l4!.id), `bo-second-${tok}.jpg`);
  const cyR = await upload(cyAccount, A, imageOf(l3!.id), `cy-own-${tok}.jpg`);
  for (const [who, id] of [[ada, adaR], [bo, boR], [bo, boR2], [cyAccount, cyR]] as const) await completed(who, A, id);

  // Matches: each their own, one across members (Bo's receipt on Cy's line, by the admin), and the rest auto.
  const manual = async (who: Account, receiptId: string, transactionId: string) => {
    const r = await api.http.post('/api/matches').set(who.headers(A)).send({ receiptId, transactionId });
    if (r.status !== 200) throw new Error(`match ${r.status} ${r.text}`);
  };
  await manual(ada, adaR, txOf('ADA-PRIVATE').id);
  await manual(bo, boR, txOf('BO-PRIVATE').id);
  await manual(ada, boR2, txOf('CY-OWN').id);
  const auto = await api.http.post('/api/matches/auto-match').set(ada.headers()).send({ threshold: 0 }).expect(200);
  const matches = await eventually(() => list<Mt>(ada, A, '/api/matches'), 3 + (auto.body.suggested as number), 'matches');
  const receipts = await eventually(() => list<Rc>(ada, A, '/api/receipts', 'receipts'), 4, 'receipts');

  // What each attacker may not see.
  const cyTx = new Set(txs.filter((t) => t.user_id === cyAccount.userId).map((t) => t.id));
  const cyRc = new Set([cyR]);
  const othersTx = txs.filter((t) => !cyTx.has(t.id));
  const othersRc = receipts.filter((r) => !cyRc.has(r.id));
  const cySecrets = new Set<string>([
    ...othersTx.flatMap((t) => [t.id, t.description]),
    ...othersRc.flatMap((r) => [r.id, r.original_filename]),
    // A match is hers only when both sides are.
    ...matches.filter((m) => !(cyTx.has(m.transaction_id) && cyRc.has(m.receipt_id))).map((m) => m.id),
    // (not the admin's statement file name: it is the source of Cy's own line too)
    `bo-statement-${tok}.csv`,
  ]);
  emailsOfA = [ada.email, bo.email, cyAccount.email];
  const eveSecrets = new Set<string>([
    ...txs.flatMap((t) => [t.id, t.description]),
    ...receipts.flatMap((r) => [r.id, r.original_filename]),
    ...matches.map((m) => m.id),
    ...items.flatMap((i) => [i.id, i.name]),
    `Acme ${tok}`, A, ...emailsOfA, ada.userId, bo.userId, cyAccount.userId,
    `ada-statement-${tok}.csv`, `bo-statement-${tok}.csv`,
  ]);
  const idsOfA = [A, ada.userId, bo.userId, cyAccount.userId, ...txs.map((t) => t.id), ...receipts.map((r) => r.id), ...matches.map((m) => m.id), ...items.map((i) => i.id)];

  cy = {
    name: 'Cy', email: cyAccount.email, password: cyAccount.password, userId: cyAccount.userId, companyId: A, foreignCompanyId: B,
    access: cyAccount.accessToken, refresh: cyAccount.refreshToken, secrets: cySecrets,
    ids: [...idsOfA, B, zed.userId, eveAccount.userId], userIds: [ada.userId, bo.userId, cyAccount.userId, zed.userId, eveAccount.userId], uploadTokens: [await presignToken(cyAccount, A), await presignToken(cyAccount, A)], stored: new Set(),
    targets: [...[...cySecrets].filter((x) => idsOfA.includes(x)), ada.userId, bo.userId], own: [cyR, ...cyTx, cyAccount.userId],
  };
  eve = {
    name: 'Eve', email: eveAccount.email, password: eveAccount.password, userId: eveAccount.userId, companyId: B, foreignCompanyId: A,
    access: eveAccount.accessToken, refresh: eveAccount.refreshToken, secrets: eveSecrets,
    ids: [...idsOfA, B, eveAccount.userId, zed.userId], userIds: [ada.userId, bo.userId, cyAccount.userId, zed.userId, eveAccount.userId], uploadTokens: [await presignToken(eveAccount, B), await presignToken(eveAccount, B)], stored: new Set(),
    targets: idsOfA, own: [B, eveAccount.userId],
  };
  before = await snapshotOfA();
  matchesBefore = await matchesOfA();
  stats.started = performance.now();
}, 180_000);

afterAll(async () => {
  const seconds = ((performance.now() - stats.started) / 1000).toFixed(1);
  const statuses = [...stats.byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}:${n}`).join(' ');
  console.log(`fuzz: ${stats.operations.size} operations × 2 callers, ${stats.cases} cases in ${seconds}s (seed ${SEED}, ${BASE_RUNS} runs per operation and caller); statuses ${statuses}; re-sign-ins ${stats.relogins}; findings ${allFindings.length}`);
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await api?.close();
});

// ---------- generators ----------

const IMPOSSIBLE_DATES = ['2024-02-30', '2023-02-29', '2024-13-01', '2024-00-10', '0000-01-01', '9999-99-99'];
const EVIL = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf'];
const WEIRD = [
  '', ' ', 'null', 'undefined', 'NaN', 'Infinity', '-1', '0', '1e309', '0x10', "' OR '1'='1", '{"$ne":null}', '$where', '../../../etc/passwd', '%2e%2e%2f',
  '\u0000', '\u202eexe.jpg', '\u200b', 'Ω≈ç√∫', '💥🧾👩‍👩‍👧', 'ﷺ', 'a\r\nSet-Cookie: x=1', '<script>alert(1)</script>', 'x'.repeat(300), 'y'.repeat(5000),
  '00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-7FFF-BFFF-FFFFFFFFFFFF',
];
const HUGE = 'z'.repeat(200_000);

/** Text of any kind, with the caller's known ids and the usual suspects mixed in. */
const textArb = (c: Caller, maxLength: number) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...c.ids) },
    { weight: 2, arbitrary: fc.constantFrom(...EVIL, ...WEIRD).filter((s) => s.length <= maxLength) },
    { weight: 2, arbitrary: fc.string({ maxLength: Math.min(maxLength, 40) }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: Math.min(maxLength, 20) }) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.constant('w'.repeat(Math.min(maxLength, 5000))) },
  );

const dateArb = fc.oneof(
  fc.date({ min: new Date('2000-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  fc.constantFrom(...IMPOSSIBLE_DATES),
);

/** Any JSON value, shallow. */
const garbageValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom<unknown>(null, true, false, 0, -0, -1, 1e308, -1e308, 2 ** 53 + 1, [], {}, '', HUGE.slice(0, 20_000), ...EVIL, ...WEIRD),
);

/** Values for a JSON Schema (2020-12, as zod writes it); `valid` keeps to the schema's bounds. */
function fromSchema(s: Schema | undefined, c: Caller, name = ''): fc.Arbitrary<unknown> {
  // A field that names a user or a record gets other people's real ids most of the time.
  if (/userId$/i.test(name)) return fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...c.userIds.filter((u) => u !== c.userId)) }, { weight: 2, arbitrary: fc.constantFrom(...c.ids) }, { weight: 1, arbitrary: textArb(c, 100) });
  if (name === 'key') return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...c.uploadTokens) }, { weight: 1, arbitrary: textArb(c, 2000) });
  if (/(^id$|Id$|_id$)/.test(name)) return fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...c.ids) }, { weight: 1, arbitrary: textArb(c, 100) });
  if (!s || Object.keys(s).length === 0 || (Object.keys(s).length === 1 && 'description' in s)) return garbageValue;
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.anyOf) return fc.oneof(...s.anyOf.map((x) => fromSchema(x, c, name)));
  if (s.contentSchema) return fromSchema(s.contentSchema as Schema, c).map((v) => JSON.stringify(v));
  switch (s.type) {
    case 'string':
      if (s.format === 'date') return dateArb;
      if (typeof s.pattern === 'string' && s.pattern.includes('0-9a-f')) return fc.oneof(fc.constantFrom(...c.ids), fc.uuid());
      return textArb(c, typeof s.maxLength === 'number' ? s.maxLength : 1000);
    case 'integer':
      return fc.integer({ min: typeof s.minimum === 'number' ? s.minimum : -1_000_000, max: typeof s.maximum === 'number' ? s.maximum : 1_000_000 });
    case 'number': {
      const min = typeof s.minimum === 'number' ? s.minimum : -1_000_000;
      const max = typeof s.maximum === 'number' ? s.maximum : 1_000_000;
      return fc.oneof(fc.integer({ min: Math.ceil(min), max: Math.floor(max) }), fc.double({ min, max, noNaN: true, noDefaultInfinity: true }));
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromSchema(s.items, c), { maxLength: 4 });
    case 'object': {
      const props = Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, fromSchema(v, c, k)]));
      return fc.record(props, { requiredKeys: (s.required ?? []).filter((k) => k in props) });
    }
    default:
      return garbageValue;
  }
}

/** A JSON body: schema-valid, mutated (one field garbage, evil keys), or not JSON of that shape at all. */
function jsonBodyArb(schema: Schema, c: Caller): fc.Arbitrary<string> {
  const valid = fromSchema(schema, c) as fc.Arbitrary<Json>;
  const keys = Object.keys(schema.properties ?? {});
  const mutated = fc.tuple(valid, keys.length ? fc.constantFrom(...keys) : fc.constant('x'), garbageValue).map(([v, k, g]) => {
    const o = v && typeof v === 'object' ? { ...v } : {};
    o[k] = g;
    return o;
  });
  const evilKeys = fc.tuple(valid, fc.constantFrom(...EVIL)).map(([v, k]) => JSON.stringify(v).replace(/^\{/, `{"${k}":{"isAdmin":true,"role":"admin","companyId":"${c.foreignCompanyId}"},`).replace(/,\}$/, '}'));
  const text = fc.constantFrom(
    '{', '{"a":', 'null', '[]', '"str"', '123', '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}',
    `${'['.repeat(5000)}${']'.repeat(5000)}`, `${'{"a":'.repeat(300)}1${'}'.repeat(300)}`, JSON.stringify({ s: HUGE }), '\u0000', '{"a":1,"a":2}',
  );
  return fc.oneof(
    { weight: 4, arbitrary: valid.map((v) => JSON.stringify(v)) },
    { weight: 3, arbitrary: mutated.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: evilKeys },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: text },
  );
}

interface FilePart { name: string; bytes: Buffer }
/** Files to upload: real receipts (one with the same bytes as the admin's), statements that name others, junk. */
function fileArb(c: Caller): fc.Arbitrary<FilePart> {
  const csvRow = fc.tuple(dateArb, textArb(c, 60), fc.double({ min: -5000, max: 5000, noNaN: true }), fc.constantFrom(['', ''], ['Ada', 'Admin'], ['Bo', 'Plain'], ['Cy', 'Other'], ['Eve', 'Plain'], ['Zed', 'Boss']))
    .map(([d, desc, amount, [f, l]]) => `${d},"${desc.replace(/"/g, '""').replace(/[\r\n]/g, ' ')}",${amount.toFixed(2)},,,,${f},${l}`);
  const csv = fc.array(csvRow, { minLength: 1, maxLength: 6 }).map((rows) => Buffer.from([HEADER, ...rows].join('\n')));
  const bytes = fc.oneof(
    fc.constantFrom(imageOf(l1!.id), imageOf(l3!.id), Buffer.alloc(0), Buffer.from('%PDF-1.4\n%%EOF'), Buffer.from('\u00ff\u00d8\u00ff garbage'), Buffer.from('not,a,statement\n1,2,3'), Buffer.from('<html><script>alert(1)</script></html>')),
    csv,
    fc.uint8Array({ maxLength: 2048 }).map((u) => Buffer.from(u)),
  );
  const name = fc.oneof(
    fc.constantFrom('receipt.jpg', 'statement.csv', 'list.CSV', 'r.png', 'doc.pdf', '../../etc/passwd.csv', '💥.csv', '\u202egpj.csv', `${'n'.repeat(300)}.csv`, 'noext'),
    textArb(c, 80).map((s) => `${s}.csv`),
  );
  return fc.record({ name, bytes });
}

interface Case {
  params: Record<string, string>;
  query: Array<[string, string]>;
  body?: { json: string } | { multipart: { files: Array<[string, FilePart]>; fields: Array<[string, string]> } } | { raw: Buffer };
  company: 'own' | 'foreign' | 'none' | 'junk';
  auth: 'bearer' | 'none' | 'garbage';
  requestId?: string;
}

function caseArb(o: Op, c: Caller): fc.Arbitrary<Case> {
  const params = ((o.op.parameters ?? []) as Array<Json & { name?: string; in?: string; schema?: Schema; $ref?: string }>).filter((p) => !p.$ref);
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');

  const paramArb = (p: (typeof pathParams)[number]) => {
    const known = p.name === 'token' ? fc.constantFrom(...c.uploadTokens) : fromSchema(p.schema, c, p.name).map(String);
    return fc.oneof({ weight: 3, arbitrary: known }, { weight: 2, arbitrary: fc.constantFrom(...c.ids) }, { weight: 2, arbitrary: textArb(c, 300) }, { weight: 1, arbitrary: fc.constantFrom(HUGE.slice(0, 4000), HUGE.slice(0, 17_000)) });
  };
  const pathArb = fc.record(Object.fromEntries(pathParams.map((p) => [p.name!, paramArb(p)])) as Record<string, fc.Arbitrary<string>>);

  // A few filters at a time (all of them at once would find nothing to show).
  const validQuery: fc.Arbitrary<Array<[string, string]>> = queryParams.length
    ? fc.array(fc.oneof(...queryParams.map((p) => ({ weight: /id$/i.test(p.name!) ? 6 : 1, arbitrary: fc.tuple(fc.constant(p.name!), fromSchema(p.schema, c, p.name).map((v) => String(v))) }))), { maxLength: 2 })
    : fc.constant([]);
  const junkPair = fc.tuple(
    fc.constantFrom(...queryParams.map((p) => p.name!), 'userId', 'startDate', 'limit', 'page', 'sortBy', '__proto__', 'constructor[prototype][x]', 'a[b]', 'companyId'),
    fc.oneof(textArb(c, 300), fc.constantFrom(...IMPOSSIBLE_DATES), fc.constant(HUGE.slice(0, 2000))),
  );
  const queryArb = fc.tuple(validQuery, fc.array(junkPair, { maxLength: 3 }), fc.boolean()).map(([v, junk, addJunk]) => (addJunk ? [...v, ...junk] : v));

  const rb = o.op.requestBody as { content: Record<string, { schema: Schema }> } | undefined;
  let bodyArb: fc.Arbitrary<Case['body']> = fc.constant(undefined);
  if (rb?.content['application/json']) {
    bodyArb = jsonBodyArb(rb.content['application/json'].schema, c).map((json) => ({ json }));
  } else if (rb?.content['multipart/form-data']) {
    const s = rb.content['multipart/form-data'].schema;
    const fileFields = Object.entries(s.properties ?? {}).filter(([, v]) => v.contentMediaType === 'application/octet-stream').map(([k]) => k);
    const textFields = Object.entries(s.properties ?? {}).filter(([, v]) => v.contentMediaType !== 'application/octet-stream');
    const files = fc.array(fc.tuple(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...fileFields) }, { weight: 1, arbitrary: fc.constantFrom('other', '__proto__') }), fileArb(c)), { minLength: 0, maxLength: 2 });
    const fields = fc.array(fc.oneof(...textFields.map(([k, v]) => fc.tuple(fc.constant(k), fc.oneof(fromSchema(v, c, k).map(String), textArb(c, 200)))), fc.tuple(fc.constantFrom('__proto__', 'extra'), textArb(c, 50))), { maxLength: 2 });
    bodyArb = fc.record({ files, fields }).map((multipart) => ({ multipart }));
  } else if (rb) {
    bodyArb = fileArb(c).map((f) => ({ raw: f.bytes }));
  } else {
    // No body is documented: send one anyway, now and then.
    bodyArb = fc.option(jsonBodyArb({ type: 'object', properties: { id: { type: 'string' }, userId: { type: 'string' }, role: { enum: ['admin'] } } }, c).map((json) => ({ json })), { freq: 3 }).map((b) => b ?? undefined);
  }

  return fc.record({
    params: pathArb,
    query: queryArb,
    body: bodyArb,
    company: fc.oneof({ weight: 8, arbitrary: fc.constant<Case['company']>('own') }, fc.constantFrom<Case['company']>('foreign', 'none', 'junk')),
    auth: fc.oneof({ weight: 10, arbitrary: fc.constant<Case['auth']>('bearer') }, fc.constantFrom<Case['auth']>('none', 'garbage')),
    requestId: fc.option(fc.constantFrom('fuzz-reused-request-id', randomUUID()), { nil: undefined }),
  });
}

const ID_LIKE = /(^id$|Id$|_id$)/;

/** The smallest value a schema accepts (its first enum value, its minimum, "x"); ids are the caller's own. */
function plainValue(s: Schema | undefined, c: Caller, name = ''): unknown {
  if (name === 'key') return c.uploadTokens[0];
  if (ID_LIKE.test(name)) return c.own[0] ?? c.companyId;
  if (!s || Object.keys(s).length === 0) return 1;
  if (s.enum) return s.enum[0];
  if (s.anyOf) return plainValue(s.anyOf.find((x) => x.type !== 'null') ?? s.anyOf[0], c, name);
  if (s.type === 'string') return s.format === 'date' ? '2024-01-15' : 'x';
  if (s.type === 'integer' || s.type === 'number') return typeof s.minimum === 'number' ? s.minimum : 1;
  if (s.type === 'boolean') return false;
  if (s.type === 'object') return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, plainValue(v, c, k)]));
  return null;
}

/**
 * Cases that are not left to chance: every id in a path, every user filter and every id field of
 * a JSON body set, one at a time, to each record or user the caller may not see, with the rest of
 * the request well-formed (her own company, her token, her own ids elsewhere).
 */
function targetedCases(o: Op, c: Caller): Case[] {
  const params = ((o.op.parameters ?? []) as Array<{ name?: string; in?: string; schema?: Schema }>).filter((p) => p.name);
  const pathParams = params.filter((p) => p.in === 'path');
  const defaults: Record<string, string> = Object.fromEntries(pathParams.map((p) => [p.name!, p.name === 'token' ? c.uploadTokens[0]! : o.path.startsWith('/companies/{id}') && p.name === 'id' ? c.companyId : String(plainValue(p.schema, c, p.name))]));
  const json = (o.op.requestBody as { content: Record<string, { schema: Schema }> } | undefined)?.content['application/json']?.schema;
  const body = json ? (plainValue(json, c) as Json) : undefined;
  const base: Case = { params: defaults, query: [], body: body ? { json: JSON.stringify(body) } : undefined, company: 'own', auth: 'bearer' };
  const out: Case[] = [];
  for (const p of pathParams.filter((x) => ID_LIKE.test(x.name!))) for (const t of c.targets) out.push({ ...base, params: { ...defaults, [p.name!]: t } });
  for (const p of params.filter((x) => x.in === 'query' && /userId$/i.test(x.name!))) for (const t of c.targets) out.push({ ...base, query: [[p.name!, t]] });
  for (const f of Object.keys(body ?? {}).filter((k) => ID_LIKE.test(k))) for (const t of c.targets) out.push({ ...base, body: { json: JSON.stringify({ ...body, [f]: t }) } });
  // Files: the very bytes other members uploaded (their receipts must not be named as duplicates), a statement naming others.
  const content = (o.op.requestBody as { content: Record<string, { schema: Schema }> } | undefined)?.content ?? {};
  const named = Buffer.from([HEADER, line('2024-05-05', `FUZZ-NAMED-${tok}`, 3.3, 'Ada', 'Admin'), line('2024-05-06', `FUZZ-NAMED-${tok}`, 4.4, 'Bo', 'Plain')].join('\n'));
  const files: FilePart[] = [{ name: 'same-as-ada.jpg', bytes: imageOf(l1!.id) }, { name: 'same-as-bo.jpg', bytes: imageOf(l2!.id) }, { name: 'names-others.csv', bytes: named }];
  const multipart = content['multipart/form-data']?.schema;
  for (const [field] of Object.entries(multipart?.properties ?? {}).filter(([, v]) => v.contentMediaType === 'application/octet-stream')) {
    for (const f of [...files, ...WORST_FILES]) out.push({ ...base, body: { multipart: { files: [[field, f]], fields: [] } } });
  }
  if (content['application/octet-stream']) {
    for (const [i, token] of c.uploadTokens.entries()) out.push({ ...base, params: { ...defaults, token }, body: { raw: files[i % 2]!.bytes } });
  }
  if (o.path === '/receipts/commit') for (const key of c.uploadTokens) out.push({ ...base, body: { json: JSON.stringify({ originalName: 'committed.jpg', key }) } });
  return out;
}

/**
 * The inputs that cost the most per byte (./worst-inputs.ts), sent to every file field: a
 * calendar of 400 FREQ=SECONDLY events, a 130 KB PDF that decompresses to 54 MB, a statement row
 * with a 1 MB description. Each must be answered, bounded, with a 4xx or a 2xx, never a 5xx.
 */
const WORST_FILES: FilePart[] = [
  { name: 'worst.ics', bytes: secondlyCalendar() },
  { name: 'bomb.pdf', bytes: pdfBomb() },
  { name: 'long-row.csv', bytes: longRowStatement(1) },
];

// ---------- one case ----------

async function runCase(o: Op, c: Caller, k: Case): Promise<string[]> {
  const path = `/api${o.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(k.params[name] ?? 'missing'))}`;
  const qs = k.query.map(([a, b]) => `${encodeURIComponent(a)}=${encodeURIComponent(b)}`).join('&');
  const url = qs ? `${path}?${qs}` : path;
  const agent = request(server);
  let req = (agent as unknown as Record<string, (u: string) => request.Test>)[o.method]!(url);
  if (k.auth === 'bearer') req = req.set('authorization', `Bearer ${c.access}`);
  if (k.auth === 'garbage') req = req.set('authorization', `Bearer ${c.access.slice(0, -4)}AAAA`);
  const companyHeader = { own: c.companyId, foreign: c.foreignCompanyId, none: undefined, junk: '__proto__' }[k.company];
  if (companyHeader) req = req.set('x-company-id', companyHeader);
  if (k.requestId) req = req.set('x-request-id', k.requestId);
  let sent = url;
  if (k.body && 'json' in k.body) {
    req = req.set('content-type', 'application/json').send(k.body.json);
    sent += k.body.json;
  } else if (k.body && 'multipart' in k.body) {
    for (const [field, value] of k.body.multipart.fields) {
      req = req.field(field, value);
      sent += value;
    }
    for (const [field, f] of k.body.multipart.files) {
      req = req.attach(field, f.bytes, f.name);
      sent += f.name + f.bytes.toString('latin1');
    }
  } else if (k.body && 'raw' in k.body) {
    req = req.set('content-type', 'application/octet-stream').send(k.body.raw);
  }
  const res = await req;
  stats.cases++;
  stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);

  const where = `${c.name} ${o.method.toUpperCase()} ${url.slice(0, 160)}${url.length > 160 ? '…' : ''}`;
  const findings: string[] = [];
  if (res.status >= 500) findings.push(`${where} → ${res.status} ${res.text?.slice(0, 200)}`);
  if (res.status >= 400 && res.status < 500) {
    const b = res.body as { error?: unknown; code?: unknown };
    if (typeof b?.error !== 'string' || typeof b?.code !== 'string') findings.push(`${where} → ${res.status} without {error, code}: ${String(res.text).slice(0, 200)}`);
  }
  const text = `${typeof res.text === 'string' ? res.text : ''}\n${String(res.headers['content-disposition'] ?? '')}\n${String(res.headers.location ?? '')}`;
  for (const secret of c.secrets) {
    if (text.includes(secret) && !sent.includes(secret) && !c.stored.has(secret)) findings.push(`${where} → ${res.status} carries "${secret}" (not the caller's): ${text.slice(Math.max(0, text.indexOf(secret) - 80), text.indexOf(secret) + 80)}`);
  }

  if (res.status < 300 && o.method !== 'get') for (const secret of c.secrets) if (sent.includes(secret)) c.stored.add(secret);

  // Sign in again after an operation that may end the session on purpose, or when it ended.
  if (SESSION_ENDING.has(`${o.method} ${o.path}`) || (res.status === 401 && k.auth === 'bearer' && (await api.http.get('/api/auth/profile').set('authorization', `Bearer ${c.access}`)).status === 401)) {
    Object.assign(c, await signIn(c));
    stats.relogins++;
  }
  return findings;
}

// ---------- the suite ----------

describe('fuzz: every operation of the OpenAPI document, as attackers', () => {
  it('fuzzes the document the server serves', async () => {
    const served = (await api.http.get('/api/openapi.json').expect(200)).body;
    expect(served).toEqual(JSON.parse(JSON.stringify(DOC)));
    expect(OPERATIONS.length).toBeGreaterThan(55);
  });

  for (const who of ['Eve (plain user of another company)', 'Cy (plain user of the same company)'] as const) {
    describe(who, () => {
      for (const o of OPERATIONS) {
        it(`${o.method.toUpperCase()} ${o.path}`, async () => {
          const c = who.startsWith('Eve') ? eve : cy;
          const findings: string[] = [];
          stats.operations.add(`${o.method} ${o.path}`);
          // The targeted cases first (fast-check counts them in numRuns), then the generated ones.
          const examples = targetedCases(o, c).map((k) => [k] as [Case]);
          await fc.assert(
            fc.asyncProperty(caseArb(o, c), async (k) => {
              findings.push(...(await runCase(o, c, k)));
            }),
            { numRuns: examples.length + runsFor(o), seed: SEED + OPERATIONS.indexOf(o) * 2 + (c === eve ? 0 : 1), examples },
          );
          allFindings.push(...findings);
          expect(findings.slice(0, 8), `${findings.length} findings (seed ${SEED})`).toEqual([]);
        }, 120_000);
      }
    });
  }

  it('left the owners’ records as they were, and both attackers plain users where they were', async () => {
    expect(await snapshotOfA()).toEqual(before);
    // Confirmed matches: those of Ada's and Bo's records alone are as they were; none links Cy's
    // record to another's that did not before (one that did may be gone with Cy's record); Cy's
    // own are hers. (Pending suggestions are the company-wide auto-match job's, which Cy's uploads
    // start: it may suggest or withdraw any of them, and only the admin sees those across members.)
    const after = (await matchesOfA()).filter((m) => m.status === 'confirmed');
    const confirmedBefore = matchesBefore.filter((m) => m.status === 'confirmed');
    const key = (m: Mt) => `${m.id} ${m.receipt_id} ${m.transaction_id}`;
    expect(after.filter((m) => m.cySides === 0).map(key).sort()).toEqual(confirmedBefore.filter((m) => m.cySides === 0).map(key).sort());
    const mixedBefore = new Set(confirmedBefore.filter((m) => m.cySides === 1).map(key));
    expect(after.filter((m) => m.cySides === 1).map(key).filter((k) => !mixedBefore.has(k))).toEqual([]);
    expect(confirmedBefore.filter((m) => m.cySides === 0).length).toBeGreaterThanOrEqual(2);
    const roleIn = async (admin: Account, userId: string) => ((await api.http.get('/api/companies/current/users').set(admin.headers())).body.users as Array<{ id: string; role: string }>).find((u) => u.id === userId)?.role;
    expect(await roleIn(ada, cy.userId)).toBe('user');
    expect(await roleIn(zed, eve.userId)).toBe('user');
    expect(stats.cases).toBeGreaterThan(OPERATIONS.length * 2 * 4);
    // sanity: the fuzz reached past validation into real work
    expect([...stats.byStatus.keys()].some((s) => s >= 200 && s < 300)).toBe(true);
  }, 60_000);
});
