/**
 * How a submitter learns a job's outcome: at once when this process ran the job, else from the
 * settled topic, which every queue reads (in a consumer group of its own) from the moment it
 * connected.
 */
import { randomUUID } from 'node:crypto';
import type { Admin, Consumer, Kafka, Producer } from 'kafkajs';
import { untilItPasses } from './kafka-retry';
import { errorText, parseSettlement, type Settlement, type Topics } from './kafka-topics';

export type Outcome = Settlement['status'];

interface Waiter {
  resolve(outcome: Outcome): void;
  reject(error: unknown): void;
}

export const HEARTBEAT_MS = 3_000;

export class Settlements {
  private readonly waiters = new Map<string, Waiter[]>();
  private consumer?: Consumer;
  private group?: string;

  constructor(
    private readonly kafka: Kafka,
    private readonly admin: Admin,
    private readonly producer: Producer,
    private readonly topics: Topics,
    private readonly clientId: string,
  ) {}

  /**
   * Reads the settled topic from the end it had before the group joined: every settlement of a
   * job submitted after this resolves is seen.
   */
  async listen(): Promise<void> {
    const topic = this.topics.names.settled;
    await this.topics.ensure(topic);
    const group = `${this.topics.names.prefix}-settled-${this.clientId}-${randomUUID()}`;
    const consumer = this.kafka.consumer({ groupId: group, sessionTimeout: 30_000, heartbeatInterval: HEARTBEAT_MS });
    this.consumer = consumer;
    this.group = group;
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: false });
    const ends = await untilItPasses(() => this.admin.fetchTopicOffsets(topic));
    await consumer.run({
      eachMessage: async ({ message: m }) => {
        const s = parseSettlement(m);
        if (s) this.resolve(s.id, s.status);
      },
    });
    for (const { partition, high } of ends) consumer.seek({ topic, partition, offset: high });
  }

  /** A promise of the job's outcome, and a way to stop waiting (the job was never produced). */
  wait(id: string): { outcome: Promise<Outcome>; drop: () => void } {
    let waiter!: Waiter;
    const outcome = new Promise<Outcome>((resolve, reject) => (waiter = { resolve, reject }));
    outcome.catch(() => {}); // rejected by close() perhaps before it is awaited
    const list = this.waiters.get(id) ?? [];
    list.push(waiter);
    this.waiters.set(id, list);
    const drop = () => {
      const rest = this.waiters.get(id)?.filter((w) => w !== waiter) ?? [];
      if (rest.length > 0) this.waiters.set(id, rest);
      else this.waiters.delete(id);
    };
    return { outcome, drop };
  }

  private resolve(id: string, outcome: Outcome): void {
    const list = this.waiters.get(id);
    if (!list) return;
    this.waiters.delete(id);
    for (const w of list) w.resolve(outcome);
  }

  /** Settles the job here at once, and for every other submitter on the settled topic. */
  async publish(job: { id: string; type: string; attempt: number }, status: Outcome, error?: unknown): Promise<void> {
    this.resolve(job.id, status);
    const s: Settlement = { id: job.id, type: job.type, status, attempt: job.attempt, ...(error !== undefined ? { error: errorText(error) } : {}) };
    await this.producer.send({ topic: this.topics.names.settled, messages: [{ key: job.id, value: JSON.stringify(s), headers: { status } }] });
  }

  async close(): Promise<void> {
    await this.consumer?.disconnect().catch(() => {});
    for (const [id, list] of [...this.waiters]) {
      this.waiters.delete(id);
      for (const w of list) w.reject(new Error('job queue closed'));
    }
    if (this.group) await this.admin.deleteGroups([this.group]).catch(() => {});
  }
}
