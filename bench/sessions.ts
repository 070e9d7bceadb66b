/**
 * Sessions at any number of past sign-ins (ADR 0022): refresh p95 for a user
 * with 10 sign-ins and for one with 10,000, in the same run and process, over HTTP on a local
 * port; and a user whose 10,000 sign-ins were written in 3dfe0f7's format (all in `user-<id>`):
 * its first request (which folds them and stores a checkpoint), then its refresh p95.
 * Sign-ins beyond the first few are copies of what a real sign-in appended (test/support/sign-ins.ts).
 *
 *   node --import tsx bench/sessions.ts [refreshes per user, default 400]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { userStream, type StreamAppend } from '@paperlink/domain';
import { createPaperlink } from '../infra/src/app';
import { loadConfig } from '../infra/src/config';
import { copySignIn, plainHasher, probing, type Probe } from '../test/support/sign-ins';
import { fmt, percentile, row } from './lib';

const REFRESHES = Number(process.argv[2] ?? 400);
const PER_SESSION = 20;
const dir = mkdtempSync(join(tmpdir(), 'paperlink-bench-sessions-'));
const probe: Probe = { read: 0 };
const paperlink = await createPaperlink(loadConfig({ DATA_DIR: dir, WEB_DIST: join(dir, 'no-web'), LOGIN_MAX_FAILURES_PER_ADDRESS: '1000000' }), { hasher: plainHasher, wrapEvents: probing(probe), noJobs: true });
const server = paperlink.app.listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
const events = paperlink.adapters.events;

type Tokens = { accessToken: string; refreshToken: string };
async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
async function must(path: string, body: unknown, status = 200): Promise<Record<string, unknown>> {
  const res = await post(path, body);
  if (res.status !== status) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

interface User { email: string; password: string; userId: string }
async function register(name: string): Promise<User> {
  const email = `${name}-${randomUUID().slice(0, 8)}@bench.example`;
  const password = 'Bench-Passw0rd';
  const body = await must('/auth/register', { firstName: 'Bench', lastName: name, email, password, companyName: `${name} Ltd` }, 201);
  return { email, password, userId: (body.user as { id: string }).id };
}
const login = async (u: User) => (await must('/auth/login', { email: u.email, password: u.password })) as unknown as Tokens;

/** A user with `count` sign-ins: 5 real ones, the rest copies of the last. */
async function withSignIns(name: string, count: number): Promise<User> {
  const u = await register(name);
  for (let i = 0; i < 4; i++) await login(u);
  probe.capture = [];
  const model = await login(u);
  const recorded: StreamAppend[] = probe.capture;
  delete probe.capture;
  if (count > 5) await copySignIn(events, recorded, decodeJwt(model.accessToken).sid as string, count - 5);
  return u;
}

/** A user whose sign-ins 3dfe0f7 recorded: `count` UserLoggedIn events in `user-<id>`. */
async function legacy(count: number): Promise<User> {
  const u = await register('legacy');
  const metadata = { occurredAt: new Date().toISOString() };
  for (let done = 0; done < count; done += 1000) {
    const batch = Array.from({ length: Math.min(1000, count - done) }, () => ({ id: randomUUID(), type: 'UserLoggedIn', data: { userId: u.userId, sessionId: randomUUID(), at: metadata.occurredAt }, metadata }));
    await events.appendToStream(userStream(u.userId), batch, 'any');
  }
  return u;
}

/** Times `n` refreshes of each user, interleaved, each session refreshed PER_SESSION times. */
async function refreshes(users: User[], n: number): Promise<Array<{ ms: number[]; read: number[] }>> {
  const out = users.map(() => ({ ms: [] as number[], read: [] as number[] }));
  const current: Tokens[] = [];
  for (let i = 0; i < n; i++) {
    for (const [k, u] of users.entries()) {
      if (i % PER_SESSION === 0) current[k] = await login(u);
      await paperlink.runner.waitFor(await events.headPosition(), 5000);
      probe.read = 0;
      const t = performance.now();
      const res = await post('/auth/refresh', { refreshToken: current[k]!.refreshToken });
      out[k]!.ms.push(performance.now() - t);
      out[k]!.read.push(probe.read);
      if (res.status !== 200) throw new Error(`refresh: ${res.status}`);
      current[k] = res.body as unknown as Tokens;
    }
  }
  return out;
}

try {
  console.log(`  load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  let t = performance.now();
  const few = await withSignIns('few', 10);
  const many = await withSignIns('many', 10_000);
  const old = await legacy(10_000);
  await paperlink.runner.waitFor(await events.headPosition(), 60_000);
  row('set-up (users, 20,000 copied sign-ins)', `${fmt((performance.now() - t) / 1000, 1)} s`);

  // the legacy user's first request folds its 10,000 sign-ins once and stores a checkpoint
  probe.read = 0;
  t = performance.now();
  await login(old);
  row('3dfe0f7-format user, 10,000 sign-ins: first sign-in', `${fmt(performance.now() - t, 1)} ms`, `${probe.read} events read (checkpoint stored)`);
  probe.read = 0;
  t = performance.now();
  await login(old);
  row('3dfe0f7-format user, 10,000 sign-ins: next sign-in', `${fmt(performance.now() - t, 1)} ms`, `${probe.read} events read`);

  for (let i = 0; i < 20; i++) await refreshes([few, many, old], 1); // warm-up
  const [a, b, c] = await refreshes([few, many, old], REFRESHES);
  const p95 = (x: number[]) => percentile(x, 95);
  console.log(`  (each session is refreshed ${PER_SESSION} times in a row; a refresh reads its start, its newest rotations, user-<id> from its checkpoint)`);
  row('refresh p50 / p95, 10 sign-ins', `${fmt(percentile(a!.ms, 50), 2)} / ${fmt(p95(a!.ms), 2)} ms`, `${percentile(a!.read, 50)} / ${Math.max(...a!.read)} events read (median / max)`);
  row('refresh p50 / p95, 10,000 sign-ins', `${fmt(percentile(b!.ms, 50), 2)} / ${fmt(p95(b!.ms), 2)} ms`, `${percentile(b!.read, 50)} / ${Math.max(...b!.read)} events read (goal p95 <= 20 ms)`);
  row('refresh p50 / p95, 10,000 sign-ins in 3dfe0f7 format', `${fmt(percentile(c!.ms, 50), 2)} / ${fmt(p95(c!.ms), 2)} ms`, `${percentile(c!.read, 50)} / ${Math.max(...c!.read)} events read`);
  row('ratio p95 10,000 / 10 sign-ins', `${fmt(p95(b!.ms) / p95(a!.ms), 2)}x`, `${REFRESHES} refreshes per user, interleaved`);
  console.log(`  load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  server.close();
  await paperlink.close();
  rmSync(dir, { recursive: true, force: true });
}
