/**
 * Sign-in limits do not multiply with the number of processes (docs/decisions/0004): two command
 * processes and a projector on one data folder (ADR 0025), here as three instances in this test
 * process, share the limit store: the folder's limits.sqlite, or MongoDB with MONGO_URL (FerretDB
 * here). Failures spread over both command processes count together: per address, at an e-mail
 * of no account, and at an account (whose throttle is in its event streams, which every process
 * reads: shared already).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../infra/src/config';
import { registerAccount, startApi, type Api } from '../support/harness';
import { from, login } from '../support/proxied';

const SHARED = {
  JWT_SECRET: 'shared-limits-test-secret-0123456789abcdef',
  TRUST_PROXY: 'loopback',
  LOGIN_MAX_FAILURES_PER_ADDRESS: '3',
  LOGIN_ADDRESS_WINDOW_SECONDS: '600',
  WORKER_THREADS: '1',
} as const;
const ghost = () => `ghost-${randomUUID().slice(0, 8)}@example.com`;

function sharedLimits(name: string, env: Partial<Record<keyof Config, string>>, store: (dir: string) => Promise<boolean>): void {
  describe(`sign-in limits shared by two command processes: ${name}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'paperlink-shared-limits-'));
    let projector: Api;
    let a: Api;
    let b: Api;
    beforeAll(async () => {
      projector = await startApi({ ...SHARED, ...env, PAPERLINK_ROLE: 'projector' }, dir, { noJobs: true });
      a = await startApi({ ...SHARED, ...env, PAPERLINK_ROLE: 'command' }, dir, { noJobs: true });
      b = await startApi({ ...SHARED, ...env, PAPERLINK_ROLE: 'command' }, dir, { noJobs: true });
    }, 90_000);
    afterAll(async () => {
      for (const api of [a, b, projector]) await api?.close();
      rmSync(dir, { recursive: true, force: true });
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
      // Eight failures from eight addresses, alternating processes: the account's next try from an
      // address that failed waits 2^(8-3) s after that address's failure (ADR 0004).
      const attempts = async (email: string, base: number) => {
        const addresses = Array.from({ length: 8 }, (_, i) => `203.0.113.${base + i}`);
        const statuses: number[] = [];
        for (const [i, address] of addresses.entries()) statuses.push((await login(i % 2 ? b : a, address, email, `Wrong-guess-${i}`)).status);
        const again = await login(b, addresses[0]!, email, 'Wrong-guess-again');
        return { statuses: [...statuses, again.status], body: again.body, wait: Number(again.headers['retry-after']) };
      };
      const real = await attempts(owner.email, 30);
      const none = await attempts(ghost(), 40);
      expect(real.statuses).toEqual([401, 401, 401, 401, 401, 401, 401, 401, 429]);
      expect(none.statuses).toEqual(real.statuses);
      expect(none.body).toEqual(real.body);
      expect(none.body).toMatchObject({ code: 'login_rate_limited', error: 'Too many failed sign-in attempts. Try again later.' });
      for (const { wait } of [real, none]) {
        expect(wait).toBeGreaterThan(1);
        expect(wait).toBeLessThanOrEqual(32);
      }
    }, 60_000);

    it('keeps them in the store the processes share', async () => {
      expect(await store(dir)).toBe(true);
    });
  });
}

sharedLimits('embedded, the data folder’s limits.sqlite', { READ_STORE: 'sqlite' }, async (dir) => existsSync(join(dir, 'limits.sqlite')));

const mongo = process.env.MONGO_URL;
if (mongo) {
  const db = `paperlink_shared_limits_${Date.now()}_${process.pid}`;
  afterAll(async () => {
    const client = await new MongoClient(mongo).connect();
    await client.db(db).dropDatabase();
    await client.close();
  });
  sharedLimits('MongoDB (MONGO_URL)', { MONGO_URL: mongo, MONGO_DB: db }, async (dir) => {
    const client = await new MongoClient(mongo).connect();
    try {
      return !existsSync(join(dir, 'limits.sqlite')) && (await client.db(db).collection('_limits').countDocuments()) > 0;
    } finally {
      await client.close();
    }
  });
} else {
  const why = 'MONGO_URL is not set';
  console.warn(`SKIPPED sign-in limits shared by two command processes: MongoDB: ${why}`);
  describe.skip(`sign-in limits shared by two command processes: MongoDB (skipped: ${why})`, () => {
    it('shares the sign-in limits through MongoDB', () => {});
  });
}
