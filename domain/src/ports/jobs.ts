/**
 * The jobs port: slow work (OCR, auto-match, AI) runs outside requests. Jobs are derived from
 * events by a checkpointed reactor, so a crash never loses one; each job's result comes back
 * as a command whose request id is the job id, so running a job twice records it once.
 */
export interface Job<Payload = unknown> {
  /** Stable id: the same event always gives the same job id. */
  id: string;
  type: string;
  companyId: string;
  payload: Payload;
  /** The event the job came from (causation) and the conversation it belongs to. */
  causationId: string;
  correlationId: string;
  /** 1 on the first run. */
  attempt: number;
}

export interface JobOptions {
  /** How many jobs of this type run at once in this process. */
  concurrency: number;
  /** Attempts before the job is given up (the handler's onFailed runs then). */
  maxAttempts: number;
  /** Back-off before attempt n+1: base * 2^(n-1), capped. */
  backoffMs: { base: number; max: number };
}

export interface JobHandler<Payload = unknown> {
  run(job: Job<Payload>): Promise<void>;
  /** After the last failed attempt: record the failure (as a command) so people see it. */
  onFailed(job: Job<Payload>, error: unknown): Promise<void>;
}

export interface JobQueue {
  readonly kind: string;
  /** Registers the handler of a job type. */
  register<P>(type: string, handler: JobHandler<P>, options?: Partial<JobOptions>): void;
  /** Runs a job to its end (done or given up); resolves when it is settled. */
  submit(job: Job): Promise<'done' | 'failed'>;
  /** Jobs submitted and not settled yet. */
  pending(): number;
  close(): Promise<void>;
}
