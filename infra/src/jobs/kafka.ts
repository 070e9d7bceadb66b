import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, Partitioners, type Admin, type Consumer, type EachBatchPayload, type IHeaders, type KafkaMessage, type Producer } from 'kafkajs';
import type { Job, JobHandler, JobOptions, JobQueue } from '@paperlink/domain';
import { DEFAULT_JOB_OPTIONS } from './memory';

/** Where the jobs of a type wait to run. */
export const jobTopic = (type: string) => `paperlink.jobs.${type}`;
/** The consumer group whose members run the jobs of a type (one member per worker process). */
export const jobGroup = (type: string) => `paperlink-${type}`;
/** Every settled job's outcome, read by every submitting process. */
export const SETTLED_TOPIC = 'paperlink.jobs.settled';

const LEGAL_TYPE = /^[a-zA-Z0-9._-]{1,200}$/;
const HEARTBEAT_MS = 3_000;
/** How long a fetch waits for new messages; also the longest back-off slept inside a batch. */
const FETCH_WAIT_MS = 1_000;
const SLEEP_IN_BATCH_MS = FETCH_WAIT_MS;

export interface KafkaJobQueueOptions {
  brokers: string[];
  clientId?: string;
  /**
   * Job types this process submits but other processes run. submit() of a type that is
   * neither registered here nor listed here rejects, as a misspelt type should.
   */
  remoteTypes?: string[];
  /** Partitions of the topics this queue creates (more partitions, more worker processes). */
  partitions?: number;
  /** Replication factor of the topics this queue creates; -1 takes the broker's default. */
  replicationFactor?: number;
  log?: (msg: string) => void;
}

type Outcome = 'done' | 'failed';

interface Waiter {
  resolve(outcome: Outcome): void;
  reject(error: unknown): void;
}

/** The outcome of a job as published on the settled topic. */
interface Settlement {
  id: string;
  type: string;
  status: Outcome;
  attempt: number;
  error?: string;
}

class Semaphore {
  private free: number;
  private readonly queue: Array<() => void> = [];

  constructor(size: number) {
    this.free = Math.max(1, size);
  }

  acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.free++;
  }
}

interface Worker {
  type: string;
  handler: JobHandler;
  options: JobOptions;
  slots: Semaphore;
  consumer?: Consumer;
  ready: Promise<void>;
}

const header = (headers: IHeaders | undefined, name: string): string | undefined => {
  const v = headers?.[name];
  const first = Array.isArray(v) ? v[0] : v;
  return first === undefined ? undefined : first.toString();
};

const backoff = (options: JobOptions, attempt: number) =>
  Math.min(options.backoffMs.max, options.backoffMs.base * 2 ** (attempt - 1));

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * The distributed job queue on Kafka.
 *
 * - `submit(job)` produces the job to `paperlink.jobs.<type>` (key: job id, so a job's
 *   attempts stay on one partition; value: the job as JSON; header `attempt`) and resolves when
 *   the job settles: at once when this process ran it, else when its settlement arrives on
 *   `paperlink.jobs.settled`, which every queue reads from the moment it connected.
 * - Every process that registers a type joins the consumer group `paperlink-<type>`; the
 *   group shares the partitions among them. A process runs at most `concurrency` jobs of a
 *   type at once (a semaphore over all its partitions; within a batch jobs run side by side).
 * - A failed attempt is retried by producing the job again with `attempt + 1` and a
 *   `not-before` header (the back-off), so waiting holds no slot and other jobs go first; the
 *   last failed attempt calls onFailed and settles the job 'failed'.
 * - A partition's offset is committed only over the prefix of its messages that settled
 *   (done, failed, or handed on as a retry), so a crash re-delivers whatever was running and
 *   results are idempotent by job id (at-least-once).
 */
export class KafkaJobQueue implements JobQueue {
  readonly kind = 'kafka';
  private readonly workers = new Map<string, Worker>();
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly topics = new Map<string, Promise<void>>();
  private readonly sleepers = new Set<() => void>();
  private readonly remoteTypes: Set<string>;
  private readonly log: (msg: string) => void;
  private inFlight = 0;
  private closing = false;
  private closed?: Promise<void>;
  private settledConsumer?: Consumer;
  private settledGroup?: string;

  private constructor(
    private readonly kafka: Kafka,
    private readonly admin: Admin,
    private readonly producer: Producer,
    private readonly options: Omit<KafkaJobQueueOptions, 'brokers'>,
  ) {
    this.remoteTypes = new Set(options.remoteTypes ?? []);
    this.log = options.log ?? ((m) => console.warn(m));
  }

