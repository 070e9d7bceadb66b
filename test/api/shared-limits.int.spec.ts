/**
 * Sign-in limits do not multiply with the number of processes (docs/decisions/0004): two command
 * processes and a projector on one data folder (ADR 0025), here as three instances in this test
 * process, share the folder's limit store (limits.sqlite). Failures spread over both command
 * processes count together: per address, at an e-mail of no account, and at an account (whose
 * throttle is in its event streams, which every process reads: shared already).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAccount, startApi, type Api } from '../support/harness';
import { from, login } from '../support/proxied';

const dir = mkdtempSync(join(tmpdir(), 'paperlink-shared-limits-'));
const shared = {
  JWT_SECRET: 'shared-limits-test-secret-0123456789abcdef',
  TRUST_PROXY: 'loopback',
  READ_STORE: 'sqlite',
  LOGIN_MAX_FAILURES_PER_ADDRESS: '3',
  LOGIN_ADDRESS_WINDOW_SECONDS: '600',
  WORKER_THREADS: '1',
} as const;
let projector: Api;
let a: Api;
let b: Api;

beforeAll(async () => {
  projector = await startApi({ ...shared, PAPERLINK_ROLE: 'projector' }, dir, { noJobs: true });
  a = await startApi({ ...shared, PAPERLINK_ROLE: 'command' }, dir, { noJobs: true });
  b = await startApi({ ...shared, PAPERLINK_ROLE: 'command' }, dir, { noJobs: true });
}, 90_000);
afterAll(async () => {
  for (const api of [a, b, projector]) await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

const ghost = () => `ghost-${randomUUID().slice(0, 8)}@example.com`;

describe('sign-in limits shared by two command processes', () => {
  it('the limit store is the data folder’s file', () => {
    expect(existsSync(join(dir, 'limits.sqlite'))).toBe(true);
  });

  it('allow no more than LOGIN_MAX_FAILURES_PER_ADDRESS failures per address, spread over both', async () => {
    const address = '203.0.113.10';
    expect((await login(a, address, ghost(), 'Wrong-guess-1')).status).toBe(401);
    expect((await login(b, address, ghost(), 'Wrong-guess-2')).status).toBe(401);
    expect((await login(a, address, ghost(), 'Wrong-guess-3')).status).toBe(401);
    for (const api of [b, a]) {
      const refused = await login(api, address, ghost(), 'Wrong-guess-4');
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ code: 'login_rate_limited', error: 'Too many failed sign-in attempts from this address. Try again later.' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(590);
    }
    // another address is not affected
    expect((await login(b, '203.0.113.11', ghost(), 'Wrong-guess-5')).status).toBe(401);
  }, 60_000);

  it('a wrong current password in one process spends the budget that sign-ins in the other spend', async () => {
    const owner = await registerAccount(a);
    const address = '203.0.113.20';
    const change = await a.http.put('/api/auth/password').set(owner.headers()).set(from(address)).send({ currentPassword: 'Not-the-password1', newPassword: 'New-passw0rd-ok' });
    expect(change.status).toBe(400);
    expect((await login(b, address, ghost(), 'Wrong-guess-1')).status).toBe(401);
    expect((await login(a, address, ghost(), 'Wrong-guess-2')).status).toBe(401);
    expect((await login(b, address, owner.email, owner.password)).status).toBe(429);
  }, 60_000);

  it('an e-mail of no account is throttled over both as an account is (a 429 does not tell which exists)', async () => {
    const owner = await registerAccount(b);
    // Six failures from six addresses, alternating processes: the account's next try from an
    // address that failed waits 2^(6-3) s after that address's failure (ADR 0004).
    const attempts = async (email: string, base: number) => {
      const addresses = Array.from({ length: 6 }, (_, i) => `203.0.113.${base + i}`);
      const statuses: number[] = [];
      for (const [i, address] of addresses.entries()) statuses.push((await login(i % 2 ? b : a, address, email, `Wrong-guess-${i}`)).status);
      const again = await login(b, addresses[0]!, email, 'Wrong-guess-again');
      return { statuses: [...statuses, again.status], body: again.body, wait: Number(again.headers['retry-after']) };
    };
    const real = await attempts(owner.email, 30);
    const none = await attempts(ghost(), 40);
    expect(real.statuses).toEqual([401, 401, 401, 401, 401, 401, 429]);
    expect(none.statuses).toEqual(real.statuses);
    expect(none.body).toEqual(real.body);
    expect(none.body).toMatchObject({ code: 'login_rate_limited', error: 'Too many failed sign-in attempts. Try again later.' });
    for (const { wait } of [real, none]) {
      expect(wait).toBeGreaterThan(1);
      expect(wait).toBeLessThanOrEqual(8);
    }
  }, 60_000);
});
