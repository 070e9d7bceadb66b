/**
 * Decisions never rest on a read model that may lag (ADR 0023). With the
 * projections held (a test seam on the event store's subscriptions), each decision that reads a
 * read model either decides from the write side or is refused with 503 and Retry-After, never
 * taken on what the read model happened to hold; once the projections resume, the retry works.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore } from '@paperlink/domain';
import { registerAccount, startApi, type Account, type Api } from '../support/harness';
import { png } from '../support/images';
import { stuckProjections } from '../support/stuck-projections';

const HEADER = 'Transaction Date,Description,Amount,Category,Job Number,Cost Code,First Name,Last Name';
const statement = (...lines: string[]) => Buffer.from([HEADER, ...lines].join('\n') + '\n');
const COFFEE = '2024-05-02,BLUE BOTTLE COFFEE,-4.50,,,,,';
const TEA = '2024-05-02,TEA HOUSE,-3.20,,,,,';
const LUNCH = '2024-05-03,NOODLE BAR,-12.00,,,,,';
const FUEL = '2024-05-04,SHELL OIL,-60.00,,,,,';

const gate = stuckProjections();

/**
 * Armed, holds the first append of a statement (its ledger stream) until a second one comes,
 * so that two imports of one company decide on the same state and append one after the other.
 */