  static async connect(options: KafkaJobQueueOptions): Promise<KafkaJobQueue> {
    if (options.brokers.length === 0) throw new Error('KafkaJobQueue needs at least one broker');
    const kafka = new Kafka({ clientId: options.clientId ?? 'paperlink', brokers: options.brokers, logLevel: logLevel.ERROR });
    return KafkaJobQueue.withClient(kafka, options);
  }

  /** On a kafkajs client the caller made (its own SSL/SASL settings, say). */
  static async withClient(kafka: Kafka, options: Omit<KafkaJobQueueOptions, 'brokers'> = {}): Promise<KafkaJobQueue> {
    const admin = kafka.admin();
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await admin.connect();
    await producer.connect();
    const queue = new KafkaJobQueue(kafka, admin, producer, options);
    try {
      await queue.listenForSettlements();
    } catch (e) {
      await queue.close().catch(() => {});
      throw e;
    }
    return queue;
  }

  /**
   * Reads the settled topic in a consumer group of this queue alone, from the end the topic
   * had before the group joined: every settlement of a job submitted after connect() is seen.
   */
  private async listenForSettlements(): Promise<void> {
    await this.ensureTopic(SETTLED_TOPIC);
    const group = `paperlink-settled-${this.options.clientId ?? 'paperlink'}-${randomUUID()}`;
    const consumer = this.kafka.consumer({ groupId: group, sessionTimeout: 30_000, heartbeatInterval: HEARTBEAT_MS });
    this.settledConsumer = consumer;
    this.settledGroup = group;
    await consumer.connect();
    await consumer.subscribe({ topics: [SETTLED_TOPIC], fromBeginning: false });
    const ends = await this.admin.fetchTopicOffsets(SETTLED_TOPIC);
    await consumer.run({
      eachMessage: async ({ message: m }) => {
        const s = parseSettlement(m);
        if (s) this.resolveWaiters(s.id, s.status);
      },
    });
    for (const { partition, high } of ends) consumer.seek({ topic: SETTLED_TOPIC, partition, offset: high });
  }

  private ensureTopic(topic: string): Promise<void> {
    let created = this.topics.get(topic);
    if (!created) {
      created = this.admin
        .createTopics({
          waitForLeaders: true,
          topics: [{
            topic,
            numPartitions: this.options.partitions ?? 6,
            replicationFactor: this.options.replicationFactor ?? -1,
            // A settlement matters only to submitters waiting now; jobs keep the broker's retention.
            ...(topic === SETTLED_TOPIC ? { configEntries: [{ name: 'retention.ms', value: String(24 * 3600 * 1000) }] } : {}),
          }],
        })
        .then(() => undefined);
      this.topics.set(topic, created);
      created.catch(() => this.topics.delete(topic));
    }
    return created;
  }

  register<P>(type: string, handler: JobHandler<P>, options: Partial<JobOptions> = {}): void {
    if (this.closing) throw new Error('job queue closed');
    if (this.workers.has(type)) throw new Error(`job type ${type} registered twice`);
    if (!LEGAL_TYPE.test(type)) throw new Error(`job type ${type} is not a legal Kafka topic suffix`);
    const worker: Worker = {
      type,
      handler: handler as JobHandler,
      options: { ...DEFAULT_JOB_OPTIONS, ...options },
      slots: new Semaphore(options.concurrency ?? DEFAULT_JOB_OPTIONS.concurrency),
      ready: Promise.resolve(),
    };
    worker.ready = this.startWorker(worker);
    worker.ready.catch((e: unknown) => this.log(`job worker ${type} did not start: ${message(e)}`));
    this.workers.set(type, worker);
  }

