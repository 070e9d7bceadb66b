import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Job, JobHandler, JobQueue } from '@paperlink/domain';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

async function until(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await sleep(5);
  }
}

const noFailure: JobHandler['onFailed'] = async () => {};

/**
 * One suite every job queue adapter must pass. Each test uses job types of its own (a random
 * suffix), so adapters whose queues outlive a test (topics on a broker) start clean.
 */
export function jobQueueContract(name: string, make: () => Promise<JobQueue>): void {
  describe(`job queue contract: ${name}`, () => {
    const queues: JobQueue[] = [];
    const open = async () => {
      const q = await make();
      queues.push(q);
      return q;
    };
    afterEach(async () => {
      await Promise.all(queues.splice(0).map((q) => q.close()));
    });

    const typeOf = (base: string) => `${base}-${randomUUID().slice(0, 8)}`;
    const job = <P>(type: string, payload: P): Job<P> => ({
      id: `job-${randomUUID()}`,
      type,
      companyId: 'company-1',
      payload,
      causationId: `event-${randomUUID()}`,
      correlationId: 'request-1',
      attempt: 1,
    });

    it('runs a registered job once, with its fields intact, and resolves done', async () => {
      const q = await open();
      const type = typeOf('work');
      const seen: Job[] = [];
      q.register<{ n: number; nested: { s: string } }>(type, { run: async (j) => { seen.push(j); }, onFailed: noFailure });
      const j = job(type, { n: 42, nested: { s: 'é€' } });
      expect(await q.submit(j)).toBe('done');
      expect(seen).toEqual([j]);
      expect(seen[0]!.attempt).toBe(1);
      expect(q.pending()).toBe(0);
    });

    it('runs at most `concurrency` jobs of a type at once, and every job once', async () => {
      const q = await open();
      const type = typeOf('pool');
      let running = 0;
      let peak = 0;
      const ran: string[] = [];
      q.register(type, {
        run: async (j) => {
          running++;
          peak = Math.max(peak, running);
          await sleep(40);
          running--;
          ran.push(j.id);
        },
        onFailed: noFailure,
      }, { concurrency: 3 });
      const jobs = Array.from({ length: 12 }, (_, n) => job(type, { n }));
      const results = await Promise.all(jobs.map((j) => q.submit(j)));
      expect(results).toEqual(jobs.map(() => 'done'));
      expect(peak).toBeGreaterThanOrEqual(1);
      expect(peak).toBeLessThanOrEqual(3);
      expect(ran.sort()).toEqual(jobs.map((j) => j.id).sort());
    });

    it('limits concurrency per type: a busy type does not hold up another', async () => {
      const q = await open();
      const slow = typeOf('slow');
      const fast = typeOf('fast');
      const gate = deferred();
      let slowStarted = false;
      q.register(slow, { run: async () => { slowStarted = true; await gate.promise; }, onFailed: noFailure }, { concurrency: 1 });
      q.register(fast, { run: async () => {}, onFailed: noFailure }, { concurrency: 1 });
      const blocked = q.submit(job(slow, {}));
      await until(() => slowStarted);
      expect(await q.submit(job(fast, {}))).toBe('done');
      gate.resolve();
      expect(await blocked).toBe('done');
    });

    it('retries a failing job with back-off, attempt numbers rising from 1, until it succeeds', async () => {
      const q = await open();
      const type = typeOf('flaky');
      const attempts: Array<{ attempt: number; at: number }> = [];
      const failed: Job[] = [];
      q.register<{ failTimes: number }>(type, {
        run: async (j) => {
          attempts.push({ attempt: j.attempt, at: Date.now() });
          if (j.attempt <= j.payload.failTimes) throw new Error(`boom ${j.attempt}`);
        },
        onFailed: async (j) => { failed.push(j); },
      }, { maxAttempts: 4, backoffMs: { base: 100, max: 10_000 } });
      expect(await q.submit(job(type, { failTimes: 2 }))).toBe('done');
      expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
      // base * 2^(n-1): 100 ms before attempt 2, 200 ms before attempt 3 (a little timer slack allowed).
      expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(90);
      expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(190);
      expect(failed).toEqual([]);
    });

    it('gives up after maxAttempts: resolves failed and calls onFailed once, with the last attempt and its error', async () => {
      const q = await open();
      const type = typeOf('doomed');
      const attempts: number[] = [];
      const failed: Array<{ id: string; attempt: number; error: string }> = [];
      q.register(type, {
        run: async (j) => {
          attempts.push(j.attempt);
          throw new Error(`boom ${j.attempt}`);
        },
        onFailed: async (j, e) => { failed.push({ id: j.id, attempt: j.attempt, error: (e as Error).message }); },
      }, { maxAttempts: 3, backoffMs: { base: 20, max: 50 } });
      const j = job(type, {});
      expect(await q.submit(j)).toBe('failed');
      expect(attempts).toEqual([1, 2, 3]);
      expect(failed).toEqual([{ id: j.id, attempt: 3, error: 'boom 3' }]);
      await sleep(300); // nothing runs after the job settled
      expect(attempts).toEqual([1, 2, 3]);
      expect(failed).toHaveLength(1);
      expect(q.pending()).toBe(0);
    });

    it('rejects a job of a type nobody registered', async () => {
      const q = await open();
      q.register(typeOf('known'), { run: async () => {}, onFailed: noFailure });
      await expect(q.submit(job(typeOf('unknown'), {}))).rejects.toThrow(/no handler/);
      expect(q.pending()).toBe(0);
    });

    it('refuses to register a type twice', async () => {
      const q = await open();
      const type = typeOf('twice');
      q.register(type, { run: async () => {}, onFailed: noFailure });
      expect(() => q.register(type, { run: async () => {}, onFailed: noFailure })).toThrow(/registered twice/);
    });

    it('pending() counts the submitted jobs that have not settled yet', async () => {
      const q = await open();
      const type = typeOf('pending');
      const gate = deferred();
      let started = 0;
      q.register(type, { run: async () => { started++; await gate.promise; }, onFailed: noFailure }, { concurrency: 3 });
      expect(q.pending()).toBe(0);
      const results = [job(type, {}), job(type, {}), job(type, {})].map((j) => q.submit(j));
      expect(q.pending()).toBe(3);
      await until(() => started >= 1);
      expect(q.pending()).toBe(3);
      gate.resolve();
      expect(await Promise.all(results)).toEqual(['done', 'done', 'done']);
      expect(q.pending()).toBe(0);
    });

    it('close() resolves (twice too) and the closed queue takes no more jobs', async () => {
      const q = await open();
      const type = typeOf('closing');
      q.register(type, { run: async () => {}, onFailed: noFailure });
      expect(await q.submit(job(type, {}))).toBe('done');
      await q.close();
      await q.close();
      await expect(q.submit(job(type, {}))).rejects.toThrow(/closed/);
    });
  });
}
