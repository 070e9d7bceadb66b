/**
 * The topics of the Kafka job queue, what their messages hold, and their creation (names
 * shown under the default prefix, see TopicNames).
 *
 * - `paperlink.jobs.<type>`: jobs waiting for their first attempt (key: job id).
 * - `paperlink.jobs.<type>.retry-<delay>ms`: jobs waiting for a later attempt, one topic per
 *   back-off delay, so every message of a retry topic's partition is due after the one before it
 *   and waiting for the first one never holds up another that is already due.
 * - `paperlink.jobs.dead`: jobs whose last attempt failed, with the error and attempts; kept
 *   forever, it is the log the dead-letter read model is built from (dead-letters.ts).
 * - `paperlink.jobs.settled`: every job's outcome, read by every submitting process.
 */
import type { Admin, IHeaders, KafkaMessage } from 'kafkajs';
import type { Job, JobOptions } from '@paperlink/domain';
import { untilItPasses } from './kafka-retry';

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The names of the queue's topics and groups under a prefix (KAFKA_TOPIC_PREFIX, default
 * `paperlink`): one broker can serve several installations (or test runs) apart.
 */
export class TopicNames {
  constructor(readonly prefix = 'paperlink') {
    if (!/^[a-zA-Z0-9._-]{1,40}$/.test(prefix)) throw new Error(`Kafka topic prefix ${prefix} is not a legal topic name part (letters, digits, . _ -, at most 40)`);
  }

  job(type: string): string {
    return `${this.prefix}.jobs.${type}`;
  }

  retry(type: string, delayMs: number): string {
    return `${this.job(type)}.retry-${delayMs}ms`;
  }

  /** Every retry topic of a type, whatever its delay. */
  retryPattern(type: string): RegExp {
    return new RegExp(`^${escaped(this.job(type))}\\.retry-\\d+ms$`);
  }

  /** The consumer group whose members run the jobs of a type (one member per worker process). */
  group(type: string): string {
    return `${this.prefix}-${type}`;
  }

  get settled(): string {
    return `${this.prefix}.jobs.settled`;
  }

  get dead(): string {
    return `${this.prefix}.jobs.dead`;
  }

  /** The group of the dead-letter read model's projectors (one reads at a time). */
  get deadLetterGroup(): string {
    return `${this.prefix}-dead-letters`;
  }
}

const DEFAULT_NAMES = new TopicNames();
export const jobTopic = (type: string) => DEFAULT_NAMES.job(type);
export const retryTopic = (type: string, delayMs: number) => DEFAULT_NAMES.retry(type, delayMs);
export const jobGroup = (type: string) => DEFAULT_NAMES.group(type);
export const SETTLED_TOPIC = DEFAULT_NAMES.settled;
export const DEAD_LETTER_TOPIC = DEFAULT_NAMES.dead;

const LEGAL_TYPE = /^[a-zA-Z0-9._-]{1,200}$/;
/** Type names whose topic would be another topic of the queue. */
const RESERVED_TYPE = /^(settled|dead)$|\.retry-\d+ms$/;

/** Why a job type cannot have topics of its own, or null when it can. */
export function illegalType(type: string): string | null {
  if (!LEGAL_TYPE.test(type)) return `job type ${type} is not a legal Kafka topic suffix`;
  if (RESERVED_TYPE.test(type)) return `job type ${type} names another topic of the job queue`;
  return null;
}

/** Back-off before attempt `attempt + 1`: base * 2^(attempt-1), capped. */
export const backoff = (options: JobOptions, attempt: number) =>
  Math.min(options.backoffMs.max, options.backoffMs.base * 2 ** (attempt - 1));

/** The distinct back-off delays of a type's retries (one retry topic each). */
export function retryDelays(options: JobOptions): number[] {
  const delays = new Set<number>();
  for (let attempt = 1; attempt < options.maxAttempts; attempt++) delays.add(backoff(options, attempt));
  return [...delays];
}

/** The outcome of a job as published on the settled topic. */
export interface Settlement {
  id: string;
  type: string;
  status: 'done' | 'failed';
  attempt: number;
  error?: string;
}

/** A job whose last attempt failed, as kept on the dead-letter topic. */
export interface DeadLetter {
  job: Job;
  attempts: number;
  error: string;
  failedAt: string;
}

export const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 2000);

const header = (headers: IHeaders | undefined, name: string): string | undefined => {
  const v = headers?.[name];
  const first = Array.isArray(v) ? v[0] : v;
  return first === undefined ? undefined : first.toString();
};

export function parseJob(m: KafkaMessage, type: string): { job: Job; attempt: number; notBefore: number } | null {
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

export function parseSettlement(m: KafkaMessage): Settlement | null {
  try {
    const s = JSON.parse(m.value?.toString() ?? '') as Settlement;
    return typeof s?.id === 'string' && (s.status === 'done' || s.status === 'failed') ? s : null;
  } catch {
    return null;
  }
}

export function parseDeadLetter(m: KafkaMessage): DeadLetter | null {
  try {
    const d = JSON.parse(m.value?.toString() ?? '') as DeadLetter;
    const ok = typeof d?.job?.id === 'string' && typeof d.job.type === 'string' && typeof d.job.companyId === 'string'
      && Number.isInteger(d.attempts) && typeof d.error === 'string' && typeof d.failedAt === 'string';
    return ok ? d : null;
  } catch {
    return null;
  }
}

const DAY_MS = 24 * 3600 * 1000;

/** Creates the queue's topics once per process (an existing topic is left as it is). */
export class Topics {
  private readonly created = new Map<string, Promise<void>>();

  constructor(
    private readonly admin: Admin,
    private readonly options: { partitions?: number; replicationFactor?: number },
    readonly names: TopicNames = DEFAULT_NAMES,
  ) {}

  ensure(...topics: string[]): Promise<void> {
    return Promise.all(topics.map((t) => this.ensureOne(t))).then(() => undefined);
  }

  private ensureOne(topic: string): Promise<void> {
    let created = this.created.get(topic);
    if (!created) {
      created = untilItPasses(() => this.admin.createTopics({ waitForLeaders: true, topics: [{ topic, replicationFactor: this.options.replicationFactor ?? -1, ...this.shape(topic, this.options.partitions ?? 6) }] }))
        // Created by now (this call or another's); wait until the broker's metadata shows its leaders.
        .then(() => this.known(topic));
      this.created.set(topic, created);
      created.catch(() => this.created.delete(topic));
    }
    return created;
  }

  /** Waits until the broker's metadata holds the topic and its partitions' leaders. */
  private known(topic: string): Promise<void> {
    return untilItPasses(async () => {
      const { topics } = await this.admin.fetchTopicMetadata({ topics: [topic] });
      const partitions = topics[0]?.partitions ?? [];
      if (partitions.length === 0 || partitions.some((p) => p.leader < 0)) throw Object.assign(new Error(`topic ${topic} has no leader yet`), { type: 'LEADER_NOT_AVAILABLE' });
    });
  }

  private shape(topic: string, partitions: number): { numPartitions: number; configEntries?: Array<{ name: string; value: string }> } {
    // A settlement matters only to submitters waiting now; jobs keep the broker's retention.
    if (topic === this.names.settled) return { numPartitions: partitions, configEntries: [{ name: 'retention.ms', value: String(DAY_MS) }] };
    // Dead letters are rare and are the source of a read model: one partition, kept forever.
    if (topic === this.names.dead) return { numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '-1' }] };
    return { numPartitions: partitions };
  }
}
