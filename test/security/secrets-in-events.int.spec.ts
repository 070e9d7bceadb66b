import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../infra/src/eventstore/sqlite';
import { upgradeRequestRecords } from '../../infra/src/eventstore/upgrade-request-records';
import { productHasher, startApi } from '../support/harness';

/**
 * ADR 0003: the retry fingerprint of a request was an unsalted SHA-256 of its body, so
 * events.sqlite held crackable digests of passwords. These tests search the raw bytes of the
 * event store (main file and WAL) for the passwords themselves and for every unkeyed digest
 * of the request that the old bus would have stored.
 */

const folders: string[] = [];
afterAll(() => {
  for (const d of folders) rmSync(d, { recursive: true, force: true });
});
function folder(): string {
  const d = mkdtempSync(join(tmpdir(), 'paperlink-secrets-'));
  folders.push(d);
  return d;
}

/** Every byte of the SQLite event store as it lies on disk: main file, WAL and shared memory. */
function rawEventStore(dir: string): Buffer {
  const file = join(dir, 'events.sqlite');
  return Buffer.concat([file, `${file}-wal`, `${file}-shm`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));
}

/** The digest the old bus stored: sha256 of JSON.stringify([method, path, user, company, body]), base64url. */
function oldFingerprint(parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
}

/** Unkeyed digests of a request, in the spellings a store could hold them in. */
function unkeyedDigests(parts: unknown[], body: unknown): string[] {
  const out: string[] = [];
  for (const text of [JSON.stringify(parts), JSON.stringify(body)]) {
    const d = createHash('sha256').update(text).digest();
    out.push(d.toString('base64url'), d.toString('base64'), d.toString('hex'));
  }
  return out;
}

function expectAbsent(bytes: Buffer, needles: string[]): void {
  const found = needles.filter((n) => bytes.includes(Buffer.from(n, 'utf8')));
  expect(found).toEqual([]);
}

describe('a fresh data folder', () => {
  it('register, sign-ins (good and bad), a refresh and a password change leave no password and no unkeyed digest of a body in events.sqlite', async () => {
    const dir = folder();
    const api = await startApi({}, dir, productHasher);
    const needles: string[] = [];
    const email = `secret-${randomUUID().slice(0, 8)}@example.com`;
    const password = 'Zebra-Quartz-9123!';
    const wrong = 'Wrong-Guess-4711x';
    const next = 'Marmot-Lantern-2468?';
    try {
      const register = { firstName: 'Sec', lastName: 'Ret', email, password, companyName: 'Secret Co' };
      const reg = await api.http.post('/api/auth/register').set('x-request-id', 'sec-register-0001').send(register);
      expect(reg.status).toBe(201);
      needles.push(password, ...unkeyedDigests(['POST', '/api/auth/register', null, null, register], register));
      // The record is there: a retry gets the same account (with the same password; see refresh-replay and request-id specs).
      const again = await api.http.post('/api/auth/register').set('x-request-id', 'sec-register-0001').send(register);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(reg.body);
      const otherPassword = await api.http.post('/api/auth/register').set('x-request-id', 'sec-register-0001').send({ ...register, password: 'Not-The-Same-One-99' });
      expect(otherPassword.status).toBe(409);
      expect(otherPassword.body.accessToken).toBeUndefined();

      const bad = { email, password: wrong };
      expect((await api.http.post('/api/auth/login').set('x-request-id', 'sec-login-bad-0001').send(bad)).status).toBe(401);
      needles.push(wrong, ...unkeyedDigests(['POST', '/api/auth/login', null, null, bad], bad));

      const good = { email, password };
      const login = await api.http.post('/api/auth/login').set('x-request-id', 'sec-login-good-0001').send(good);
      expect(login.status).toBe(200);
      needles.push(...unkeyedDigests(['POST', '/api/auth/login', null, null, good], good));
      // The password is not in the fingerprint, so the replay of a sign-in is bound to it another way:
      // the request id of a successful sign-in with a wrong password gets a 401, not the tokens.
      const replayWrong = await api.http.post('/api/auth/login').set('x-request-id', 'sec-login-good-0001').send(bad);
      expect(replayWrong.status).toBe(401);
      expect(replayWrong.body.accessToken).toBeUndefined();
      const replayRight = await api.http.post('/api/auth/login').set('x-request-id', 'sec-login-good-0001').send(good);
      expect(replayRight.status).toBe(200);
      expect(replayRight.body).toEqual(login.body);

      const refreshBody = { refreshToken: login.body.refreshToken as string };
      const refreshed = await api.http.post('/api/auth/refresh').set('x-request-id', 'sec-refresh-0001').send(refreshBody);
      expect(refreshed.status).toBe(200);
      needles.push(refreshBody.refreshToken, refreshed.body.refreshToken, refreshed.body.accessToken, ...unkeyedDigests(['POST', '/api/auth/refresh', null, null, refreshBody], refreshBody));

      const auth = { authorization: `Bearer ${refreshed.body.accessToken}` };
      const wrongChange = { currentPassword: wrong, newPassword: 'Never-Set-1357#' };
      const refused = await api.http.put('/api/auth/password').set(auth).set('x-request-id', 'sec-password-bad-01').send(wrongChange);
      expect(refused.status).toBeGreaterThanOrEqual(400);
      needles.push(wrongChange.newPassword, ...unkeyedDigests(['PUT', '/api/auth/password', reg.body.user.id, null, wrongChange], wrongChange));

      const change = { currentPassword: password, newPassword: next };
      const changed = await api.http.put('/api/auth/password').set(auth).set('x-request-id', 'sec-password-0001').send(change);
      expect(changed.status).toBe(200);
      needles.push(next, ...unkeyedDigests(['PUT', '/api/auth/password', reg.body.user.id, null, change], change));

      // The records hold none of it, neither while the server runs nor after it stops.
      expectAbsent(rawEventStore(dir), needles);
    } finally {
      await api.close();
    }
    expectAbsent(rawEventStore(dir), needles);
  });
});

