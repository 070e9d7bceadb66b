import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { productHasher, registerAccount, startApi, type Api } from '../support/harness';
import { botnet, login, PROXIED } from '../support/proxied';

let api: Api | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** Sequential wrong guesses at one account, one per address; their statuses. */
async function guess(a: Api, email: string, addresses: string[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const [i, address] of addresses.entries()) statuses.push((await login(a, address, email, `Wrong-guess-${i}`)).status);
  return statuses;
}

describe('sign-in throttling cannot be turned against the owner', () => {
  it('the owner signs in with the right password from a clean address after 120 failures from others', async () => {
    api = await startApi(PROXIED, undefined, productHasher);
    const owner = await registerAccount(api);
    const statuses = await guess(api, owner.email, botnet(120));
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    const res = await login(api, '192.0.2.10', owner.email, owner.password);
    expect(res.status).toBe(200);
    expect(res.body.accessToken).toBeTruthy();
  }, 120_000);

  it('the per-account hourly cap still holds for guessing: addresses that failed get 429, even with the right password', async () => {
    api = await startApi(PROXIED, undefined, productHasher);
    const owner = await registerAccount(api);
    const addresses = botnet(100);
    expect(await guess(api, owner.email, addresses)).toEqual(addresses.map(() => 401));
    // the account has had its 100 failures this hour: every address that took part is stopped,
    // whatever it sends (a right guess is not even checked)
    for (const address of addresses.slice(0, 20)) {
      const res = await login(api, address, owner.email, owner.password);
      expect(res.status).toBe(429);
      expect(res.body.code).toBe('login_rate_limited');
      const retryAfter = Number(res.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(3000);
      expect(retryAfter).toBeLessThanOrEqual(3600);
    }
    // a new address gets one check; when it fails, that address is stopped too
    expect((await login(api, '192.0.2.77', owner.email, 'Another-guess1')).status).toBe(401);
    expect((await login(api, '192.0.2.77', owner.email, 'Another-guess2')).status).toBe(429);
    // other accounts are not affected
    const other = await registerAccount(api);
    expect((await login(api, addresses[0]!, other.email, other.password)).status).toBe(200);
  }, 120_000);

  it('guessing from one address slows down: after 3 failures each try waits longer (exponential)', async () => {
    api = await startApi(PROXIED, undefined, productHasher);
    const owner = await registerAccount(api);
    const address = '192.0.2.50';
    expect(await guess(api, owner.email, [address, address, address])).toEqual([401, 401, 401]);
    const slowed = await login(api, address, owner.email, 'Fourth-guess1');
    expect(slowed.status).toBe(429);
    expect(Number(slowed.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // the owner, elsewhere, is not slowed down
    expect((await login(api, '192.0.2.51', owner.email, owner.password)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await login(api, address, owner.email, 'Fourth-guess1')).status).toBe(401);
    const longer = await login(api, address, owner.email, 'Fifth-guess1');
    expect(longer.status).toBe(429);
    expect(Number(longer.headers['retry-after'])).toBe(2);
  }, 30_000);

  it('an email of no account is throttled the same way (a 429 does not tell that an account exists)', async () => {
    api = await startApi(PROXIED, undefined, productHasher);
    const owner = await registerAccount(api);
    const ghost = `ghost-${randomUUID().slice(0, 8)}@example.com`;
    const real = await guess(api, owner.email, ['192.0.2.60', '192.0.2.60', '192.0.2.60', '192.0.2.60']);
    const none = await guess(api, ghost, ['192.0.2.61', '192.0.2.61', '192.0.2.61', '192.0.2.61']);
    expect(real).toEqual([401, 401, 401, 429]);
    expect(none).toEqual(real);
  }, 30_000);

  it('150 parallel failed attempts from one address: no more than the per-address limit are checked', async () => {
    api = await startApi({ ...PROXIED, LOGIN_MAX_FAILURES_PER_ADDRESS: '50' }, undefined, productHasher);
    const address = '192.0.2.99';
    const results = await Promise.all(
      Array.from({ length: 150 }, (_, i) => login(api!, address, `nobody-${i}-${randomUUID().slice(0, 6)}@example.com`, 'Wrong-guess-1')),
    );
    const checked = results.filter((r) => r.status !== 429);
    console.log(`150 parallel failed sign-ins from one address (limit 50): ${checked.length} checked, ${150 - checked.length} answered 429`);
    expect(checked.length).toBeLessThanOrEqual(50);
    expect(checked.every((r) => r.status === 401)).toBe(true);
    expect(results.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(100);
    // another address is not affected
    const owner = await registerAccount(api);
    expect((await login(api, '192.0.2.100', owner.email, owner.password)).status).toBe(200);
  }, 120_000);

  it('a successful sign-in frees its address (a reserved slot is given back)', async () => {
    api = await startApi({ ...PROXIED, LOGIN_MAX_FAILURES_PER_ADDRESS: '3' }, undefined, productHasher);
    const owner = await registerAccount(api);
    const address = '192.0.2.120';
    for (let i = 0; i < 5; i++) expect((await login(api, address, owner.email, owner.password)).status).toBe(200);
    expect(await guess(api, `ghost-${randomUUID()}@example.com`, [address, address, address])).toEqual([401, 401, 401]);
    expect((await login(api, address, owner.email, owner.password)).status).toBe(429);
  }, 60_000);

  it('the per-account counts survive a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paperlink-throttle-'));
    try {
      api = await startApi(PROXIED, dir, productHasher);
      const owner = await registerAccount(api);
      const addresses = botnet(100);
      expect(await guess(api, owner.email, addresses)).toEqual(addresses.map(() => 401));
      await api.close();
      api = await startApi(PROXIED, dir, productHasher);
      expect((await login(api, addresses[5]!, owner.email, owner.password)).status).toBe(429);
      expect((await login(api, '192.0.2.200', owner.email, owner.password)).status).toBe(200);
    } finally {
      await api?.close();
      api = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
