import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Doc, ReadStore } from '@paperlink/domain';
import { allProjections, ProjectionRunner } from '@paperlink/projections';
import { SqliteEventStore } from '../../infra/src/eventstore/sqlite';
import { openEmbeddedReadStore } from '../../infra/src/adapters';
import { loadConfig } from '../../infra/src/config';
import { dataDir } from '../../infra/src/data-dir';
import { EmbeddedReadStore } from '../../infra/src/readstore/embedded';
import { startServerProcess } from '../support/process';

const dir = mkdtempSync(join(tmpdir(), 'paperlink-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}, method = 'POST') {
  const res = await fetch(url + path, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
}

async function dump(store: ReadStore): Promise<Record<string, Doc[]>> {
  const out: Record<string, Doc[]> = {};
  for (const c of allProjections().flatMap((p) => Object.keys(p.collections))) out[c] = await store.collection(c).find({}, { sort: { _id: 1 } });
  return out;
}

describe('crash safety', () => {
  it('keeps every command answered 2xx across a SIGKILL, and the restarted read models equal a full rebuild', async () => {
    const env = { DATA_DIR: dir, SNAPSHOT_INTERVAL_SECONDS: '1', JWT_SECRET: 'x'.repeat(40) };
    const server = await startServerProcess(env);
    const acknowledged: { emails: string[]; profiles: Array<{ userId: string; firstName: string }> } = { emails: [], profiles: [] };
    let stop = false;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const email = `crash-${w}-${i}@example.com`;
        const reg = await post(server.url, '/api/auth/register', { firstName: 'C', lastName: `W${w}`, email, password: 'Passw0rdOK', companyName: `Crash ${w}-${i}` }).catch(() => null);
        if (!reg || reg.status !== 201) continue;
        acknowledged.emails.push(email);
        const user = reg.body!.user as { id: string };
        const headers = { authorization: `Bearer ${reg.body!.accessToken as string}`, 'x-company-id': (reg.body!.company as { id: string }).id };
        for (let k = 0; k < 3 && !stop; k++) {
          const firstName = `P${w}x${i}x${k}`;
          const upd = await post(server.url, '/api/auth/profile', { firstName, lastName: 'Q' }, headers, 'PUT').catch(() => null);
          if (upd?.status === 200) acknowledged.profiles.push({ userId: user.id, firstName });
        }
      }
    };
    const workers = [0, 1, 2, 3].map((w) => worker(w).catch(() => undefined));
    await new Promise((r) => setTimeout(r, 2500));
    await server.stop('SIGKILL');
    stop = true;
    await Promise.all(workers);
    expect(acknowledged.emails.length).toBeGreaterThan(5);

    // Every acknowledged command is in the log.
    const events = new SqliteEventStore(join(dir, 'events.sqlite'));
    const all = await events.readAll({ after: 0, maxCount: 10_000_000 });
    const registered = new Set(all.filter((e) => e.type === 'UserRegistered').map((e) => (e.data as { email: string }).email));
    for (const email of acknowledged.emails) expect(registered.has(email)).toBe(true);
    const renamed = new Set(all.filter((e) => e.type === 'UserProfileUpdated').map((e) => `${(e.data as { userId: string }).userId}/${(e.data as { firstName: string }).firstName}`));
    for (const p of acknowledged.profiles) expect(renamed.has(`${p.userId}/${p.firstName}`)).toBe(true);
    await events.close();

    // Restart: snapshot plus the tail of the log; then a clean stop writes the state it served.
    const again = await startServerProcess(env);
    const login = await post(again.url, '/api/auth/login', { email: acknowledged.emails.at(-1), password: 'Passw0rdOK' });
    expect(login.status).toBe(200);
    expect(await again.stop('SIGTERM')).toBe(0);

    const served = await openEmbeddedReadStore(loadConfig({ ...process.env, ...env }), dataDir(dir)); // the store the server used
    const rebuiltStore = new EmbeddedReadStore();
    const store2 = new SqliteEventStore(join(dir, 'events.sqlite'));
    await new ProjectionRunner(store2, rebuiltStore, allProjections()).rebuild();
    const servedDump = await dump(served);
    expect(servedDump.users!.length).toBeGreaterThanOrEqual(acknowledged.emails.length);
    expect(servedDump).toEqual(await dump(rebuiltStore));
    await served.close();
    await store2.close();
  }, 120_000);
});