describe('a data folder written by the old bus', () => {
  /** RequestCompleted records exactly as the bus before this fix appended them. */
  async function oldFolder(dir: string, email: string, password: string) {
    const store = new SqliteEventStore(join(dir, 'events.sqlite'));
    const requests = [
      { id: 'old-register-00001', parts: ['POST', '/api/auth/register', null, null, { firstName: 'Old', lastName: 'Folder', email, password, companyName: 'Old Co' }], status: 201, body: { user: { id: 'u-old' } } },
      { id: 'old-login-bad-0001', parts: ['POST', '/api/auth/login', null, null, { email, password: 'Typo-Of-The-Real-One1' }], status: 401, body: { error: 'Invalid email or password', code: 'invalid_credentials' } },
      { id: 'old-login-good-001', parts: ['POST', '/api/auth/login', null, null, { email, password }], status: 200, body: { user: { id: 'u-old' } } },
      { id: 'old-password-00001', parts: ['PUT', '/api/auth/password', 'u-old', null, { currentPassword: password, newPassword: 'Next-Secret-Pass42' }], status: 200, body: { success: true } },
      { id: 'old-profile-000001', parts: ['PUT', '/api/auth/profile', 'u-old', null, { firstName: 'A', lastName: 'B' }], status: 200, body: { message: 'ok' } },
    ];
    for (const r of requests) {
      const stream = `request-${createHash('sha256').update(r.id).digest('hex').slice(0, 40)}`;
      await store.appendToStream(stream, [{
        id: randomUUID(),
        type: 'RequestCompleted',
        data: { requestId: r.id, fingerprint: oldFingerprint(r.parts), status: r.status, body: r.body },
        metadata: { requestId: r.id, correlationId: r.id, causationId: r.id, occurredAt: new Date().toISOString() },
      }], 'no_stream');
    }
    await store.close();
    return requests;
  }

  it('is repaired on start: no event holds the old digest of a request, and the folder keeps working', async () => {
    const dir = folder();
    const email = `old-${randomUUID().slice(0, 8)}@example.com`;
    const password = 'Old-Folder-Secret-77';
    // A real account in the folder, signed up by today's code without a request id (no record).
    const first = await startApi({}, dir, productHasher);
    expect((await first.http.post('/api/auth/register').send({ firstName: 'Old', lastName: 'Folder', email, password, companyName: 'Old Co' })).status).toBe(201);
    await first.close();
    const requests = await oldFolder(dir, email, password);
    const digests = requests.map((r) => oldFingerprint(r.parts));
    expect(digests.every((d) => rawEventStore(dir).includes(Buffer.from(d)))).toBe(true); // the fixture holds them

    const api = await startApi({}, dir, productHasher);
    try {
      expectAbsent(rawEventStore(dir), digests);
      // The records are still there, without a fingerprint: a retry across the upgrade is refused, never replayed blindly.
      const head = await api.paperlink.adapters.events.headPosition();
      const retried = await api.http.post('/api/auth/login').set('x-request-id', 'old-login-good-001').send({ email, password });
      expect(retried.status).toBe(409);
      expect(retried.body.code).toBe('request_id_reused');
      expect(await api.paperlink.adapters.events.headPosition()).toBe(head);
      // Everything else works as before.
      expect((await api.http.post('/api/auth/login').send({ email, password })).status).toBe(200);
    } finally {
      await api.close();
    }
    expectAbsent(rawEventStore(dir), digests);
  });

  it('the upgrade step is idempotent: a second run rewrites nothing', async () => {
    const dir = folder();
    await oldFolder(dir, 'x@example.com', 'Whatever-Pass-1');
    const file = join(dir, 'events.sqlite');
    expect(upgradeRequestRecords(file)).toBe(5);
    expect(upgradeRequestRecords(file)).toBe(0);
  });
});
