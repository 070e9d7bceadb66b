/**
 * The failed-jobs read model: one document per job whose last attempt failed, built from the
 * dead-letter topic (kafka-topics.ts), which is kept forever and so can build it again from its
 * first offset. A failed job is not an event of the log (auto-match's failure never was one;
 * OCR's is, ReceiptReadFailed, and shows on its receipt): the topic is this model's log, and the
 * stored checkpoint is the next offset of each partition, committed with the documents.
 * Bumping MODEL_VERSION rebuilds it from the start of the topic at the next start.
 */
import type { Admin, Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { Checkpoint, Doc, ReadStore, WriteSet } from '@paperlink/domain';
import { untilItPasses } from './kafka-retry';
import { parseDeadLetter, TopicNames, Topics } from './kafka-topics';

export const JOB_FAILURES = 'job_failures';
const MODEL_VERSION = 1;
const CHECKPOINT = 'dead-letters';
const checkpointName = (partition: number) => `${CHECKPOINT}:${partition}`;

export interface JobFailureDoc extends Doc {
  companyId: string;
  type: string;
  attempts: number;
  error: string;
  failedAt: string;
  /** The event the job came from (a receipt's upload, say). */
  causationId: string;
}

/** What an admin sees of a failed job (System page). */
export type JobFailureView = { id: string; type: string; attempts: number; error: string; failedAt: string; causationId: string };

/** The newest failed jobs of a company, newest first. */
export async function jobFailuresOf(store: ReadStore, companyId: string, limit = 100): Promise<JobFailureView[]> {
  const docs = await store.collection<JobFailureDoc>(JOB_FAILURES).find({ companyId }, { sort: { failedAt: -1, _id: -1 }, limit });
  return docs.map((d) => ({ id: d._id, type: d.type, attempts: d.attempts, error: d.error, failedAt: d.failedAt, causationId: d.causationId }));
}

export class DeadLetterProjector {
  private consumer?: Consumer;
  private admin?: Admin;
  /** The next offset to apply, by partition. */
  private readonly next = new Map<number, bigint>();

  constructor(
    private readonly kafka: Kafka,
    private readonly store: ReadStore,
    private readonly options: { names?: TopicNames; groupId?: string; log?: (msg: string) => void } = {},
  ) {}

  private get topic(): string {
    return (this.options.names ?? new TopicNames()).dead;
  }

  /** Offsets applied so far, by partition (tests, health). */
  positions(): Map<number, bigint> {
    return new Map(this.next);
  }

  async start(): Promise<void> {
    this.admin = this.kafka.admin();
    await this.admin.connect();
    await new Topics(this.admin, {}, this.options.names).ensure(this.topic);
    await this.store.ensureIndexes(JOB_FAILURES, [['companyId', 'failedAt', '_id']]);
    const stored = (await this.store.getCheckpoints()).filter((c) => c.name.startsWith(`${CHECKPOINT}:`));
    if (stored.some((c) => c.version !== MODEL_VERSION)) {
      await this.store.drop([JOB_FAILURES], stored.map((c) => c.name));
    } else {
      for (const c of stored) this.next.set(Number(c.name.slice(CHECKPOINT.length + 1)), BigInt(c.position));
    }
    const { partitions } = (await untilItPasses(() => this.admin!.fetchTopicMetadata({ topics: [this.topic] }))).topics[0]!;
    const consumer = this.kafka.consumer({ groupId: this.options.groupId ?? (this.options.names ?? new TopicNames()).deadLetterGroup, sessionTimeout: 10_000, heartbeatInterval: 3_000, maxWaitTimeInMs: 1_000 });
    this.consumer = consumer;
    await consumer.connect();
    await consumer.subscribe({ topics: [this.topic], fromBeginning: true });
    await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch: (payload) => this.apply(payload) });
    // The stored checkpoint decides where to read from, not the group's offsets.
    for (const { partitionId } of partitions) {
      consumer.seek({ topic: this.topic, partition: partitionId, offset: String(this.next.get(partitionId) ?? 0n) });
    }
  }

  /** Writes a batch's dead letters and the partition's next offset in one commit. */
  private async apply({ batch, resolveOffset, commitOffsetsIfNecessary }: EachBatchPayload): Promise<void> {
    const { partition, messages } = batch;
    const from = this.next.get(partition) ?? 0n;
    const docs = new Map<string, Doc | null>();
    let last: string | undefined;
    for (const m of messages) {
      last = m.offset;
      if (BigInt(m.offset) < from) continue; // applied before (the group's offset lags the checkpoint)
      const letter = parseDeadLetter(m);
      if (!letter) {
        this.options.log?.(`dead-letter topic [${partition}]@${m.offset}: unreadable message skipped`);
        continue;
      }
      const { job } = letter;
      const doc: JobFailureDoc = { _id: job.id, companyId: job.companyId, type: job.type, attempts: letter.attempts, error: letter.error.slice(0, 2000), failedAt: letter.failedAt, causationId: job.causationId };
      docs.set(job.id, doc);
    }
    if (last === undefined) return;
    const position = BigInt(last) + 1n;
    if (position > from) {
      const checkpoint: Checkpoint = { name: checkpointName(partition), version: MODEL_VERSION, position: Number(position) };
      const writes: WriteSet = docs.size > 0 ? new Map([[JOB_FAILURES, docs]]) : new Map();
      await this.store.commit(writes, [checkpoint]);
      this.next.set(partition, position);
    }
    resolveOffset(last);
    // The group's offset only spares a re-read after a rebalance; the checkpoint is what counts.
    await commitOffsetsIfNecessary({ topics: [{ topic: this.topic, partitions: [{ partition, offset: position.toString() }] }] }).catch(() => {});
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect().catch(() => {});
    await this.admin?.disconnect().catch(() => {});
  }
}
