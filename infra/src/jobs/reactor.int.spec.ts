import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Job, JobQueue, NewEvent, RecordedEvent } from '@paperlink/domain';
import { SqliteEventStore } from '../eventstore/sqlite';
import { EmbeddedReadStore } from '../readstore/embedded';
import { Reactor } from './reactor';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ev = (n: number): NewEvent => ({ id: randomUUID(), type: 'Thing', data: { n }, metadata: { occurredAt: 'now' } });
const jobsFrom = (e: RecordedEvent): Job[] => [{ id: `thing-${e.id}`, type: 'thing', companyId: 'c', payload: e.data, causationId: e.id, correlationId: 'r', attempt: 1 }];

/** A queue whose produce fails for the first `refusals` submits of job n=1 (a broker that refuses it). */
function refusingQueue(refusals: number) {
  const submits: number[] = [];
  const queue: JobQueue = {
    kind: 'refusing',
    register() {},
    async submit(job) {
      const n = (job.payload as { n: number }).n;
      submits.push(n);
      if (n === 1 && submits.filter((s) => s === 1).length <= refusals) throw new Error('produce failed: NOT_ENOUGH_REPLICAS');
      return 'done';
    },
    pending: () => 0,
    close: async () => {},
  };
  return { queue, submits };
}

describe('reactor and a submit that rejects', () => {
  it('keeps its checkpoint before the event whose job was not produced, submits it again, and moves on once it is', async () => {
    const events = new SqliteEventStore(':memory:');
    const store = new EmbeddedReadStore();
    await events.appendToStream('thing-1', [ev(1), ev(2)], 'no_stream');
    const { queue, submits } = refusingQueue(3);
    const logs: string[] = [];
    const reactor = new Reactor('things', events, store, queue, jobsFrom, { backoffMs: { base: 100, max: 100 }, log: (m) => logs.push(m) });
    await reactor.start();
    await sleep(150);
    // Job 2 settled, job 1 was refused: the checkpoint stays before event 1, stored nowhere.
    expect(submits.filter((n) => n === 1).length).toBeGreaterThanOrEqual(1);
    expect(submits).toContain(2);
    expect(reactor.position).toBe(0);
    expect((await store.getCheckpoints()).find((c) => c.name === 'reactor:things')).toBeUndefined();
    for (let i = 0; i < 50 && reactor.position === 0; i++) await sleep(50);
    expect(submits.filter((n) => n === 1)).toHaveLength(4);
    expect(reactor.position).toBe(await events.headPosition());
    await sleep(50);
    expect((await store.getCheckpoints()).find((c) => c.name === 'reactor:things')?.position).toBe(await events.headPosition());
    expect(logs).toHaveLength(3);
    expect(logs[0]).toMatch(/not submitted .*NOT_ENOUGH_REPLICAS/);
    await reactor.stop();
    await events.close();
  });

  it('stopped while a job is refused: no further try, and the checkpoint stays before it', async () => {
    const events = new SqliteEventStore(':memory:');
    const store = new EmbeddedReadStore();
    await events.appendToStream('thing-1', [ev(1), ev(2)], 'no_stream');
    const { queue, submits } = refusingQueue(1_000);
    const reactor = new Reactor('things', events, store, queue, jobsFrom, { backoffMs: { base: 50, max: 50 }, log: () => {} });
    await reactor.start();
    await sleep(200);
    await reactor.stop();
    const tries = submits.length;
    await sleep(200);
    expect(submits.length).toBe(tries);
    expect(reactor.position).toBe(0);
    expect((await store.getCheckpoints()).find((c) => c.name === 'reactor:things')).toBeUndefined();
    await events.close();
  });
});
