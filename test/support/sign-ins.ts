import { createHash, randomUUID } from 'node:crypto';
import type { EventStore, StreamAppend } from '@paperlink/domain';
import type { PasswordHasher } from '../../command-api/src/core/ports';

/**
 * Helpers for the cost of sessions (ADR 0022): an event store that counts the events the
 * command side reads, and a way to give a user thousands of past sign-ins cheaply, by copying
 * whatever one real sign-in appended (so a change in where sign-ins are recorded is copied too).
 */

export interface Probe {
  /** Events returned by readStream since the start (the command side's reads). */
  read: number;
  /** While set, every appendMany is recorded here. */
  capture?: StreamAppend[];
}

/** Wraps an event store: counts the events readStream returns, records appends while asked to. */
export function probing(probe: Probe): (events: EventStore) => EventStore {
  return (inner) =>
    new Proxy(inner, {
      get(target, key, receiver) {
        if (key === 'readStream') {
          return async (...args: Parameters<EventStore['readStream']>) => {
            const out = await target.readStream(...args);
            probe.read += out.length;
            return out;
          };
        }
        if (key === 'appendMany') {
          return async (appends: StreamAppend[]) => {
            probe.capture?.push(...appends);
            return target.appendMany(appends);
          };
        }
        const value: unknown = Reflect.get(target, key, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
}

/** A password hasher as cheap as a string compare (tests and benchmarks of everything else). */
export const plainHasher: PasswordHasher = {
  async hash(password) {
    return `plain$${createHash('sha256').update(password).digest('base64url')}`;
  },
  async verify(hash, password) {
    return hash === (await this.hash(password));
  },
};

/**
 * Appends `count` copies of one recorded sign-in (its appends, without the request record),
 * each with a session id of its own, in batches. Streams the copy shares with the original
 * (a user stream, were sign-ins recorded there) get the copies appended at any revision.
 */
export async function copySignIn(events: EventStore, recorded: StreamAppend[], sessionId: string, count: number): Promise<void> {
  const template = recorded.filter((a) => !a.streamId.startsWith('request-'));
  if (!template.some((a) => a.streamId.includes(sessionId))) throw new Error('the recorded appends do not start the session');
  const json = JSON.stringify(template);
  for (let done = 0; done < count; ) {
    const batch: StreamAppend[] = [];
    for (const n = Math.min(count, done + 200); done < n; done++) {
      const copy = JSON.parse(json.split(sessionId).join(randomUUID())) as StreamAppend[];
      for (const a of copy) batch.push({ streamId: a.streamId, expectedRevision: 'any', events: a.events.map((e) => ({ ...e, id: randomUUID() })) });
    }
    await events.appendMany(batch);
  }
}