const race = { armed: false, held: 0, release: undefined as (() => void) | undefined };
function holdFirstImport(events: EventStore): EventStore {
  return new Proxy(events, {
    get(target, prop, receiver) {
      if (prop === 'appendMany') {
        const appendMany: EventStore['appendMany'] = async (appends) => {
          if (race.armed && appends.some((a) => a.streamId.startsWith('imports-'))) {
            race.held++;
            if (race.release) race.release();
            else await new Promise<void>((resolve) => {
              race.release = resolve;
              setTimeout(resolve, 5000);
            });
          }
          return target.appendMany(appends);
        };
        return appendMany;
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
let api: Api;
let ada: Account;
let bo: Account;

const importFile = (bytes: Buffer, name: string) => api.http.post('/api/transactions/import').set(ada.headers()).attach('csvFile', bytes, name);
async function transactions(): Promise<Array<{ id: string; description: string }>> {
  const res = await api.http.get('/api/transactions').query({ limit: 500 }).set(ada.headers()).expect(200);
  return res.body.transactions as Array<{ id: string; description: string }>;
}
/** The 503 of a command refused because the read side is behind: the API's error shape, a Retry-After. */
function expectBehind(res: { status: number; headers: Record<string, string>; body: unknown }) {
  expect(res.status).toBe(503);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(res.body).toEqual({ error: expect.any(String), code: 'read_side_behind' });
}
async function caughtUp(): Promise<void> {
  const head = await api.paperlink.adapters.events.headPosition();
  expect(await api.paperlink.runner.waitFor(head, 10_000)).toBe(true);
}

describe('decisions while the read side is behind', () => {
  beforeAll(async () => {
    api = await startApi({ READ_SIDE_WAIT_MS: '300' }, undefined, { wrapEvents: (e) => holdFirstImport(gate.wrap(e)), noJobs: true });
    ada = await registerAccount(api, { firstName: 'Ada', lastName: 'Admin' });
    bo = await registerAccount(api, { firstName: 'Bo', lastName: 'Other', companyName: 'Other Co' });
  });
  afterAll(async () => {
    gate.resume();
    await api?.close();
  });

  it('import: the same bytes are known from the write side; other bytes wait for the read side (503), never imported as new', async () => {
    expect((await importFile(statement(COFFEE, COFFEE, TEA), 'may.csv')).body).toMatchObject({ imported: 3, skipped: 0 });
    await caughtUp();
    const before = await transactions();
    const itemRes = await api.http.post('/api/masterdata/categories').set(ada.headers()).send({ name: 'Fuel' }).expect(201);
    await caughtUp();

    gate.pause();
    try {
      // A marker event the projections have not seen: the read side is now behind.
      const again = await importFile(statement(COFFEE, COFFEE, TEA), 'may.csv');
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ imported: 0, skipped: 3, alreadyImported: true });
      await api.http.post('/api/masterdata/categories').set(ada.headers()).send({ name: 'Travel' }).expect(201);

      // The same lines in other bytes, and new lines: both need the read model's counts.
      expectBehind(await importFile(statement(TEA, COFFEE.toLowerCase(), COFFEE), 'may-again.csv'));
      expectBehind(await importFile(statement(LUNCH, FUEL), 'june.csv'));
      // The file's bytes are as unknown as before: a second try is refused too, not taken.
      expectBehind(await importFile(statement(TEA, COFFEE.toLowerCase(), COFFEE), 'may-again.csv'));

      // Receipt upload: its duplicate check (sameBytes) and the company's size limit.
      expectBehind(await api.http.post('/api/receipts/upload').set(ada.headers()).attach('receipt', png(4, 4, { seed: 7 }), 'r.png'));
      // Master data delete: whether the item is in use.
      expectBehind(await api.http.delete(`/api/masterdata/categories/${String(itemRes.body.id)}`).set(ada.headers()));
      // A transaction the read model does not know: maybe imported a moment ago, so not a 404 yet.
      const unknown = await api.http.put(`/api/transactions/${randomUUID()}`).set(ada.headers()).send({ description: 'x', category: 'c', job_number: 'j', cost_code: 'k', amount: -1 });
      expectBehind(unknown);
      // A transaction it knows: where its row is never changes, the write side decides the edit.
      const known = before.find((t) => t.description === 'TEA HOUSE')!;
      const edit = await api.http.put(`/api/transactions/${known.id}`).set(ada.headers()).send({ description: 'TEA HOUSE', category: 'Meals', job_number: 'J-1', cost_code: '01-100', amount: -3.2 });
      expect(edit.status).toBe(200);

      // Another company whose events are all projected decides as usual: a company waits for its own events only.
      const boImport = await api.http.post('/api/transactions/import').set(bo.headers()).attach('csvFile', statement(LUNCH), 'bo.csv');
      expect(boImport.status).toBe(200);
      expect(boImport.body).toMatchObject({ imported: 1 });
      // Now Bo's company has an event the read models lack: its next decision waits too.
      expectBehind(await api.http.post('/api/transactions/import').set(bo.headers()).attach('csvFile', statement(LUNCH, FUEL), 'bo-2.csv'));
    } finally {
      gate.resume();
    }
    await caughtUp();

    // Nothing was imported while refused; the retries now decide on a current read model.
    expect(await transactions()).toHaveLength(3);
    expect((await importFile(statement(TEA, COFFEE.toLowerCase(), COFFEE), 'may-again.csv')).body).toMatchObject({ imported: 0, skipped: 3, alreadyImported: false });
    expect((await importFile(statement(LUNCH, FUEL), 'june.csv')).body).toMatchObject({ imported: 2, skipped: 0 });
    expect(await transactions()).toHaveLength(5);
    expect((await api.http.post('/api/receipts/upload').set(ada.headers()).attach('receipt', png(4, 4, { seed: 7 }), 'r.png')).status).toBe(201);
    expect((await api.http.delete(`/api/masterdata/categories/${String(itemRes.body.id)}`).set(ada.headers())).status).toBe(200);
    expect((await api.http.put(`/api/transactions/${randomUUID()}`).set(ada.headers()).send({ description: 'x', category: 'c', job_number: 'j', cost_code: 'k', amount: -1 })).status).toBe(404);
  });

  it('two imports of one company at once: they decide one after the other, a line both hold is taken once', async () => {
    const TAXI = '2024-07-01,CITY TAXI,-23.00,,,,,';
    const HOTEL = '2024-07-02,HARBOUR HOTEL,-210.00,,,,,';
    const TRAIN = '2024-07-03,RAIL TICKET,-41.00,,,,,';
    // The company's ledger is indexed by its first import (ADR 0023): done here, so that only the ledger's revision orders the two.
    expect((await importFile(statement('2024-07-09,PARKING,-2.00,,,,,'), 'july-0.csv')).status).toBe(200);
    const before = (await transactions()).length;
    race.armed = true;
    try {
      const [a, b] = await Promise.all([importFile(statement(TAXI, HOTEL), 'july-a.csv'), importFile(statement(HOTEL, TRAIN), 'july-b.csv')]);
      expect(race.held).toBeGreaterThanOrEqual(2); // both decided before either appended
      expect([a.status, b.status]).toEqual([200, 200]);
      expect((a.body as { imported: number }).imported + (b.body as { imported: number }).imported).toBe(3);
    } finally {
      race.armed = false;
      race.release?.();
    }
    await caughtUp();
    const now = await transactions();
    expect(now).toHaveLength(before + 3);
    expect(now.filter((t) => t.description === 'HARBOUR HOTEL')).toHaveLength(1);
  });

  it('sign-in and refresh of an account the read model does not hold yet: 503 and a retry, never a 401 (wrong password, session ended)', async () => {
    gate.pause();
    let email = '';
    let refreshToken = '';
    try {
      email = `cy-${randomUUID().slice(0, 8)}@example.com`;
      const reg = await api.http.post('/api/auth/register').send({ firstName: 'Cy', lastName: 'New', email, password: 'Passw0rdOK', companyName: 'Cy Co' });
      expect(reg.status).toBe(201);
      refreshToken = reg.body.refreshToken as string;
      expectBehind(await api.http.post('/api/auth/login').send({ email, password: 'Passw0rdOK' }));
      expectBehind(await api.http.post('/api/auth/refresh').send({ refreshToken }));
    } finally {
      gate.resume();
    }
    await caughtUp();
    expect((await api.http.post('/api/auth/login').send({ email, password: 'Passw0rdOK' })).status).toBe(200);
    expect((await api.http.post('/api/auth/refresh').send({ refreshToken })).status).toBe(200);
  });

  it('a session, or a membership, the read model does not hold yet: 503 and a retry, never 401 "session ended" or 403 "not a member"', async () => {
    const email = `dee-${randomUUID().slice(0, 8)}@example.com`;
    const reg = await api.http.post('/api/auth/register').send({ firstName: 'Dee', lastName: 'New', email, password: 'Passw0rdOK', companyName: 'Dee Co' });
    expect(reg.status).toBe(201);
    await caughtUp();
    let session: Record<string, string> = {};
    let invited: Record<string, string> = {};
    gate.pause();
    try {
      // A new sign-in (its session not projected) and an invitation into Ada's company (its membership not projected).
      const invite = await api.http.post('/api/companies/current/invite').set(ada.headers()).send({ email: bo.email, role: 'user' });
      expect(invite.status).toBe(201);
      invited = bo.headers(ada.companyId);
      const login = await api.http.post('/api/auth/login').send({ email, password: 'Passw0rdOK' });
      expect(login.status).toBe(200);
      session = { authorization: `Bearer ${login.body.accessToken as string}` };
      expectBehind(await api.http.get('/api/auth/profile').set(session));
      expectBehind(await api.http.get('/api/transactions').set(invited));
    } finally {
      gate.resume();
    }
    await caughtUp();
    expect((await api.http.get('/api/auth/profile').set(session)).status).toBe(200);
    expect((await api.http.get('/api/transactions').set(invited)).status).toBe(200);
    // Caught up, a company the caller is not a member of is still refused at once.
    const other = await api.http.get('/api/transactions').set({ ...session, 'x-company-id': ada.companyId });
    expect(other.status).toBe(403);
  });
  it('an answer says when its own write is not listed yet (X-Read-Side), and a read asked to wait for it says when it is', async () => {
    await caughtUp();
    const done = await api.http.post('/api/masterdata/categories').set(ada.headers()).send({ name: 'Parking' }).expect(201);
    expect(done.headers['x-read-side']).toBe('current');
    gate.pause();
    let position: number;
    try {
      const t = performance.now();
      const add = await api.http.post('/api/masterdata/categories').set(ada.headers()).send({ name: 'Tolls' }).expect(201);
      expect(add.headers['x-read-side']).toBe('behind');
      position = Number(add.headers['x-position']);
      expect(position).toBeGreaterThan(0);
      // Asked to wait no longer than 0 s (Prefer: wait, RFC 7240): answered at once, and says it is behind.
      const early = await api.http.get('/api/masterdata/categories').set(ada.headers()).set('x-min-position', String(position)).set('prefer', 'wait=0');
      expect(early.status).toBe(200);
      expect(early.headers['x-read-side']).toBe('behind');
      expect(early.body.map((c: { name: string }) => c.name)).not.toContain('Tolls');
      expect(performance.now() - t).toBeLessThan(3000);
      // A read that asks for no position says nothing about the read side.
      expect((await api.http.get('/api/masterdata/categories').set(ada.headers())).headers['x-read-side']).toBeUndefined();
    } finally {
      gate.resume();
    }
    const later = await api.http.get('/api/masterdata/categories').set(ada.headers()).set('x-min-position', String(position));
    expect(later.headers['x-read-side']).toBe('current');
    expect(later.body.map((c: { name: string }) => c.name)).toContain('Tolls');
  });
});


describe('an import too large to be listed within the wait (ADR 0030)', () => {
  const held = stuckProjections();
  let big: Api;
  let owner: Account;
  const waits: number[] = [];
  beforeAll(async () => {
    // Imports of more than 2 new rows count as large here; the bus's own wait is 3 s.
    big = await startApi({ READ_SIDE_WAIT_MS: '3000', IMPORT_ANSWER_WAIT_ROWS: '2' }, undefined, { wrapEvents: (e) => held.wrap(e), noJobs: true });
    owner = await registerAccount(big, { firstName: 'Lia', lastName: 'Large' });
    const runner = big.paperlink.runner;
    const waitFor = runner.waitFor.bind(runner);
    runner.waitFor = (position: number, timeoutMs?: number) => {
      waits.push(timeoutMs ?? -1);
      return waitFor(position, timeoutMs);
    };
  });
  afterAll(async () => {
    held.resume();
    await big?.close();
  });

  it('answers at once and says behind; a small one still waits for its rows to be listed', async () => {
    const post = (bytes: Buffer, name: string) => big.http.post('/api/transactions/import').set(owner.headers()).attach('csvFile', bytes, name);
    held.pause();
    let large: Awaited<ReturnType<typeof post>>;
    try {
      waits.length = 0;
      large = await post(statement(COFFEE, TEA, LUNCH), 'large.csv');
      expect(large.status).toBe(200);
      expect(large.body).toMatchObject({ imported: 3 });
      expect(large.headers['x-read-side']).toBe('behind');
      // The answer's own wait was none: the bus asked the runner for 0 ms, not its 3 s.
      expect(waits).toContain(0);
    } finally {
      held.resume();
    }
    const listed = await big.http.get('/api/transactions').set(owner.headers()).set('x-min-position', String(large.headers['x-position'])).expect(200);
    expect(listed.headers['x-read-side']).toBe('current');
    expect(listed.body.transactions).toHaveLength(3);

    waits.length = 0;
    const small = await post(statement(FUEL), 'small.csv');
    expect(small.body).toMatchObject({ imported: 1 });
    expect(small.headers['x-read-side']).toBe('current');
    expect(waits).not.toContain(0);
    expect(waits).toContain(3000);
  });
});
