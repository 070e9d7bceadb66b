import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Job, NewEvent } from '@paperlink/domain';
import { SqliteEventStore } from '../eventstore/sqlite';
import { EmbeddedReadStore } from '../readstore/embedded';
import { InProcessJobQueue } from './memory';
import { Reactor } from './reactor';

const job = (type = 'work', payload: unknown = {}): Job => ({ id: randomUUID(), type, companyId: 'c', payload, causationId: 'e', correlationId: 'r', attempt: 1 });
const quiet = () => {};

describe('in-process job queue', () => {
  it('runs at most `concurrency` jobs of a type at once', async () => {
    const q = new InProcessJobQueue(quiet);
    let running = 0;
    let peak = 0;
    q.register('work', { run: async () => { running++; peak = Math.max(peak, running); await new Promise((r) => setTimeout(r, 20)); running--; }, onFailed: async () => {} }, { concurrency: 3 });
    const results = await Promise.all(Array.from({ length: 10 }, () => q.submit(job())));
    expect(results.every((r) => r === 'done')).toBe(true);
    expect(peak).toBe(3);
  });

  it('retries with back-off and succeeds, or ends in the failed state after the last attempt', async () => {
    const q = new InProcessJobQueue(quiet);
    const attempts = new Map<string, number[]>();
    const failed: Array<{ id: string; attempt: number; error: string }> = [];
    q.register<{ failTimes: number }>('flaky', {
      run: async (j) => {
        const list = attempts.get(j.id) ?? [];
        list.push(Date.now());
        attempts.set(j.id, list);
        if (j.attempt <= j.payload.failTimes) throw new Error(`boom ${j.attempt}`);
      },
      onFailed: async (j, e) => { failed.push({ id: j.id, attempt: j.attempt, error: (e as Error).message }); },
    }, { maxAttempts: 3, backoffMs: { base: 20, max: 1000 } });
    const ok = job('flaky', { failTimes: 2 });
    const bad = job('flaky', { failTimes: 5 });
    expect(await q.submit(ok)).toBe('done');
    expect(await q.submit(bad)).toBe('failed');
    const times = attempts.get(ok.id)!;
    expect(times).toHaveLength(3);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(times[1]! - times[0]! - 5);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(15);
    expect(failed).toEqual([{ id: bad.id, attempt: 3, error: 'boom 3' }]);
  });
});

describe('reactor', () => {
  it('submits each event’s jobs, moves its checkpoint past settled ones, and after a restart re-runs only unfinished jobs', async () => {
    const events = new SqliteEventStore(':memory:');
    const store = new EmbeddedReadStore();
    const ev = (n: number): NewEvent => ({ id: randomUUID(), type: 'Thing', data: { n }, metadata: { occurredAt: 'now' } });
    await events.appendToStream('thing-1', [ev(1), ev(2), ev(3)], 'no_stream');
    const done: number[] = [];
    let block = true;
    let releaseBlocked!: () => void;
    const blocked = new Promise<void>((r) => (releaseBlocked = r));

    const queue1 = new InProcessJobQueue(quiet);
    queue1.register<{ n: number }>('thing', {
      run: async (j) => {
        if (j.payload.n === 2 && block) await blocked; // a job still running when we "crash"
        done.push(j.payload.n);
      },
      onFailed: async () => {},
    });
    const jobsFrom = (e: { id: string; type: string; data: unknown }) => [{ ...job('thing', e.data), id: `thing-${e.id}` }];
    const r1 = new Reactor('things', events, store, queue1, jobsFrom);
    await r1.start();
    await new Promise((r) => setTimeout(r, 300));
    expect(done.sort()).toEqual([1, 3]);
    const first = (await events.readStream('thing-1'))[0]!.position;
    expect(r1.position).toBe(first); // job 2 unsettled: the checkpoint stops before it
    await r1.stop();

    // "Restart": a new queue and reactor from the stored checkpoint; job 2 runs again (and 3, after it).
    block = false;
    releaseBlocked();
    const queue2 = new InProcessJobQueue(quiet);
    const rerun: number[] = [];
    queue2.register<{ n: number }>('thing', { run: async (j) => { rerun.push(j.payload.n); }, onFailed: async () => {} });
    const r2 = new Reactor('things', events, store, queue2, jobsFrom);
    await r2.start();
    await new Promise((r) => setTimeout(r, 300));
    expect(rerun.sort()).toEqual([2, 3]);
    expect(r2.position).toBe(await events.headPosition());
    await r2.stop();
    await events.close();
  });
});
