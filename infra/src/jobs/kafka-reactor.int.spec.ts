import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { afterEach, expect, it } from 'vitest';
import type { Job, NewEvent, RecordedEvent } from '@paperlink/domain';
import { SqliteEventStore } from '../eventstore/sqlite';
import { EmbeddedReadStore } from '../readstore/embedded';
import { jobTopic, KafkaJobQueue } from './kafka';
import { describeWithKafka, sleep, uniqueType, until } from './kafka-testing';
import { Reactor } from './reactor';

const ev = (n: number): NewEvent => ({ id: randomUUID(), type: 'Thing', data: { n }, metadata: { occurredAt: 'now' } });

describeWithKafka('reactor on Kafka: a produce the broker refuses', (brokers) => {
  const closing: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  it('rejects the submit, keeps the checkpoint where it was, and the job runs once the broker takes it', async () => {
    const type = uniqueType('refused');
    const admin = new Kafka({ clientId: 'paperlink-test', brokers: brokers(), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    closing.push(() => admin.disconnect());
    // Batches of at most 64 bytes: the broker refuses every job produced to this topic (MESSAGE_TOO_LARGE).
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic: jobTopic(type), numPartitions: 1, configEntries: [{ name: 'max.message.bytes', value: '64' }] }] });

    const client = { retry: { retries: 1, initialRetryTime: 100, maxRetryTime: 200 }, logLevel: logLevel.NOTHING };
    const submitter = await KafkaJobQueue.connect({ brokers: brokers(), clientId: 'paperlink-test', client, remoteTypes: [type], log: () => {} });
    closing.push(() => submitter.close());
    const job: Job = { id: `job-${randomUUID()}`, type, companyId: 'c1', payload: {}, causationId: 'e1', correlationId: 'r1', attempt: 1 };
    await expect(submitter.submit(job)).rejects.toThrow(/larger than the max message size/);
    expect(submitter.pending()).toBe(0);

    const events = new SqliteEventStore(':memory:');
    closing.push(() => events.close());
    const store = new EmbeddedReadStore();
    await events.appendToStream('thing-1', [ev(1)], 'no_stream');
    const jobsFrom = (e: RecordedEvent): Job[] => [{ ...job, id: `thing-${e.id}`, causationId: e.id }];
    const logs: string[] = [];
    const reactor = new Reactor('refused', events, store, submitter, jobsFrom, { backoffMs: { base: 200, max: 500 }, log: (m) => logs.push(m) });
    await reactor.start();
    closing.push(() => reactor.stop());
    await until(() => logs.length >= 2, 30_000, 'two refused submits');
    expect(reactor.position).toBe(0);
    expect((await store.getCheckpoints()).find((c) => c.name === 'reactor:refused')).toBeUndefined();

    // The broker takes the job now; a worker runs it; the checkpoint moves past the event.
    const ran: string[] = [];
    const worker = await KafkaJobQueue.connect({ brokers: brokers(), clientId: 'paperlink-test', log: () => {} });
    closing.push(() => worker.close());
    worker.register(type, { run: async (j) => { ran.push(j.id); }, onFailed: async () => {} });
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: 2 /* TOPIC */, name: jobTopic(type), configEntries: [{ name: 'max.message.bytes', value: String(1024 * 1024) }] }] });
    const head = await events.headPosition();
    await until(() => reactor.position === head, 60_000, 'the reactor checkpoint at the head');
    expect(ran).toHaveLength(1);
    await sleep(100);
    expect((await store.getCheckpoints()).find((c) => c.name === 'reactor:refused')?.position).toBe(head);
  });
});
