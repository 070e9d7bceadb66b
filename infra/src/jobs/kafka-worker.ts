/**
 * The workers of one job type in one process: a member of the type's consumer group, reading the
 * type's topic and its retry topics, running at most `concurrency` jobs at once.
 */
import type { Consumer, EachBatchPayload, Kafka, Producer } from 'kafkajs';
import type { Job, JobHandler, JobOptions } from '@paperlink/domain';
import { HEARTBEAT_MS, type Settlements } from './kafka-settle';
import {
  backoff, errorText, parseJob, retryDelays, type DeadLetter, type Topics,
} from './kafka-topics';

/** How long a fetch waits for new messages. */
const FETCH_WAIT_MS = 1_000;

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

/** Timers that close() cancels at once. */
export class Timers {
  private readonly pending = new Set<() => void>();
  private stopped = false;

  /** Calls `fn` after `ms` unless cancelled first. */
  later(ms: number, fn: () => void): void {
    if (this.stopped) return;
    const abort = () => {
      clearTimeout(timer);
      this.pending.delete(abort);
    };
    const timer = setTimeout(() => {
      this.pending.delete(abort);
      fn();
    }, ms);
    this.pending.add(abort);
  }

  /** Resolves true after `ms`, or false at once when cancelled. */
  sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.stopped) return resolve(false);
      const abort = () => {
        clearTimeout(timer);
        this.pending.delete(abort);
        resolve(false);
      };
      const timer = setTimeout(() => {
        this.pending.delete(abort);
        resolve(true);
      }, ms);
      this.pending.add(abort);
    });
  }

  cancelAll(): void {
    this.stopped = true;
    for (const abort of [...this.pending]) abort();
  }
}

export interface WorkerContext {
  kafka: Kafka;
  producer: Producer;
  topics: Topics;
  settlements: Settlements;
  timers: Timers;
  log: (msg: string) => void;
  closing: () => boolean;
}

export class JobWorker {
  readonly ready: Promise<void>;
  private readonly slots: Semaphore;
  private consumer?: Consumer;
  /** The partitions this member holds since the group last joined, by topic. */
  private assigned: Record<string, number[]> = {};

  constructor(
    readonly type: string,
    private readonly handler: JobHandler,
    readonly options: JobOptions,
    private readonly ctx: WorkerContext,
  ) {
    this.slots = new Semaphore(options.concurrency);
    this.ready = this.start();
  }

  private get names() {
    return this.ctx.topics.names;
  }

  /** The partitions of the type's first-attempt topic this member holds now. */
  partitions(): number[] {
    return [...(this.assigned[this.names.job(this.type)] ?? [])].sort((a, b) => a - b);
  }

