import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerStream, type AppendResult, type EventStore, type StreamAppend } from '@paperlink/domain';
import { invite, registerAccount, startApi, type Account, type Api } from '../support/harness';

/**
 * docs/decisions/0016-multi-stream-commands-on-eventstoredb.md): on
 * EventStoreDB appendMany appends stream after stream, and a failure half-way keeps the streams
 * appended before it. The event store here behaves so, and fails once after a given number of
 * streams; a command must leave a state its retry completes.
 */
interface Control {
  failAfter?: number;
  /** Holds the first `count` appendMany calls until all have come: plans decided on the same state, appended together. */
  gate?: { count: number; arrived: number; open: () => void; opened: Promise<void> };
}

function gate(count: number): Control['gate'] {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { count, arrived: 0, open, opened };
}

function nonAtomic(inner: EventStore, control: Control): EventStore {
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'appendMany') {
        return async (appends: StreamAppend[]): Promise<AppendResult[]> => {
          const held = control.gate;
          if (held) {
            if (++held.arrived >= held.count) {
              control.gate = undefined;
              held.open();
            }
            await held.opened;
          }
          const out: AppendResult[] = [];
          for (const [i, a] of appends.entries()) {
            if (control.failAfter === i) {
              control.failAfter = undefined;
              throw new Error('connection to the event store lost');
            }
            out.push(...(await target.appendMany([a])));
          }
          return out;
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('multi-stream commands on a non-atomic appendMany', () => {
  const control: Control = {};
  let api: Api;
  beforeAll(async () => {
    api = await startApi({}, undefined, { wrapEvents: (events) => nonAtomic(events, control) });
  });
  afterAll(async () => api?.close());

  it('a registration that fails after claiming the email can be retried (the claim is taken over)', async () => {
    const body = { firstName: 'Half', lastName: 'Way', email: `half-${Date.now()}@example.com`, password: 'Passw0rdOK', companyName: 'Half Way Ltd' };
    control.failAfter = 1; // the email claim is appended, the user is not
    expect((await api.http.post('/api/auth/register').send(body)).status).toBe(500);
    const retried = await api.http.post('/api/auth/register').send(body);
    expect(retried.status).toBe(201);
    const login = await api.http.post('/api/auth/login').send({ email: body.email, password: body.password });
    expect(login.status).toBe(200);
    expect(login.body.user.id).toBe(retried.body.user.id);
    expect(login.body.companies.map((c: { name: string }) => c.name)).toEqual(['Half Way Ltd']);
    // Once registered, the address is taken as ever.
    expect((await api.http.post('/api/auth/register').send({ ...body, companyName: 'Other' })).status).toBe(409);
  });

  it('a registration that fails after the user (before the company) leaves an account that signs in; registering again never signs in to it', async () => {
    const body = { firstName: 'Late', lastName: 'Stop', email: `late-${Date.now()}@example.com`, password: 'Passw0rdOK', companyName: 'Late Stop Ltd' };
    control.failAfter = 2; // the email claim and the user are appended, the company and the session are not
    expect((await api.http.post('/api/auth/register').send(body)).status).toBe(500);
    // The account signs in but belongs to no company.
    const before = await api.http.post('/api/auth/login').send({ email: body.email, password: body.password });
    expect(before.status).toBe(200);
    expect(before.body.companies ?? []).toEqual([]);
    // A retry, with the password or another, is refused alike: a registration that checked the
    // password was a guess outside the sign-in throttle (ADR 0004).
    for (const password of ['Stranger0K99', body.password]) {
      const retried = await api.http.post('/api/auth/register').send({ ...body, password });
      expect(retried.status).toBe(409);
      expect(retried.body.accessToken).toBeUndefined();
    }
  });

  it('a password change that fails half-way has ended the other sessions and kept the old password; the retry changes it', async () => {
    const me = await registerAccount(api);
    const other = await api.http.post('/api/auth/login').send({ email: me.email, password: me.password });
    expect(other.status).toBe(200);
    const change = { currentPassword: me.password, newPassword: 'N3wPassw0rdOK' };

    control.failAfter = 1; // the first stream is appended, then the store fails
    const failed = await api.http.put('/api/auth/password').set(me.headers()).send(change);
    expect(failed.status).toBe(500);
    expect(control.failAfter).toBeUndefined();
    // The other session has ended, and the old password still signs in (never: a new password with other sessions open).
    expect((await api.http.post('/api/auth/refresh').send({ refreshToken: other.body.refreshToken })).status).toBe(401);
    expect((await api.http.post('/api/auth/login').send({ email: me.email, password: me.password })).status).toBe(200);

    const retried = await api.http.put('/api/auth/password').set(me.headers()).send(change);
    expect(retried.status).toBe(200);
    expect((await api.http.post('/api/auth/login').send({ email: me.email, password: change.newPassword })).status).toBe(200);
    expect((await api.http.post('/api/auth/login').send({ email: me.email, password: me.password })).status).toBe(401);
  });

  describe('a statement import (take, rows, ledger, claim, index)', () => {
    /** A statement of `rows` lines no other test has. */
    const statement = (rows: number) => {
      const tag = Math.random().toString(36).slice(2, 8);
      const lines = ['Transaction Date,Description,Amount'];
      for (let i = 0; i < rows; i++) lines.push(`2026-02-${String(1 + (i % 28)).padStart(2, '0')},SHOP ${tag} ${i},-${1 + i}.25`);
      return Buffer.from(lines.join('\n'));
    };
    const importAs = (acc: Account, csv: Buffer) => api.http.post('/api/transactions/import').set(acc.headers()).attach('csvFile', csv, 'march.csv');
    const total = async (acc: Account) => (await api.http.get('/api/transactions').query({ limit: 1 }).set(acc.headers()).expect(200)).body.pagination.total as number;
    const ledgerOf = async (acc: Account) => (await api.paperlink.adapters.events.readStream(ledgerStream(acc.companyId))).filter((e) => e.type === 'StatementImported');

    for (const [failAfter, what] of [[1, 'the take'], [2, 'the take and the rows'], [3, 'the take, the rows and the ledger']] as const) {
      it(`one that stopped after ${what} is completed by its retry: every row once, one ledger event`, async () => {
        const me = await registerAccount(api);
        // The company's first import indexes its ledger (more streams); this one is the plain plan.
        expect((await importAs(me, statement(2))).body.imported).toBe(2);
        const csv = statement(40);
        control.failAfter = failAfter;
        expect((await importAs(me, csv)).status).toBe(500);
        expect(control.failAfter).toBeUndefined();
        const retried = await importAs(me, csv);
        expect(retried.status, JSON.stringify(retried.body)).toBe(200);
        expect(retried.body).toMatchObject({ imported: 40, skipped: 0, alreadyImported: false });
        expect(await total(me)).toBe(42);
        expect((await ledgerOf(me)).map((e) => (e.data as { imported: number }).imported)).toEqual([2, 40]);
        // Complete now: the file is known.
        expect((await importAs(me, csv)).body).toMatchObject({ imported: 0, alreadyImported: true });
        expect(await total(me)).toBe(42);
      });
    }

    it('a first import stopped after its ledger event (before the claim and the index) is found imported, and claimed', async () => {
      const me = await registerAccount(api);
      const csv = statement(10);
      control.failAfter = 3;
      expect((await importAs(me, csv)).status).toBe(500);
      expect((await importAs(me, csv)).body).toMatchObject({ imported: 0, alreadyImported: true });
      expect(await total(me)).toBe(10);
      expect(await ledgerOf(me)).toHaveLength(1);
      expect((await importAs(me, statement(3))).body.imported).toBe(3);
    });

    it('one stopped half-way is not completed by someone else, who is told it is being imported', async () => {
      const admin = await registerAccount(api);
      const other = await registerAccount(api);
      await invite(api, admin, other, 'admin');
      const csv = statement(12);
      control.failAfter = 2;
      expect((await importAs(admin, csv)).status).toBe(500);
      const theirs = await api.http.post('/api/transactions/import').set(other.headers(admin.companyId)).attach('csvFile', csv, 'march.csv');
      expect(theirs.status).toBe(409);
      expect(theirs.body.code).toBe('statement_import_in_progress');
      expect((await importAs(admin, csv)).body).toMatchObject({ imported: 12 });
      expect(await total(admin)).toBe(12);
    });

    it('two imports of one file at the same moment never both land', async () => {
      const admin = await registerAccount(api);
      const other = await registerAccount(api);
      await invite(api, admin, other, 'admin');
      const csv = statement(30);
      // Both plans are made before either appends (each found the file free).
      control.gate = gate(2);
      const answers = await Promise.all([importAs(admin, csv), api.http.post('/api/transactions/import').set(other.headers(admin.companyId)).attach('csvFile', csv, 'march.csv')]);
      const imported = answers.filter((a) => a.status === 200 && a.body.imported > 0);
      expect(imported).toHaveLength(1);
      expect(answers.every((a) => a.status === 200 || (a.status === 409 && a.body.code === 'statement_import_in_progress')), JSON.stringify(answers.map((a) => a.body))).toBe(true);
      expect(control.gate).toBeUndefined();
      expect(await total(admin)).toBe(30);
      expect(await ledgerOf(admin)).toHaveLength(1);
    });
  });
});