  private async startWorker(worker: Worker): Promise<void> {
    const topic = jobTopic(worker.type);
    await this.ensureTopic(topic);
    const consumer = this.kafka.consumer({
      groupId: jobGroup(worker.type),
      sessionTimeout: 30_000,
      rebalanceTimeout: 60_000,
      heartbeatInterval: HEARTBEAT_MS,
      maxWaitTimeInMs: FETCH_WAIT_MS,
    });
    worker.consumer = consumer;
    await consumer.connect();
    // A new group starts at the beginning, so jobs produced before any worker existed run.
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: Math.max(1, worker.options.concurrency),
      eachBatch: (payload) => this.consumeBatch(worker, payload),
    });
  }

  pending(): number {
    return this.inFlight;
  }

  async submit(job: Job): Promise<Outcome> {
    if (this.closing) throw new Error('job queue closed');
    const worker = this.workers.get(job.type);
    if (!worker && !this.remoteTypes.has(job.type)) throw new Error(`no handler for job type ${job.type}`);
    if (!LEGAL_TYPE.test(job.type)) throw new Error(`job type ${job.type} is not a legal Kafka topic suffix`);
    this.inFlight++;
    try {
      let waiter!: Waiter;
      const outcome = new Promise<Outcome>((resolve, reject) => (waiter = { resolve, reject }));
      outcome.catch(() => {}); // rejected by close() perhaps before it is awaited below
      const list = this.waiters.get(job.id) ?? [];
      list.push(waiter);
      this.waiters.set(job.id, list);
      try {
        if (worker) await worker.ready;
        else await this.ensureTopic(jobTopic(job.type));
        await this.produceJob(job, job.attempt);
      } catch (e) {
        this.dropWaiter(job.id, waiter);
        throw e;
      }
      return await outcome;
    } finally {
      this.inFlight--;
    }
  }

  private dropWaiter(id: string, waiter: Waiter): void {
    const list = this.waiters.get(id)?.filter((w) => w !== waiter) ?? [];
    if (list.length > 0) this.waiters.set(id, list);
    else this.waiters.delete(id);
  }

  private resolveWaiters(id: string, outcome: Outcome): void {
    const list = this.waiters.get(id);
    if (!list) return;
    this.waiters.delete(id);
    for (const w of list) w.resolve(outcome);
  }

  private async produceJob(job: Job, attempt: number, notBefore?: number): Promise<void> {
    const headers: IHeaders = { attempt: String(attempt) };
    if (notBefore !== undefined) headers['not-before'] = String(notBefore);
    await this.producer.send({
      topic: jobTopic(job.type),
      messages: [{ key: job.id, value: JSON.stringify({ ...job, attempt }), headers }],
    });
  }

  /** Sleeps; false when close() cut the sleep short. */
  private sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.closing) return resolve(false);
      const abort = () => {
        clearTimeout(timer);
        this.sleepers.delete(abort);
        resolve(false);
      };
      const timer = setTimeout(() => {
        this.sleepers.delete(abort);
        resolve(true);
      }, ms);
      this.sleepers.add(abort);
    });
  }

  /** Calls `fn` after `ms` unless the queue closes first. */
  private later(ms: number, fn: () => void): void {
    if (this.closing) return;
    const abort = () => {
      clearTimeout(timer);
      this.sleepers.delete(abort);
    };
    const timer = setTimeout(() => {
      this.sleepers.delete(abort);
      fn();
    }, ms);
    this.sleepers.add(abort);
  }

  /**
   * Runs a batch of one partition: each message waits for its `not-before` time and a slot,
   * then runs, side by side with the others; the offset moves over the settled prefix only.
   * kafkajs fetches again only when every batch of a fetch is done, so a back-off longer
   * than a fetch's wait pauses the partition instead of holding the batch. Errors of Kafka itself (a
   * produce or commit that failed) are thrown after the batch, so kafkajs fetches the
   * unsettled messages again.
   */
  private async consumeBatch(worker: Worker, payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, commitOffsetsIfNecessary, heartbeat, pause, isRunning, isStale } = payload;
    const { topic, partition, messages } = batch;
    const settled = messages.map(() => false);
    let prefix = -1;
    let failure: unknown;
    let stale = false;
    let commits = Promise.resolve();

    const advance = () => {
      let i = prefix;
      while (i + 1 < messages.length && settled[i + 1]) i++;
      if (i === prefix) return;
      prefix = i;
      const offset = messages[i]!.offset;
      resolveOffset(offset);
      const next = (BigInt(offset) + 1n).toString();
      commits = commits
        // The payload's commit, not consumer.commitOffsets: that one does nothing once the
        // consumer is stopping, and jobs that finish during close() should count as done.
        .then(() => commitOffsetsIfNecessary({ topics: [{ topic, partitions: [{ partition, offset: next }] }] }))
        .catch((e: unknown) => {
          failure ??= e;
        });
    };
    const beat = setInterval(() => {
      heartbeat().catch(() => {
        stale = true; // a rebalance: start nothing more, kafkajs re-joins after this batch
      });
    }, HEARTBEAT_MS);
    const stop = () => this.closing || stale || failure !== undefined || !isRunning() || isStale();

    const tasks: Promise<void>[] = [];
    const settle = (i: number) => {
      settled[i] = true;
      advance();
    };
    try {
      for (let i = 0; i < messages.length; i++) {
        if (stop()) break;
        const m = messages[i]!;
        const parsed = parseJob(m, worker.type);
        if (!parsed) {
          this.log(`job topic ${topic}[${partition}]@${m.offset}: unreadable message skipped`);
          settle(i);
          continue;
        }
        const wait = parsed.notBefore - Date.now();
        if (wait > SLEEP_IN_BATCH_MS) {
          // A retry with a long back-off ahead: pause this partition (others go on) and
          // come back to this message, unresolved, when its time has come.
          this.later(wait, pause());
          break;
        }
        if (wait > 0) {
          // A retry due soon: it takes a slot only when its time has come.
          tasks.push(
            (async () => {
              if (!(await this.sleep(wait))) return;
              await worker.slots.acquire();
              if (this.closing) return worker.slots.release();
              await this.attempt(worker, parsed.job, parsed.attempt);
              settle(i);
            })().catch((e: unknown) => {
              failure ??= e;
            }),
          );
          continue;
        }
        await worker.slots.acquire();
        if (stop()) {
          worker.slots.release();
          break;
        }
        tasks.push(
          this.attempt(worker, parsed.job, parsed.attempt)
            .then(() => settle(i))
            .catch((e: unknown) => {
              failure ??= e;
            }),
        );
      }
      await Promise.all(tasks);
      await commits;
    } finally {
      clearInterval(beat);
    }
    if (failure !== undefined && !this.closing) throw failure;
  }

  /**
   * One attempt, holding a slot (released when the handler returns). Resolves when the job
   * is settled or handed on as a retry; rejects only when Kafka could not be told.
   */
  private async attempt(worker: Worker, job: Job, attempt: number): Promise<void> {
    const current: Job = { ...job, attempt };
    let failed = false;
    let error: unknown;
    try {
      await worker.handler.run(current);
    } catch (e) {
      failed = true;
      error = e;
    } finally {
      worker.slots.release();
    }
    if (!failed) return this.publish(current, 'done');
    if (attempt >= worker.options.maxAttempts) {
      this.log(`job ${job.type} ${job.id} failed after ${attempt} attempts: ${message(error)}`);
      try {
        await worker.handler.onFailed(current, error);
      } catch (e) {
        this.log(`job ${job.type} ${job.id}: onFailed threw: ${message(e)}`);
      }
      return this.publish(current, 'failed', error);
    }
    await this.produceJob(job, attempt + 1, Date.now() + backoff(worker.options, attempt));
  }

  /** Settles the job here at once, and for every other submitter on the settled topic. */
  private async publish(job: Job, status: Outcome, error?: unknown): Promise<void> {
    this.resolveWaiters(job.id, status);
    const s: Settlement = { id: job.id, type: job.type, status, attempt: job.attempt, ...(error !== undefined ? { error: message(error) } : {}) };
    await this.producer.send({ topic: SETTLED_TOPIC, messages: [{ key: job.id, value: JSON.stringify(s), headers: { status } }] });
  }

  async close(): Promise<void> {
    return (this.closed ??= this.shutdown());
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    for (const abort of [...this.sleepers]) abort();
    const workers = [...this.workers.values()];
    await Promise.allSettled(workers.map((w) => w.ready));
    // Waits for the jobs that are running; what has not settled is re-delivered later.
    await Promise.allSettled(workers.map((w) => w.consumer?.disconnect()));
    await this.settledConsumer?.disconnect().catch(() => {});
    for (const [id, list] of [...this.waiters]) {
      this.waiters.delete(id);
      for (const w of list) w.reject(new Error('job queue closed'));
    }
    if (this.settledGroup) await this.admin.deleteGroups([this.settledGroup]).catch(() => {});
    await this.producer.disconnect().catch(() => {});
    await this.admin.disconnect().catch(() => {});
  }
}

function parseJob(m: KafkaMessage, type: string): { job: Job; attempt: number; notBefore: number } | null {
  try {
    const job = JSON.parse(m.value?.toString() ?? '') as Job;
    if (typeof job?.id !== 'string' || job.type !== type) return null;
    const attempt = Number(header(m.headers, 'attempt') ?? job.attempt ?? 1);
    const notBefore = Number(header(m.headers, 'not-before') ?? 0);
    if (!Number.isInteger(attempt) || attempt < 1 || !Number.isFinite(notBefore)) return null;
    return { job, attempt, notBefore };
  } catch {
    return null;
  }
}

function parseSettlement(m: KafkaMessage): Settlement | null {
  try {
    const s = JSON.parse(m.value?.toString() ?? '') as Settlement;
    return typeof s?.id === 'string' && (s.status === 'done' || s.status === 'failed') ? s : null;
  } catch {
    return null;
  }
}
