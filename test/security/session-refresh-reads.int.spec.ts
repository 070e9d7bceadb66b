import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fold, sessionDecider, sessionStream, type DomainEvent, type SessionEvent } from '@paperlink/domain';
import { SqliteEventStore } from '../../infra/src/eventstore/sqlite';
import { loadSessionForRefresh } from '../../command-api/src/accounts/session-streams';

/**
 * ADR 0022: a refresh reads a session's start and its rotations from the presented generation on.
 * For every layout a session stream can have (started at registration or by a sign-in, rotated
 * n times, signed out or revoked for reuse) and every generation a token can carry, that state
 * is the one the whole stream folds to; and it reads a bounded number of events.
 */
const dir = mkdtempSync(join(tmpdir(), 'paperlink-session-reads-'));
const events = new SqliteEventStore(join(dir, 'events.sqlite'));
afterAll(async () => {
  await events.close();
  rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.parse('2026-11-23T10:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const meta = { occurredAt: at(0) };

async function session(signIn: boolean, rotations: number, end: 'open' | 'logout' | 'reuse_detected'): Promise<string> {
  const id = randomUUID();
  const list: DomainEvent[] = [{ type: 'SessionStarted', data: { sessionId: id, userId: 'u1', startedAt: at(0), expiresAt: at(100_000) } }];
  if (signIn) list.push({ type: 'UserLoggedIn', data: { userId: 'u1', sessionId: id, at: at(0) } });
  for (let g = 1; g <= rotations; g++) list.push({ type: 'SessionRefreshed', data: { sessionId: id, generation: g, at: at(g * 900), expiresAt: at(100_000 + g) } });
  if (end !== 'open') list.push({ type: 'SessionRevoked', data: { sessionId: id, reason: end, at: at(rotations * 900 + 5) } });
  await events.appendToStream(sessionStream(id), list.map((e) => ({ id: randomUUID(), type: e.type, data: e.data, metadata: meta })), 'no_stream');
  return id;
}

describe('a refresh reads a session from the presented generation on', () => {
  it('gives the state of the whole stream for every layout and generation', async () => {
    let cases = 0;
    for (const signIn of [false, true]) {
      for (const rotations of [0, 1, 2, 5]) {
        for (const end of ['open', 'logout', 'reuse_detected'] as const) {
          const id = await session(signIn, rotations, end);
          const all = await events.readStream(sessionStream(id));
          const whole = fold(sessionDecider, all as unknown as SessionEvent[]);
          for (let g = 0; g <= rotations + 1; g++) {
            const loaded = await loadSessionForRefresh(events, id, g);
            expect(loaded.state, `${signIn} ${rotations} ${end} gen ${g}`).toEqual(whole);
            expect(loaded.expected).toBe(all.length - 1);
            cases++;
          }
        }
      }
    }
    expect(cases).toBe(2 * 3 * (2 + 3 + 4 + 7));
    expect((await loadSessionForRefresh(events, randomUUID(), 3)).expected).toBe('no_stream');
  });

  it('reads 3 events for the current token of a session rotated 2,000 times', async () => {
    const id = await session(true, 2000, 'open');
    let read = 0;
    const counting = new Proxy(events, {
      get(target, key) {
        if (key === 'readStream') return async (...a: Parameters<typeof events.readStream>) => { const r = await target.readStream(...a); read += r.length; return r; };
        const v: unknown = Reflect.get(target, key);
        return typeof v === 'function' ? (v as (...x: unknown[]) => unknown).bind(target) : v;
      },
    });
    const loaded = await loadSessionForRefresh(counting, id, 2000);
    expect(loaded.state).toMatchObject({ status: 'active', generation: 2000 });
    expect(read).toBe(3);
  });
});
