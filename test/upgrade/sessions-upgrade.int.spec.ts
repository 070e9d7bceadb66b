import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { userSnapshotStream, userStream } from '@paperlink/domain';
import { startApi, type Api } from '../support/harness';
import { probing, type Probe } from '../support/sign-ins';

/**
 * A data folder written by 3dfe0f7 (every sign-in in `user-<id>`; made by
 * test/fixtures/sessions-3dfe0f7/make.ts) keeps working under ADR 0022: its passwords sign in,
 * its refresh tokens refresh or are refused exactly as before, a password change still ends the
 * old sessions, and its long user stream is read from a checkpoint after the first time.
 * The clock is set two minutes after the folder was made, inside the tokens' lifetimes.
 */
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'sessions-3dfe0f7');
type Tokens = { accessToken: string; refreshToken: string };
const facts = JSON.parse(readFileSync(join(FIXTURE, 'facts.json'), 'utf8')) as {
  madeAt: string;
  jwtSecret: string;
  home: string;
  ada: { email: string; password: string; userId: string; registration: Tokens; live: Tokens[]; rotated0: Tokens; rotated1: Tokens; reused0: Tokens; reused1: Tokens; loggedOut: Tokens };
  bo: { email: string; oldPassword: string; password: string; ended: Tokens; laptop: Tokens };
  cy: { email: string; password: string; before: Tokens; after: Tokens };
};

let dir: string;
let api: Api;
const probe: Probe = { read: 0 };
let now = Date.parse(facts.madeAt) + 120_000;
const tick = () => vi.setSystemTime((now += 1000));

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  tick();
  dir = mkdtempSync(join(tmpdir(), 'paperlink-sessions-3dfe0f7-'));
  cpSync(join(FIXTURE, 'data'), dir, { recursive: true });
  api = await startApi({ JWT_SECRET: facts.jwtSecret, TRUST_PROXY: 'loopback' }, dir, { wrapEvents: probing(probe) });
});
afterAll(async () => {
  vi.useRealTimers();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

const refresh = (t: Tokens) => api.http.post('/api/auth/refresh').send({ refreshToken: t.refreshToken });
const profile = (t: Tokens) => api.http.get('/api/auth/profile').set({ authorization: `Bearer ${t.accessToken}` });
/** The whole log after a position (a store may answer in pages). */
async function logAfter(position: number) {
  const out = [];
  for (let after = position; ; ) {
    const page = await api.paperlink.adapters.events.readAll({ after, maxCount: 10_000 });
    if (page.length === 0) return out;
    out.push(...page);
    after = page[page.length - 1]!.position;
  }
}
const login = (email: string, password: string, address = facts.home) => api.http.post('/api/auth/login').set('x-forwarded-for', address).send({ email, password });

describe('sessions recorded by 3dfe0f7', () => {
  it('live refresh tokens refresh; the long user stream is checkpointed once, then read from there', async () => {
    const stream = await api.paperlink.adapters.events.readStream(userStream(facts.ada.userId));
    expect(stream.filter((e) => e.type === 'UserLoggedIn').length).toBeGreaterThanOrEqual(60);
    const first = await refresh(facts.ada.live[0]!);
    expect(first.status).toBe(200);
    expect(await api.paperlink.adapters.events.readStream(userSnapshotStream(facts.ada.userId))).toHaveLength(1);
    tick();
    probe.read = 0;
    const second = await refresh(facts.ada.live[1]!);
    expect(second.status).toBe(200);
    console.log(`a refresh of the upgraded user with ${stream.length} events in user-<id> read ${probe.read} events`);
    expect(probe.read).toBeLessThanOrEqual(6);
    expect((await profile(second.body as Tokens)).status).toBe(200);
    expect((await profile(facts.ada.live[2]!)).status).toBe(200);
  });

  it('a rotated family refreshes from its newest token, and its older token revokes it as before', async () => {
    tick();
    const next = await refresh(facts.ada.rotated1);
    expect(next.status).toBe(200);
    tick();
    expect((await refresh(facts.ada.rotated0)).status).toBe(401);
    expect((await refresh(next.body as Tokens)).status).toBe(401);
  });

  it('families revoked for reuse, signed out, ended by a password change or by "sign out everywhere" stay refused', async () => {
    tick();
    for (const t of [facts.ada.reused0, facts.ada.reused1, facts.ada.loggedOut, facts.bo.ended, facts.cy.before]) {
      expect((await refresh(t)).status).toBe(401);
      expect((await profile(t)).status).toBe(401);
    }
    expect((await refresh(facts.bo.laptop)).status).toBe(200);
    expect((await refresh(facts.cy.after)).status).toBe(200);
  });

  it('old passwords sign in as before, changed ones do not; the known address needs no new mark', async () => {
    tick();
    expect((await login(facts.ada.email, 'Wrong-guess-1')).status).toBe(401);
    tick();
    expect((await login(facts.ada.email, facts.ada.password)).status).toBe(200);
    expect((await login(facts.bo.email, facts.bo.oldPassword)).status).toBe(401);
    tick();
    expect((await login(facts.bo.email, facts.bo.password)).status).toBe(200);
    const head = await api.paperlink.adapters.events.headPosition();
    const log = await logAfter(0);
    // the address Ada signed in from under 3dfe0f7 is known from her old stream; a new one gets its mark
    expect(log.filter((e) => e.type === 'UserSignInSourceRecorded' && (e.data as { userId: string }).userId === facts.ada.userId)).toHaveLength(0);
    tick();
    expect((await login(facts.ada.email, facts.ada.password, '203.0.113.9')).status).toBe(200);
    const after = await logAfter(head);
    expect(after.filter((e) => e.type === 'UserSignInSourceRecorded' && (e.data as { userId: string }).userId === facts.ada.userId)).toHaveLength(1);
  });

  it('a password change ends every old session but the current one', async () => {
    tick();
    const current = facts.ada.live[3]!;
    const changed = await api.http.put('/api/auth/password').set({ authorization: `Bearer ${current.accessToken}` }).send({ currentPassword: facts.ada.password, newPassword: 'Upgraded-Passw0rd' });
    expect(changed.status).toBe(200);
    tick();
    for (const t of [facts.ada.live[4]!, facts.ada.registration]) {
      expect((await refresh(t)).status).toBe(401);
      expect((await profile(t)).status).toBe(401);
    }
    expect((await profile(current)).status).toBe(200);
    expect((await refresh(current)).status).toBe(200);
    expect((await login(facts.ada.email, facts.ada.password)).status).toBe(401);
    tick();
    expect((await login(facts.ada.email, 'Upgraded-Passw0rd')).status).toBe(200);
  });
});
