import { randomBytes, randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '@paperlink/domain';
import { externalTarget } from '../testing/external';
import { jobQueueContract } from './contract';
import { KafkaJobQueue } from './kafka';

const NAME = 'Kafka (kafkajs)';
const target = externalTarget('KAFKA_BROKERS');
const IMAGE = 'apache/kafka:3.7.0';

/** Waits until a broker answers metadata requests. */
async function waitForBroker(brokers: string[], timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const admin = new Kafka({ clientId: 'paperlink-test-probe', brokers, logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
    try {
      await admin.connect();
      await admin.listTopics();
      return;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await admin.disconnect().catch(() => {});
    }
  }
}

/**
 * A single-node KRaft broker. Its advertised listener must carry the port Docker mapped, which
 * is known only once the container runs: the container waits for a start script that we copy
 * in then (the same approach as Testcontainers' own Kafka modules).
 */
async function startBroker(): Promise<{ brokers: string[]; stop: () => Promise<unknown> }> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer(IMAGE)
    .withExposedPorts(9092)
    .withEnvironment({
      CLUSTER_ID: randomBytes(16).toString('base64url'), // a KRaft cluster id: 16 bytes, base64
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: 'PLAINTEXT://:9092,BROKER://:9093,CONTROLLER://:9094',
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'BROKER:PLAINTEXT,PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
      KAFKA_INTER_BROKER_LISTENER_NAME: 'BROKER',
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9094',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_NUM_PARTITIONS: '3',
    })
    .withCommand(['sh', '-c', 'echo waiting-for-start-script; while [ ! -f /tmp/start-ready ]; do sleep 0.1; done; exec sh /tmp/start.sh'])
    .withWaitStrategy(Wait.forLogMessage('waiting-for-start-script'))
    .withStartupTimeout(120_000)
    .start();
  const address = `${container.getHost()}:${container.getMappedPort(9092)}`;
  const script = `export KAFKA_ADVERTISED_LISTENERS=PLAINTEXT://${address},BROKER://localhost:9093\nexec /etc/kafka/docker/run\n`;
  await container.copyContentToContainer([{ content: script, target: '/tmp/start.sh', mode: 0o755 }]);
  await container.copyContentToContainer([{ content: 'ready', target: '/tmp/start-ready' }]);
  const brokers = [address];
  try {
    await waitForBroker(brokers);
  } catch (e) {
    await container.stop();
    throw e;
  }
  return { brokers, stop: () => container.stop() };
}

if ('skip' in target) {
  console.warn(`SKIPPED job queue contract: ${NAME}: ${target.skip}`);
  describe.skip(`job queue contract: ${NAME} (skipped: ${target.skip})`, () => {
    it('runs the job queue contract against a real Kafka', () => {});
  });
} else {
  let brokers: string[] = [];
  let stop: (() => Promise<unknown>) | undefined;
  beforeAll(async () => {
    if ('url' in target) {
      brokers = target.url.split(',').map((b) => b.trim()).filter(Boolean);
    } else {
      const started = await startBroker();
      brokers = started.brokers;
      stop = started.stop;
    }
    await waitForBroker(brokers);
  }, 240_000);
  afterAll(async () => stop?.());

  const quiet = () => {};
  const connect = (options: { remoteTypes?: string[] } = {}) =>
    KafkaJobQueue.connect({ brokers, clientId: 'paperlink-test', partitions: 3, log: quiet, ...options });

  jobQueueContract(NAME, () => connect());

  describe(`Kafka job queue across processes: ${NAME}`, () => {
    const queues: KafkaJobQueue[] = [];
    const open = async (options: { remoteTypes?: string[] } = {}) => {
      const q = await connect(options);
      queues.push(q);
      return q;
    };
    afterEach(async () => {
      await Promise.all(queues.splice(0).map((q) => q.close()));
    });
    const job = (type: string, payload: unknown = {}): Job => ({
      id: `job-${randomUUID()}`, type, companyId: 'c1', payload, causationId: 'e1', correlationId: 'r1', attempt: 1,
    });
    const typeOf = (base: string) => `${base}-${randomUUID().slice(0, 8)}`;

    it('a submitter learns the outcome of jobs another process runs, done and failed, even one started later', async () => {
      const type = typeOf('remote');
      const submitter = await open({ remoteTypes: [type] });
      // Submitted before any worker exists: the job waits on its topic.
      const early = job(type, { fail: false });
      const earlyResult = submitter.submit(early);
      expect(submitter.pending()).toBe(1);
      await new Promise((r) => setTimeout(r, 500));

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

    it('a long back-off pauses only the partition and the retry still comes', async () => {
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
      await new Promise((r) => setTimeout(r, 300));
      // Jobs submitted meanwhile still run.
      const others = await Promise.all(Array.from({ length: 4 }, () => q.submit(job(type))));
      expect(others).toEqual(['done', 'done', 'done', 'done']);
      expect(await slow).toBe('done');
      expect(attempts).toHaveLength(6);
    });

    it('workers of one group share a type: every job runs and settles', async () => {
      const type = typeOf('shared');
      const submitter = await open({ remoteTypes: [type] });
      const ran = new Map<string, number>();
      for (let w = 0; w < 2; w++) {
        const worker = await open();
        worker.register(type, { run: async (j) => { ran.set(j.id, (ran.get(j.id) ?? 0) + 1); }, onFailed: async () => {} }, { concurrency: 2 });
      }
      const jobs = Array.from({ length: 10 }, () => job(type));
      expect(await Promise.all(jobs.map((j) => submitter.submit(j)))).toEqual(jobs.map(() => 'done'));
      expect([...ran.keys()].sort()).toEqual(jobs.map((j) => j.id).sort());
    });
  });
}
