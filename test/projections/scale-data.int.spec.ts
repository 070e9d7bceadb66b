import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateScaleData, type Person, type ScaleData } from '../../lab/scale/scale-data';
import { startApi, type Api } from '../support/harness';

/**
 * The generator of bench/scale.ts (lab/scale/scale-data.ts) at a tiny size: the folder it writes is one the server starts
 * on, and what the server lists equals what was generated (the events are the commands' own).
 */
const SECRET = 'scale-data-test-secret-0123456789abcdefgh';
let dir: string;
let data: ScaleData;
let api: Api;

async function signIn(who: Person, companyId: string): Promise<{ headers: Record<string, string>; refreshToken: string }> {
  const res = await api.http.post('/api/auth/login').set('x-company-id', companyId).send({ email: who.email, password: who.password });
  expect(res.status).toBe(200);
  return { headers: { authorization: `Bearer ${res.body.accessToken}`, 'x-company-id': companyId }, refreshToken: res.body.refreshToken };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paperlink-scale-data-'));
  data = await generateScaleData(dir, { transactions: 3000, receipts: 300, matches: 200, members: 4, smallCompanies: 1, smallTransactions: 200, signIns: 30, months: 3 }, { secret: SECRET });
  api = await startApi({ JWT_SECRET: SECRET }, dir, { noJobs: true });
  const head = await api.paperlink.adapters.events.headPosition();
  expect(head).toBe(data.events); // written in the format of this checkout: nothing to upgrade on start
  expect(await api.paperlink.runner.waitFor(head, 30_000)).toBe(true);
}, 60_000);
afterAll(async () => {
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('scale data generator', () => {
  it('lists what it generated: transactions, receipts, matches by status, per company and per member', async () => {
    const { big } = data;
    expect(big).toMatchObject({ transactions: 3000, receipts: 300, matches: { confirmed: 120, rejected: 40, pending: 40 } });
    const admin = await signIn(big.admin, big.companyId);
    const total = async (path: string, headers: Record<string, string>) => (await api.http.get(path).query({ limit: 1 }).set(headers)).body.pagination.total as number;
    expect(await total('/api/transactions', admin.headers)).toBe(3000);
    expect(await total('/api/receipts', admin.headers)).toBe(300);
    expect((await api.http.get('/api/matches/pending').set(admin.headers)).body).toHaveLength(40);
    expect((await api.http.get('/api/matches').set(admin.headers)).body).toHaveLength(160);
    const member = big.members[2]!;
    expect(await total('/api/transactions', (await signIn(member, big.companyId)).headers)).toBe(big.perMember.get(member.userId));
    const small = data.small[0]!;
    expect(await total('/api/transactions', (await signIn(small.admin, small.companyId)).headers)).toBe(small.transactions);
    const members = (await api.http.get('/api/companies/current/users').set(admin.headers)).body;
    expect(JSON.stringify(members)).toContain(big.members[3]!.email);
  });

  it('takes decisions on its history: a pending suggestion confirmed, a manual match, a refresh of the member with many sign-ins', async () => {
    const { big } = data;
    const admin = await signIn(big.admin, big.companyId);
    expect((await api.http.put(`/api/matches/${big.pendingMatchIds[0]}/confirm`).set(admin.headers)).status).toBe(200);
    expect(big.manualPairs.length).toBeGreaterThan(0);
    expect((await api.http.post('/api/matches').set(admin.headers).send(big.manualPairs[0])).status).toBe(200);
    const sam = await signIn(data.signInUser, big.companyId);
    const refreshed = await api.http.post('/api/auth/refresh').send({ refreshToken: sam.refreshToken });
    expect(refreshed.status).toBe(200);
    expect(big.freeLines.length).toBeGreaterThan(0);
  });
});
