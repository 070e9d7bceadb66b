import { Kafka, logLevel, Partitioners, type Admin, type KafkaConfig, type Producer } from 'kafkajs';
import type { Job, JobHandler, JobOptions, JobQueue, ReadStore } from '@paperlink/domain';
import { DeadLetterProjector } from './dead-letters';
import { kafkaLog } from './kafka-client';
import { DEFAULT_JOB_OPTIONS } from './memory';
import { Settlements, type Outcome } from './kafka-settle';
import { illegalType, TopicNames, Topics } from './kafka-topics';
import { JobWorker, Timers } from './kafka-worker';

export { DEAD_LETTER_TOPIC, jobGroup, jobTopic, retryTopic, SETTLED_TOPIC, TopicNames } from './kafka-topics';

export interface KafkaJobQueueOptions {
  brokers: string[];
  clientId?: string;
  /** The client's other settings: TLS and SASL (kafka-client.ts). */
  client?: Omit<KafkaConfig, 'brokers' | 'clientId'>;
  /**
   * Job types this process submits but other processes run. submit() of a type that is
   * neither registered here nor listed here rejects, as a misspelt type should.
   */
  remoteTypes?: string[];
  /** What every topic and group name begins with (default `paperlink`). */
  topicPrefix?: string;
  /** Partitions of the topics this queue creates (more partitions, more worker processes). */
  partitions?: number;
  /** Replication factor of the topics this queue creates; -1 takes the broker's default. */
  replicationFactor?: number;
  log?: (msg: string) => void;
}

/**
 * The distributed job queue on Kafka (topics: kafka-topics.ts).
 *
 * - `submit(job)` produces the job to `paperlink.jobs.<type>` (key: job id, so a job's
 *   attempts stay on one partition; value: the job as JSON; header `attempt`) and resolves when
 *   the job settles: at once when this process ran it, else when its settlement arrives on
 *   `paperlink.jobs.settled` (kafka-settle.ts). It rejects when the job could not be produced:
 *   the caller (a reactor) must not count such a job as settled.
 * - Every process that registers a type joins the consumer group `paperlink-<type>`; the
 *   group shares the partitions among them (kafka-worker.ts). A process runs at most
 *   `concurrency` jobs of a type at once.
 * - A failed attempt is handed on to the retry topic of its back-off, with a `not-before`
 *   header: waiting holds no slot and stalls no partition of the type's topic. The last failed
 *   attempt calls onFailed, goes to the dead-letter topic with its error and attempts, and
 *   settles the job 'failed'.
 * - A partition's offset is committed only over the prefix of its messages that settled
 *   (done, failed, or handed on as a retry), so a crash re-delivers whatever was running and
 *   results are idempotent by job id (at-least-once).
 */
export class KafkaJobQueue implements JobQueue {
  readonly kind = 'kafka';
  private readonly workers = new Map<string, JobWorker>();
  private readonly remoteTypes: Set<string>;
  private readonly log: (msg: string) => void;
  private readonly topics: Topics;
  private readonly settlements: Settlements;
  private readonly timers = new Timers();
  private readonly projectors: DeadLetterProjector[] = [];
  private inFlight = 0;
  private closing = false;
  private closed?: Promise<void>;

  private constructor(
    private readonly kafka: Kafka,
    private readonly admin: Admin,
    private readonly producer: Producer,
    options: Omit<KafkaJobQueueOptions, 'brokers'>,
  ) {
    this.remoteTypes = new Set(options.remoteTypes ?? []);
    this.log = options.log ?? ((m) => console.warn(m));
    this.topics = new Topics(admin, options, new TopicNames(options.topicPrefix));
    this.settlements = new Settlements(kafka, admin, producer, this.topics, options.clientId ?? 'paperlink');
  }