  /** Joins the group, trying again with a back-off while the broker cannot be reached (until close). */
  private async start(): Promise<void> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.join();
      } catch (e) {
        const consumer = this.consumer;
        this.consumer = undefined;
        await consumer?.disconnect().catch(() => {});
        const wait = Math.min(30_000, 500 * 2 ** (tries - 1));
        if (this.ctx.closing()) throw e;
        this.ctx.log(`job worker ${this.type} did not start (try ${tries}; again in ${wait} ms): ${errorText(e)}`);
        if (!(await this.ctx.timers.sleep(wait))) throw e;
      }
    }
  }

  private async join(): Promise<void> {
    const names = this.names;
    const retries = retryDelays(this.options).map((d) => names.retry(this.type, d));
    await this.ctx.topics.ensure(names.job(this.type), ...retries, names.dead);
    const consumer = this.ctx.kafka.consumer({
      groupId: names.group(this.type),
      // A worker killed outright hands its partitions on after this (batches heartbeat while jobs run).
      sessionTimeout: 10_000,
      rebalanceTimeout: 60_000,
      heartbeatInterval: HEARTBEAT_MS,
      maxWaitTimeInMs: FETCH_WAIT_MS,
    });
    this.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      this.assigned = e.payload.memberAssignment;
    });
    await consumer.connect();
    // A new group starts at the beginning, so jobs produced before any worker existed run.
    // Every retry topic of the type, also those of delays no longer configured (retries still in them).
    await consumer.subscribe({ topics: [names.job(this.type), names.retryPattern(this.type)], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: Math.max(1, this.options.concurrency),
      eachBatch: (payload) => this.consumeBatch(payload),
    });
  }

  /**
   * Runs a batch of one partition: each due message takes a slot and runs, side by side with the
   * others; the offset moves over the settled prefix only. A message of a retry topic that is not
   * due yet pauses that retry partition until it is: the messages behind it in that topic are
   * due later still (one delay per topic), and the type's other topics go on. Errors of Kafka
   * itself (a produce or commit that failed) are thrown after the batch, so kafkajs fetches the
   * unsettled messages again.
   */
  private async consumeBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, commitOffsetsIfNecessary, heartbeat, pause, isRunning, isStale } = payload;
    const { topic, partition, messages } = batch;
    const settled = messages.map(() => false);
    let prefix = -1;
    let failure: unknown;
    let stale = false;
    let commits = Promise.resolve();
    const fail = (e: unknown) => {
      failure ??= e;
    };
    const advance = () => {
      let i = prefix;
      while (i + 1 < messages.length && settled[i + 1]) i++;
      if (i === prefix) return;
      prefix = i;
      const offset = messages[i]!.offset;
      resolveOffset(offset);
      const next = (BigInt(offset) + 1n).toString();
      // The payload's commit, not consumer.commitOffsets: that one does nothing once the
      // consumer is stopping, and jobs that finish during close() should count as done.
      commits = commits.then(() => commitOffsetsIfNecessary({ topics: [{ topic, partitions: [{ partition, offset: next }] }] })).catch(fail);
    };
    const settle = (i: number) => {
      settled[i] = true;
      advance();
    };
    const beat = setInterval(() => {
      heartbeat().catch(() => {
        stale = true; // a rebalance: start nothing more, kafkajs re-joins after this batch
      });
    }, HEARTBEAT_MS);
    const stop = () => this.ctx.closing() || stale || failure !== undefined || !isRunning() || isStale();
    const tasks: Promise<void>[] = [];
    try {
      for (let i = 0; i < messages.length && !stop(); i++) {
        const m = messages[i]!;
        const parsed = parseJob(m, this.type);
        if (!parsed) {
          this.ctx.log(`job topic ${topic}[${partition}]@${m.offset}: unreadable message skipped`);
          settle(i);
          continue;
        }
        // A retry written by an older version to the first-attempt topic runs at once rather
        // than holding up that topic: only retry topics wait.
        const wait = topic === this.names.job(this.type) ? 0 : parsed.notBefore - Date.now();
        if (wait > 0) {
          this.ctx.timers.later(wait, pause());
          break;
        }
        await this.slots.acquire();
        if (stop()) {
          this.slots.release();
          break;
        }
        tasks.push(this.attempt(parsed.job, parsed.attempt).then(() => settle(i), fail));
      }
      await Promise.all(tasks);
      await commits;
    } finally {
      clearInterval(beat);
    }
    if (failure !== undefined && !this.ctx.closing()) throw failure;
  }

  /** Hands a job on to its next attempt, in the retry topic of the back-off before it. */
  private async produceRetry(job: Job, failedAttempt: number): Promise<void> {
    const delay = backoff(this.options, failedAttempt);
    const attempt = failedAttempt + 1;
    const headers = { attempt: String(attempt), 'not-before': String(Date.now() + delay) };
    await this.ctx.producer.send({ topic: this.names.retry(this.type, delay), messages: [{ key: job.id, value: JSON.stringify({ ...job, attempt }), headers }] });
  }

  /**
   * One attempt, holding a slot (released when the handler returns). Resolves when the job is
   * settled or handed on as a retry; rejects only when Kafka could not be told.
   */
  private async attempt(job: Job, attempt: number): Promise<void> {
    const current: Job = { ...job, attempt };
    let failed = false;
    let error: unknown;
    try {
      await this.handler.run(current);
    } catch (e) {
      failed = true;
      error = e;
    } finally {
      this.slots.release();
    }
    if (!failed) return this.ctx.settlements.publish(current, 'done');
    if (attempt < this.options.maxAttempts) {
      return this.produceRetry(job, attempt);
    }
    this.ctx.log(`job ${job.type} ${job.id} failed after ${attempt} attempts: ${errorText(error)}`);
    try {
      await this.handler.onFailed(current, error);
    } catch (e) {
      this.ctx.log(`job ${job.type} ${job.id}: onFailed threw: ${errorText(e)}`);
    }
    // Dead letter first: once a submitter hears 'failed', the failure is on record.
    const letter: DeadLetter = { job: current, attempts: attempt, error: errorText(error), failedAt: new Date().toISOString() };
    await this.ctx.producer.send({ topic: this.names.dead, messages: [{ key: job.id, value: JSON.stringify(letter), headers: { type: job.type } }] });
    await this.ctx.settlements.publish(current, 'failed', error);
  }

  /** Waits for the jobs that are running; what has not settled is re-delivered later. */
  async stop(): Promise<void> {
    await this.ready.catch(() => {});
    await this.consumer?.disconnect().catch(() => {});
  }
}
