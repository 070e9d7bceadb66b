import type { Job, JobHandler, JobOptions, JobQueue } from '@paperlink/domain';

export const DEFAULT_JOB_OPTIONS: JobOptions = { concurrency: 2, maxAttempts: 4, backoffMs: { base: 500, max: 30_000 } };

interface Lane {
  handler: JobHandler;
  options: JobOptions;
  running: number;
  waiting: Array<() => void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The embedded job queue: a worker pool per job type in this process. Retries with
 * exponential back-off; after the last attempt the handler's onFailed records the failure.
 */
export class InProcessJobQueue implements JobQueue {
  readonly kind = 'in-process';
  private readonly lanes = new Map<string, Lane>();
  private inFlight = 0;
  private closed = false;

  constructor(private readonly log: (msg: string) => void = (m) => console.warn(m)) {}

  register<P>(type: string, handler: JobHandler<P>, options: Partial<JobOptions> = {}): void {
    if (this.lanes.has(type)) throw new Error(`job type ${type} registered twice`);
    this.lanes.set(type, { handler: handler as JobHandler, options: { ...DEFAULT_JOB_OPTIONS, ...options }, running: 0, waiting: [] });
  }

  pending(): number {
    return this.inFlight;
  }

  private async slot(lane: Lane): Promise<void> {
    if (lane.running < lane.options.concurrency) {
      lane.running++;
      return;
    }
    await new Promise<void>((resolve) => lane.waiting.push(resolve));
  }

  private release(lane: Lane): void {
    const next = lane.waiting.shift();
    if (next) next();
    else lane.running--;
  }

  async submit(job: Job): Promise<'done' | 'failed'> {
    const lane = this.lanes.get(job.type);
    if (!lane) throw new Error(`no handler for job type ${job.type}`);
    this.inFlight++;
    try {
      for (let attempt = job.attempt; ; attempt++) {
        if (this.closed) throw new Error('job queue closed');
        await this.slot(lane);
        let error: unknown;
        try {
          await lane.handler.run({ ...job, attempt });
          return 'done';
        } catch (e) {
          error = e;
        } finally {
          this.release(lane);
        }
        if (attempt >= lane.options.maxAttempts) {
          this.log(`job ${job.type} ${job.id} failed after ${attempt} attempts: ${(error as Error)?.message ?? error}`);
          await lane.handler.onFailed({ ...job, attempt }, error);
          return 'failed';
        }
        await sleep(Math.min(lane.options.backoffMs.max, lane.options.backoffMs.base * 2 ** (attempt - 1)));
      }
    } finally {
      this.inFlight--;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