  static async connect(options: KafkaJobQueueOptions): Promise<KafkaJobQueue> {
    if (options.brokers.length === 0) throw new Error('KafkaJobQueue needs at least one broker');
    const log = options.log ?? ((m: string) => console.warn(m));
    const kafka = new Kafka({ logLevel: logLevel.ERROR, logCreator: kafkaLog(log), ...options.client, clientId: options.clientId ?? 'paperlink', brokers: options.brokers });
    return KafkaJobQueue.withClient(kafka, options);
  }

  /** On a kafkajs client the caller made. */
  static async withClient(kafka: Kafka, options: Omit<KafkaJobQueueOptions, 'brokers'> = {}): Promise<KafkaJobQueue> {
    const admin = kafka.admin();
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    const queue = new KafkaJobQueue(kafka, admin, producer, options);
    try {
      await admin.connect();
      await producer.connect();
      await queue.settlements.listen();
    } catch (e) {
      await queue.close().catch(() => {});
      throw e;
    }
    return queue;
  }

  register<P>(type: string, handler: JobHandler<P>, options: Partial<JobOptions> = {}): void {
    if (this.closing) throw new Error('job queue closed');
    if (this.workers.has(type)) throw new Error(`job type ${type} registered twice`);
    const illegal = illegalType(type);
    if (illegal) throw new Error(illegal);
    const worker = new JobWorker(type, handler as JobHandler, { ...DEFAULT_JOB_OPTIONS, ...options }, {
      kafka: this.kafka,
      producer: this.producer,
      topics: this.topics,
      settlements: this.settlements,
      timers: this.timers,
      log: this.log,
      closing: () => this.closing,
    });
    // It rejects only when the queue closed before the worker could join its group.
    worker.ready.catch(() => {});
    this.workers.set(type, worker);
  }

  /** Resolves when the workers of a type have joined their group (tests, start-up logs). */
  async started(type: string): Promise<void> {
    await this.workers.get(type)?.ready;
  }

  /** The partitions of a type's topic this process's workers hold now (empty: none, or not joined yet). */
  partitions(type: string): number[] {
    return this.workers.get(type)?.partitions() ?? [];
  }

  /**
   * The failed-jobs read model's projector on this queue's broker and topics (dead-letters.ts);
   * started by the caller, stopped by it or by close().
   */
  deadLetterProjector(store: ReadStore, options: { groupId?: string } = {}): DeadLetterProjector {
    const projector = new DeadLetterProjector(this.kafka, store, { names: this.topics.names, log: this.log, ...options });
    this.projectors.push(projector);
    return projector;
  }

  pending(): number {
    return this.inFlight;
  }

  async submit(job: Job): Promise<Outcome> {
    if (this.closing) throw new Error('job queue closed');
    const worker = this.workers.get(job.type);
    if (!worker && !this.remoteTypes.has(job.type)) throw new Error(`no handler for job type ${job.type}`);
    const illegal = illegalType(job.type);
    if (illegal) throw new Error(illegal);
    this.inFlight++;
    try {
      const { outcome, drop } = this.settlements.wait(job.id);
      try {
        if (worker) await worker.ready;
        else await this.topics.ensure(this.topics.names.job(job.type));
        await this.producer.send({
          topic: this.topics.names.job(job.type),
          messages: [{ key: job.id, value: JSON.stringify(job), headers: { attempt: String(job.attempt) } }],
        });
      } catch (e) {
        drop();
        throw e;
      }
      return await outcome;
    } finally {
      this.inFlight--;
    }
  }

  async close(): Promise<void> {
    return (this.closed ??= this.shutdown());
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    this.timers.cancelAll();
    // Waits for the jobs that are running; what has not settled is re-delivered later.
    await Promise.allSettled([...this.workers.values()].map((w) => w.stop()));
    await Promise.allSettled(this.projectors.map((p) => p.stop()));
    await this.settlements.close();
    await this.producer.disconnect().catch(() => {});
    await this.admin.disconnect().catch(() => {});
  }
}
