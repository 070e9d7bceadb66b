import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createPaperlink, type Paperlink, type PaperlinkOptions } from '../../infra/src/app';
import { loadConfig, type Config } from '../../infra/src/config';
import { Argon2Hasher } from '../../infra/src/passwords';
import type { PasswordHasher } from '@paperlink/command-api';

export interface Api {
  paperlink: Paperlink;
  http: ReturnType<typeof request>;
  dataDir: string;
  close(): Promise<void>;
}

/** What the test hasher's hashes begin with (tests that look for password material look for it too). */
export const TEST_HASH_PREFIX = 'test-hmac$';
const TEST_HASH_KEY = randomBytes(32);
const ARGON2 = new Argon2Hasher();

/**
 * The password hasher of in-process tests unless a test passes its own: HMAC-SHA256 under a key
 * made for this test process, so a test's folder holds no unkeyed digest of a password either. It
 * verifies the product's argon2id hashes too (folders made by earlier versions). argon2id costs
 * 40-55 ms of CPU per hash or verify on the 2-core machines here, and `make test` registers and
 * signs in thousands of times: this keeps it under its 15 minutes. The product's hasher is what
 * the password and throttling tests (`productHasher`), the server-process and browser tests run.
 */
const testHash = (password: string): string => TEST_HASH_PREFIX + createHmac('sha256', TEST_HASH_KEY).update(password).digest('base64url');
export const testHasher: PasswordHasher = {
  hash: async (password) => testHash(password),
  async verify(hash, password) {
    if (!hash.startsWith(TEST_HASH_PREFIX)) return ARGON2.verify(hash, password);
    const want = Buffer.from(testHash(password));
    const got = Buffer.from(hash);
    return got.length === want.length && timingSafeEqual(got, want);
  },
};

/** `startApi`'s options for a test of password handling itself: the product's argon2id hasher. */
export const productHasher: PaperlinkOptions = { hasher: ARGON2 };

/** The whole product in this process, on a fresh data folder (`testHasher` unless `options.hasher`). */
export async function startApi(env: Partial<Record<keyof Config, string>> = {}, dataDir?: string, options: PaperlinkOptions = {}): Promise<Api> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'paperlink-api-'));
  const config = loadConfig({ DATA_DIR: dir, WEB_DIST: join(dir, 'no-web'), ...env });
  const paperlink = await createPaperlink(config, { hasher: testHasher, ...options });
  return {
    paperlink,
    http: request(paperlink.app),
    dataDir: dir,
    async close() {
      await paperlink.close();
      if (!dataDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Until no job runs or waits, the read models hold the whole log, and the log stops growing
 * (`rounds` checks in a row, `everyMs` apart): background jobs (OCR, auto-match) give way to
 * requests (infra/src/jobs/request-activity.ts), so a test that reads what they write waits here.
 */
export async function settle(a: Api, { rounds = 3, everyMs = 50, maxMs = 60_000 } = {}): Promise<void> {
  const jobs = a.paperlink.adapters.jobs as { pending?: () => number };
  let stable = 0;
  let last = -1;
  const end = performance.now() + maxMs;
  while (stable < rounds && performance.now() < end) {
    await new Promise((r) => setTimeout(r, everyMs));
    const head = await a.paperlink.adapters.events.headPosition();
    const caughtUp = await a.paperlink.runner.waitFor(head, 1000);
    stable = caughtUp && head === last && (jobs.pending?.() ?? 0) === 0 ? stable + 1 : 0;
    last = head;
  }
  if (stable < rounds) throw new Error('the product never settled');
}

export interface Account {
  email: string;
  password: string;
  userId: string;
  companyId: string;
  accessToken: string;
  refreshToken: string;
  /** Headers for calls as this user in a company (their own by default). */
  headers(companyId?: string): Record<string, string>;
}

let counter = 0;

export async function registerAccount(api: Api, fields: Partial<{ firstName: string; lastName: string; email: string; password: string; companyName: string }> = {}): Promise<Account> {
  counter += 1;
  const body = {
    firstName: 'Test',
    lastName: `User${counter}`,
    email: `user${counter}-${randomUUID().slice(0, 8)}@example.com`,
    password: 'Passw0rdOK',
    companyName: `Company ${counter}`,
    ...fields,
  };
  const res = await api.http.post('/api/auth/register').send(body);
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  const account: Account = {
    email: body.email.toLowerCase(),
    password: body.password,
    userId: res.body.user.id,
    companyId: res.body.company.id,
    accessToken: res.body.accessToken,
    refreshToken: res.body.refreshToken,
    headers(companyId?: string) {
      return { authorization: `Bearer ${account.accessToken}`, 'x-company-id': companyId ?? account.companyId };
    },
  };
  return account;
}

/** `owner` invites `member` into owner's company with a role. */
export async function invite(api: Api, owner: Account, member: Account, role = 'user'): Promise<void> {
  const res = await api.http.post('/api/companies/current/invite').set(owner.headers()).send({ email: member.email, role });
  if (res.status !== 201) throw new Error(`invite failed: ${res.status} ${JSON.stringify(res.body)}`);
}
