import { type EventStore, type Job, type JobHandler, type JobOptions, type RecordedEvent } from '@paperlink/domain';
import { runAutoMatch, thresholdFor, type MatchDeps, type MatchSeed, type Pause } from '@paperlink/command-api';

export const AUTO_MATCH_JOB = 'match.auto';

export interface AutoMatchPayload {
  position: number;
  /** What is new: the run matches its candidate block only (ADR 0021). */
  seed: MatchSeed;
}

type Rows = Array<{ transactionId: string; date: string }>;

/** New evidence for matching: a receipt read or corrected, lines imported, a line edited, a pair rejected; each names its own seed. */
function seedOf(event: RecordedEvent): MatchSeed | null {
  const d = event.data as { receiptId?: string; transactionId?: string; rows?: Rows; changes?: Record<string, unknown> };
  switch (event.type) {
    case 'ReceiptRead':
    case 'ReceiptCorrected':
      return d.receiptId ? { receiptIds: [d.receiptId] } : null;
    case 'TransactionUpdated':
      // Only the fields matching reads change a line's candidates.
      if (!d.transactionId || !d.changes || !['transaction_date', 'date', 'amountCents', 'amount', 'description', 'userId'].some((k) => k in d.changes!)) return null;
      return { transactionIds: [d.transactionId] };
    case 'MatchRejected':
      // A person refused the pair: each side may have another best pair (the refused one is never proposed again).
      // A deleted match sets off nothing: proposing the pair a person just undid would be noise; it comes back
      // with new evidence in its block or a full run on request.
      return d.receiptId && d.transactionId ? { receiptIds: [d.receiptId], transactionIds: [d.transactionId] } : null;
    case 'TransactionsImported':
      // The statement's lines are matched once, over the posting days of all of them, on its
      // StatementImported (the last event of the import's append, ADR 0027): one pass over the
      // block instead of one per chunk of 1,000 lines, each over nearly the same days. A
      // statement imported before its event named its days starts no run when its events are
      // read again (their runs are in the log; a full run stays available on request).
      return null;
    case 'StatementImported': {
      const days = (event.data as { days?: unknown }).days;
      return Array.isArray(days) && days.length === 2 && typeof days[0] === 'string' && typeof days[1] === 'string' ? { days: [days[0], days[1]] } : null;
    }
    default:
      return null;
  }
}

/**
 * One auto-match at a time. A job whose read models are still behind its event (a big import
 * being projected: 200,000 lines take over a minute) is tried again for about four minutes
 * (each attempt waits up to READ_SIDE_WAIT_MS, back-off 1, 2, 4 ... 30 s), not given up after 15 s.
 */
export const AUTO_MATCH_JOB_OPTIONS: JobOptions = { concurrency: 1, maxAttempts: 12, backoffMs: { base: 1000, max: 30_000 } };

export function autoMatchJobsFrom(event: RecordedEvent): Job<AutoMatchPayload>[] {
  const companyId = (event.data as { companyId?: string }).companyId;
  const seed = companyId ? seedOf(event) : null;
  if (!companyId || !seed) return [];
  return [{ id: `automatch-${event.id}`, type: AUTO_MATCH_JOB, companyId, payload: { position: event.position, seed }, causationId: event.id, correlationId: event.metadata.correlationId ?? event.id, attempt: 1 }];
}

/**
 * Runs auto-match for the company at its autoMatchThreshold setting (the default when unset),
 * over the candidate block of what the event brought (a receipt, a line, the posting days of an
 * import), once the read models include the event. A job queued by the previous version
 * (no seed) runs over the whole company, as it then did.
 */
export function autoMatchJobHandler(deps: { match: MatchDeps; events: EventStore; caughtUp: (position: number) => Promise<boolean | void>; log?: (m: string) => void; pause?: Pause }): JobHandler<AutoMatchPayload> {
  return {
    async run(job) {
      // The block is found on the read models: behind the event, it could miss the new receipt or lines (the job is retried).
      if ((await deps.caughtUp(job.payload.position)) === false) throw new Error('the read models do not include the event yet');
      const threshold = await thresholdFor(deps.match, job.companyId, undefined);
      const ctx = { requestId: `${job.id}-${job.attempt}`, correlationId: job.correlationId, companyId: job.companyId, userId: 'system:auto-match', role: 'admin' as const, now: new Date() };
      // Between its slices the run gives the thread to the requests in flight (RequestActivity).
      // The event's position goes with its seed: a pair a person deleted after it is not proposed again
      // (a retried or late job would undo their decision with evidence they had seen).
      await runAutoMatch(deps.match, ctx, threshold, {}, { ...job.payload.seed, evidenceAt: job.payload.position }, deps.pause);
    },
    async onFailed(job, error) {
      deps.log?.(`auto-match for company ${job.companyId} failed: ${error instanceof Error ? error.message : String(error)}`);
    },
  };
}
