/**
 * The broker the Kafka suites run against: KAFKA_BROKERS when set, else a container when Docker
 * runs, else none (the suite is skipped, by name).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Job } from '@paperlink/domain';
import { externalTarget } from '../testing/external';

const IMAGE = 'apache/kafka:3.7.0';

/** Waits until a broker answers metadata requests. */
export async function waitForBroker(brokers: string[], timeoutMs = 90_000): Promise<void> {
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
export async function startBroker(): Promise<{ brokers: string[]; stop: () => Promise<unknown> }> {
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

/**
 * Declares a suite that needs a broker: `body` gets a function giving the brokers (known once
 * the suite's beforeAll ran). Without a broker the suite is reported skipped, by name.
 */
export function describeWithKafka(name: string, body: (brokers: () => string[]) => void): void {
  const target = externalTarget('KAFKA_BROKERS');
  if ('skip' in target) {
    console.warn(`SKIPPED ${name}: ${target.skip}`);
    describe.skip(`${name} (skipped: ${target.skip})`, () => {
      it('runs against a real Kafka broker', () => {});
    });
    return;
  }
  describe(name, () => {
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
    body(() => brokers);
  });
}

/** A job type of this test run alone (the broker is shared). */
export const uniqueType = (base: string) => `${base}-${randomUUID().slice(0, 8)}`;

export const testJob = (type: string, payload: unknown = {}): Job => ({
  id: `job-${randomUUID()}`, type, companyId: 'c1', payload, causationId: 'e1', correlationId: 'r1', attempt: 1,
});

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 30_000, what = 'a condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
