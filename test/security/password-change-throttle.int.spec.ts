import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { productHasher, registerAccount, startApi, type Account, type Api } from '../support/harness';
import { botnet, from, login, PROXIED } from '../support/proxied';

/**
 * PUT /api/auth/password checks the current password: with a stolen access token it is a
 * password oracle. A wrong current password counts as a failed attempt of the account under the
 * sign-in policy (docs/decisions/0004-sign-in-throttling.md): per address (and per session),
 * with growing delays, within the account's 100 failures an hour and the per-address budget.
 */
let api: Api | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const change = (a: Api, token: string, address: string, currentPassword: string, newPassword = 'Brand-New-Passw0rd') =>
  a.http.put('/api/auth/password').set({ ...from(address), authorization: `Bearer ${token}` }).send({ currentPassword, newPassword });

/** Sequential wrong current passwords with one token from one address; their statuses. */
async function wrongChanges(a: Api, token: string, address: string, n: number): Promise<Array<{ status: number; code: string; retryAfter: number }>> {
  const out = [];
  for (let i = 0; i < n; i++) {
    const res = await change(a, token, address, `Wrong-current-${i}`);
    out.push({ status: res.status, code: res.body.code as string, retryAfter: Number(res.headers['retry-after'] ?? 0) });
  }
  return out;
}

function expectLimited(res: { status: number; body: { code?: string; error?: string }; headers: Record<string, string> }, min = 1, max = 3600) {
  expect(res.status).toBe(429);
  expect(res.body.code).toBe('password_change_rate_limited');
  expect(res.body.error).toMatch(/try again later/i);
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(min);
  expect(retryAfter).toBeLessThanOrEqual(max);
}

describe('a stolen access token cannot guess the current password at full speed', () => {
  it('wrong current passwords in a row: after 3 the session and address wait (growing delays); the owner changes it from a fresh session', async () => {
    api = await startApi(PROXIED, undefined, productHasher);
    const owner = await registerAccount(api);
    const stolen = owner.accessToken;
    const attacker = '203.0.113.5';

    const first = await wrongChanges(api, stolen, attacker, 12);
    expect(first.slice(0, 3).map((r) => [r.status, r.code])).toEqual([[400, 'wrong_password'], [400, 'wrong_password'], [400, 'wrong_password']]);
    for (const r of first.slice(3)) {
      expect([r.status, r.code]).toEqual([429, 'password_change_rate_limited']);
      expect(r.retryAfter).toBeGreaterThanOrEqual(1);
    }
    // a refused try is not checked at all: the right password gets the same 429
    expectLimited(await change(api, stolen, attacker, owner.password));
    // moving to another address with the same session does not start afresh
    expectLimited(await change(api, stolen, '203.0.113.6', 'Wrong-current-x'));

    // the delay grows: after it, one more check, then a longer wait
    await new Promise((r) => setTimeout(r, 1100));
    const fourth = await change(api, stolen, attacker, 'Wrong-current-4');
    expect([fourth.status, fourth.body.code]).toEqual([400, 'wrong_password']);
    expectLimited(await change(api, stolen, attacker, 'Wrong-current-5'), 2, 2);

    // the failures are in the user stream, with a keyed tag of the address, never the address
    const log = await api.paperlink.adapters.events.readAll({ after: 0, maxCount: 100_000 });
    const failed = log.filter((e) => e.type === 'UserPasswordChangeFailed' && (e.data as { userId: string }).userId === owner.userId);
    expect(failed).toHaveLength(4);
    expect(JSON.stringify(failed)).not.toContain('203.0.113');
    expect(JSON.stringify(failed)).not.toContain('Wrong-current');

    // the owner, from a fresh session at an address the attacker has not used, changes the password
    const session = await login(api, '192.0.2.10', owner.email, owner.password);
    expect(session.status).toBe(200);
    const changed = await change(api, session.body.accessToken as string, '192.0.2.10', owner.password);
    expect(changed.status).toBe(200);
    // and the stolen session ends with it
    expect((await change(api, stolen, attacker, 'Brand-New-Passw0rd', 'Another-Passw0rd')).status).toBe(401);
  }, 60_000);

  it('wrong current passwords count towards the account’s 100 failures an hour', async () => {
    api = await startApi(PROXIED, undefined, productHasher);
    const owner = await registerAccount(api);
    const attacker = '203.0.113.20';
    expect((await wrongChanges(api, owner.accessToken, attacker, 3)).map((r) => r.status)).toEqual([400, 400, 400]);
    const addresses = botnet(97);
    for (const [i, address] of addresses.entries()) expect((await login(api, address, owner.email, `Wrong-guess-${i}`)).status).toBe(401);

    // 3 + 97 = 100 failures this hour: the cap applies (not just the one-minute delay)
    const capped = await login(api, addresses[0]!, owner.email, owner.password);
    expect(capped.status).toBe(429);
    expect(capped.body.code).toBe('login_rate_limited');
    expect(Number(capped.headers['retry-after'])).toBeGreaterThan(3000);
    expectLimited(await change(api, owner.accessToken, attacker, owner.password), 3001, 3600);
    // a new address gets one check, then it is stopped like the others
    expect((await change(api, owner.accessToken, '203.0.113.21', 'Wrong-current-y')).status).toBe(429);
    expect((await login(api, '192.0.2.77', owner.email, 'Another-guess1')).status).toBe(401);
    expect((await login(api, '192.0.2.77', owner.email, 'Another-guess2')).status).toBe(429);

    // the owner still gets in from a clean address, and changes the password there
    const session = await login(api, '192.0.2.30', owner.email, owner.password);
    expect(session.status).toBe(200);
    expect((await change(api, session.body.accessToken as string, '192.0.2.30', owner.password)).status).toBe(200);
  }, 120_000);

  it('20 parallel wrong current passwords with one token: no more than 3 are answered as checked', async () => {
    api = await startApi(PROXIED, undefined, productHasher);
    const owner = await registerAccount(api);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => change(api!, owner.accessToken, '203.0.113.40', `Wrong-current-${i}`)));
    const checked = results.filter((r) => r.status !== 429);
    console.log(`20 parallel wrong current passwords: ${checked.length} answered 400, ${20 - checked.length} answered 429`);
    expect(checked.length).toBeLessThanOrEqual(3);
    expect(checked.every((r) => r.status === 400 && r.body.code === 'wrong_password')).toBe(true);
    for (const r of results.filter((x) => x.status === 429)) expect(r.body.code).toBe('password_change_rate_limited');
  }, 60_000);

  it('they spend the address’s budget of failed attempts, shared with sign-in', async () => {
    api = await startApi({ ...PROXIED, LOGIN_MAX_FAILURES_PER_ADDRESS: '3' }, undefined, productHasher);
    const address = '203.0.113.60';
    const accounts: Account[] = [];
    for (let i = 0; i < 3; i++) accounts.push(await registerAccount(api));
    for (const a of accounts) expect((await change(api, a.accessToken, address, 'Wrong-current-1')).status).toBe(400);
    // the address has used its budget: another account's token is refused there, as is a sign-in
    const fourth = await registerAccount(api);
    expectLimited(await change(api, fourth.accessToken, address, 'Wrong-current-1'), 1, 900);
    expect((await login(api, address, `ghost-${randomUUID().slice(0, 8)}@example.com`, 'Wrong-guess-1')).status).toBe(429);
    // elsewhere nothing changed, and a right password (which does not count as a failure) goes through
    expect((await change(api, fourth.accessToken, '203.0.113.61', fourth.password)).status).toBe(200);
  }, 60_000);
});
