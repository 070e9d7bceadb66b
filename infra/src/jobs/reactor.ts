import type { EventStore, Job, JobQueue, ReadStore, RecordedEvent, Subscription } from '@paperlink/domain';
import { submitUntilTaken, type ResubmitOptions } from './resubmit';

/** Turns events into jobs: pure, so replays give the same jobs with the same ids. */
export type JobsFromEvent = (event: RecordedEvent) => Job[];

/**
 * A checkpointed subscription that submits the jobs events call for. The checkpoint moves
 * past an event only when every job from it and from the events before it has settled, so a
 * crash re-runs unfinished jobs (whose results are idempotent by job id) and loses none. A
 * submit that rejects (the job could not be produced) is not a settled job: it is submitted
 * again after a back-off, and the checkpoint waits before its event meanwhile.
 */
export class Reactor {
  private subscription?: Subscription;
  private readonly settled = new Map<number, boolean>();
  private readonly order: number[] = [];
  private checkpoint = 0;
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    readonly name: string,
    private readonly events: EventStore,
    private readonly store: ReadStore,
    private readonly queue: JobQueue,
    private readonly jobsFrom: JobsFromEvent,
    private readonly resubmit: Pick<ResubmitOptions, 'backoffMs' | 'log'> = { log: (m) => console.warn(`reactor ${name}: ${m}`) },
  ) {}

  private get checkpointName(): string {
    return `reactor:${this.name}`;
  }

  async start(): Promise<void> {
    const cp = (await this.store.getCheckpoints()).find((c) => c.name === this.checkpointName);
    this.checkpoint = cp?.position ?? 0;
    this.subscription = this.events.subscribeToAll({ after: this.checkpoint, batchSize: 500, onError: (e) => console.error(`reactor ${this.name} stopped:`, e) }, async (batch) => {
      for (const event of batch) {
        const jobs = this.jobsFrom(event);
        this.order.push(event.position);
        this.settled.set(event.position, jobs.length === 0);
        if (jobs.length > 0) {
          const tries = { ...this.resubmit, stopped: () => this.stopped };
          void Promise.all(jobs.map((j) => submitUntilTaken(this.queue, j, tries))).then((outcomes) => {
            if (this.stopped || outcomes.includes(undefined)) return; // a restart submits them again
            this.settled.set(event.position, true);
            this.advance();
          });
        }
      }
      this.advance();
    });
  }

  /** Moves the checkpoint over the settled prefix and stores it (one write at a time). */
  private advance(): void {
    let moved = false;
    while (this.order.length > 0 && this.settled.get(this.order[0]!)) {
      const p = this.order.shift()!;
      this.settled.delete(p);
      this.checkpoint = p;
      moved = true;
    }
    if (!moved) return;
    const position = this.checkpoint;
    this.chain = this.chain
      .then(() => this.store.commit(new Map(), [{ name: this.checkpointName, version: 1, position }]))
      .catch((e: unknown) => console.error(`reactor ${this.name} checkpoint failed:`, e));
  }

  /** Position up to which every job has settled. */
  get position(): number {
    return this.checkpoint;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.close();
    await this.chain;
  }
}
