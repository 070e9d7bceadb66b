/**
 * Measures the Kafka job queue on a real broker: how long a new job waits behind a retry in a
 * 4 s back-off on its partition, and the jobs per second of one and two worker queues (one job
 * at a time each, 100 ms jobs).
 *
 *   KAFKA_BROKERS=127.0.0.1:19092 npx tsx infra/src/jobs/kafka-measure.ts
 */
import { randomUUID } from 'node:crypto';
import { KafkaJobQueue } from './kafka';
const brokers = (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean);
if (brokers.length === 0) throw new Error('set KAFKA_BROKERS');
const quiet = () => {};
const job = (type: string) => ({ id: `job-${randomUUID()}`, type, companyId: 'c', payload: {}, causationId: 'e', correlationId: 'r', attempt: 1 });

async function latencyBehindBackoff(): Promise<number> {
  const prefix = `plmeasure-${randomUUID().slice(0, 8)}`;
  const q = await KafkaJobQueue.connect({ brokers, topicPrefix: prefix, partitions: 1, log: quiet });
  let first = true;
  let firstDone!: () => void;
  const failedOnce = new Promise<void>((r) => (firstDone = r));
  q.register('t', { run: async () => { if (first) { first = false; firstDone(); throw new Error('x'); } }, onFailed: async () => {} }, { maxAttempts: 2, backoffMs: { base: 4000, max: 4000 } });
  const slow = q.submit(job('t'));
  await failedOnce;
  await new Promise((r) => setTimeout(r, 300));
  const t = Date.now();
  await q.submit(job('t'));
  const took = Date.now() - t;
  await slow;
  await q.close();
  return took;
}

async function throughput(workers: number, jobs = 40, ms = 100): Promise<number> {
  const prefix = `plmeasure-${randomUUID().slice(0, 8)}`;
  const submitter = await KafkaJobQueue.connect({ brokers, topicPrefix: prefix, partitions: 6, remoteTypes: ['t'], log: quiet });
  const qs: KafkaJobQueue[] = [];
  for (let i = 0; i < workers; i++) {
    const q = await KafkaJobQueue.connect({ brokers, topicPrefix: prefix, partitions: 6, log: quiet });
    q.register('t', { run: () => new Promise((r) => setTimeout(r, ms)), onFailed: async () => {} }, { concurrency: 1 });
    qs.push(q);
  }
  for (;;) {
    const held = qs.map((q) => q.partitions('t'));
    if (held.every((p) => p.length > 0) && held.flat().length === 6) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const t = Date.now();
  await Promise.all(Array.from({ length: jobs }, () => submitter.submit(job('t'))));
  const s = (Date.now() - t) / 1000;
  await Promise.all([submitter, ...qs].map((q) => q.close()));
  return jobs / s;
}

console.log(`a new job behind a 4 s back-off on its partition: done in ${await latencyBehindBackoff()} ms`);
for (const n of [1, 2]) console.log(`${n} worker(s), concurrency 1, 40 jobs of 100 ms: ${(await throughput(n)).toFixed(1)} jobs/s`);
