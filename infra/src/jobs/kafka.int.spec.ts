import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Job } from '@paperlink/domain';
import { jobQueueContract } from './contract';
import { DEAD_LETTER_TOPIC, KafkaJobQueue, type KafkaJobQueueOptions } from './kafka';
import { describeWithKafka, sleep, testJob as job, uniqueType as typeOf, until } from './kafka-testing';
import { parseDeadLetter, type DeadLetter } from './kafka-topics';

const NAME = 'Kafka (kafkajs)';
const quiet = () => {};

/** Every dead letter on the topic now, by job id. */
async function deadLetters(brokers: string[]): Promise<Map<string, DeadLetter>> {
  const kafka = new Kafka({ clientId: 'paperlink-test-dead', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(DEAD_LETTER_TOPIC);
  await admin.disconnect();
  const groupId = `paperlink-test-dead-${randomUUID()}`;
  const consumer = kafka.consumer({ groupId });
  const found = new Map<string, DeadLetter>();
  const seen = new Map<number, bigint>();
  await consumer.connect();
  await consumer.subscribe({ topics: [DEAD_LETTER_TOPIC], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      const d = parseDeadLetter(message);
      if (d) found.set(d.job.id, d);
      seen.set(partition, BigInt(message.offset) + 1n);
    },
  });
  await until(() => ends.every((e) => BigInt(e.high) === 0n || (seen.get(e.partition) ?? 0n) >= BigInt(e.high)), 30_000, 'the dead-letter topic read to its end');
  await consumer.disconnect();
  const cleanup = kafka.admin();
  await cleanup.connect();
  await cleanup.deleteGroups([groupId]).catch(() => {});
  await cleanup.disconnect();
  return found;
}

describeWithKafka(`job queue on ${NAME}`, (brokers) => {
  const connect = (options: Partial<KafkaJobQueueOptions> = {}) =>
    KafkaJobQueue.connect({ brokers: brokers(), clientId: 'paperlink-test', partitions: 3, log: quiet, ...options });

  jobQueueContract(NAME, () => connect());

  describe(`Kafka job queue across processes: ${NAME}`, () => {
    const queues: KafkaJobQueue[] = [];
    const open = async (options: Partial<KafkaJobQueueOptions> = {}) => {
      const q = await connect(options);
      queues.push(q);
      return q;
    };
    afterEach(async () => {
      await Promise.all(queues.splice(0).map((q) => q.close()));
    });

    it('a submitter learns the outcome of jobs another process runs, done and failed, even one started later', async () => {
      const type = typeOf('remote');
      const submitter = await open({ remoteTypes: [type] });
      // Submitted before any worker exists: the job waits on its topic.
      const early = job(type, { fail: false });
      const earlyResult = submitter.submit(early);
      expect(submitter.pending()).toBe(1);
      await sleep(500);

      const worker = await open();
      const ran: string[] = [];
      const failed: string[] = [];
      worker.register<{ fail: boolean }>(type, {
        run: async (j) => {
          ran.push(`${j.id}#${j.attempt}`);
          if (j.payload.fail) throw new Error('no luck');
        },
        onFailed: async (j) => { failed.push(j.id); },
      }, { maxAttempts: 2, backoffMs: { base: 50, max: 50 } });

      expect(await earlyResult).toBe('done');
      const doomed = job(type, { fail: true });
      expect(await submitter.submit(doomed)).toBe('failed');
      expect(ran).toEqual([`${early.id}#1`, `${doomed.id}#1`, `${doomed.id}#2`]);
      expect(failed).toEqual([doomed.id]);
      expect(submitter.pending()).toBe(0);
      expect(worker.pending()).toBe(0);
    });

    it('a job waiting for its retry does not hold up a new job on the same partition; the retry comes after its back-off', async () => {
      const type = typeOf('patient');
      // One partition: the retry and the new job cannot be on different ones.
      const q = await open({ partitions: 1 });
      const attempts: Array<{ id: string; attempt: number; at: number }> = [];
      const BACKOFF = 4_000;
      q.register(type, {
        run: async (j) => {
          attempts.push({ id: j.id, attempt: j.attempt, at: Date.now() });
          if (j.id === slow.id && j.attempt === 1) throw new Error('first try fails');
        },
        onFailed: async () => {},
      }, { maxAttempts: 2, backoffMs: { base: BACKOFF, max: BACKOFF } });
      const slow = job(type);
      const slowResult = q.submit(slow);
      await until(() => attempts.length === 1, 30_000, 'the first attempt');
      await sleep(300); // its retry is on the broker before the new job
      const submitted = Date.now();
      expect(await q.submit(job(type))).toBe('done');
      const took = Date.now() - submitted;
      expect(took, `the new job took ${took} ms`).toBeLessThan(BACKOFF / 2);
      expect(await slowResult).toBe('done');
      const tries = attempts.filter((a) => a.id === slow.id);
      expect(tries.map((a) => a.attempt)).toEqual([1, 2]);
      expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(BACKOFF - 50);
    });

    it('a long back-off: jobs submitted meanwhile run, and the retry still comes', async () => {
      const type = typeOf('patient');
      const q = await open();
      const attempts: number[] = [];
      q.register<{ slow?: boolean }>(type, {
        run: async (j) => {
          attempts.push(Date.now());
          if (j.payload.slow && j.attempt === 1) throw new Error('first try fails');
        },
        onFailed: async () => {},
      }, { maxAttempts: 2, backoffMs: { base: 2_500, max: 2_500 } });
      const slow = q.submit(job(type, { slow: true }));
      await sleep(300);
      const others = await Promise.all(Array.from({ length: 4 }, () => q.submit(job(type))));
      expect(others).toEqual(['done', 'done', 'done', 'done']);
      expect(await slow).toBe('done');
      expect(attempts).toHaveLength(6);
    });

    it('a job whose last attempt failed goes to the dead-letter topic with its error and attempts', async () => {
      const type = typeOf('doomed');
      const q = await open();
      q.register(type, { run: async (j) => { throw new Error(`boom ${j.attempt}`); }, onFailed: async () => {} }, { maxAttempts: 3, backoffMs: { base: 20, max: 40 } });
      const ok = typeOf('fine');
      q.register(ok, { run: async () => {}, onFailed: async () => {} });
      const doomed = job(type, { receiptId: 'r-1' });
      const fine = job(ok);
      expect(await q.submit(doomed)).toBe('failed');
      expect(await q.submit(fine)).toBe('done');
      const letters = await deadLetters(brokers());
      const letter = letters.get(doomed.id);
      expect(letter).toMatchObject({ attempts: 3, error: 'boom 3', job: { ...doomed, attempt: 3 } });
      expect(Date.now() - Date.parse(letter!.failedAt)).toBeLessThan(60_000);
      expect(letters.has(fine.id)).toBe(false);
    });

    it('workers of one group share a type: each job runs once, and every worker runs some', async () => {
      const type = typeOf('shared');
      const submitter = await open({ remoteTypes: [type] });
      const ran = new Map<string, number>();
      const byWorker = [0, 0];
      const workers: KafkaJobQueue[] = [];
      for (let w = 0; w < 2; w++) {
        const worker = await open();
        worker.register(type, {
          run: async (j: Job) => {
            ran.set(j.id, (ran.get(j.id) ?? 0) + 1);
            byWorker[w]!++;
          },
          onFailed: async () => {},
        }, { concurrency: 2 });
        workers.push(worker);
      }
      // Both have joined and the group has shared the 3 partitions between them.
      await until(() => {
        const held = workers.map((w) => w.partitions(type));
        return held.every((p) => p.length > 0) && new Set(held.flat()).size === 3 && held.flat().length === 3;
      }, 60_000, 'both workers holding partitions');
      const jobs = Array.from({ length: 30 }, () => job(type));
      expect(await Promise.all(jobs.map((j) => submitter.submit(j)))).toEqual(jobs.map(() => 'done'));
      expect([...ran.keys()].sort()).toEqual(jobs.map((j) => j.id).sort());
      expect([...ran.values()].every((n) => n === 1)).toBe(true);
      expect(byWorker[0]! > 0 && byWorker[1]! > 0, `jobs per worker: ${byWorker.join(', ')}`).toBe(true);
    });
  });
});
