import { type EventStore, type Job, type JobHandler, type RecordedEvent } from '@paperlink/domain';
import { runAutoMatch, thresholdFor, type MatchDeps } from '@paperlink/command-api';

export const AUTO_MATCH_JOB = 'match.auto';

/** New evidence for matching: a receipt read or corrected, a statement imported, a transaction edited. */
const TRIGGERS = new Set(['ReceiptRead', 'ReceiptCorrected', 'StatementImported', 'TransactionUpdated']);

export interface AutoMatchPayload {
  position: number;
}

export function autoMatchJobsFrom(event: RecordedEvent): Job<AutoMatchPayload>[] {
  if (!TRIGGERS.has(event.type)) return [];
  const companyId = (event.data as { companyId?: string }).companyId;
  if (!companyId) return [];
  return [{ id: `automatch-${event.id}`, type: AUTO_MATCH_JOB, companyId, payload: { position: event.position }, causationId: event.id, correlationId: event.metadata.correlationId ?? event.id, attempt: 1 }];
}

/**
 * Runs auto-match for the company at its autoMatchThreshold setting (the default when unset). Runs coalesce: a run that starts
 * after an event has been projected covers it, so a burst of evidence (ten receipts read in a
 * row) costs one or two runs, not ten.
 */
export function autoMatchJobHandler(deps: { match: MatchDeps; events: EventStore; caughtUp: (position: number) => Promise<void>; log?: (m: string) => void }): JobHandler<AutoMatchPayload> {
  const coveredUpTo = new Map<string, number>();
  return {
    async run(job) {
      if ((coveredUpTo.get(job.companyId) ?? 0) >= job.payload.position) return;
      const head = await deps.events.headPosition();
      await deps.caughtUp(head);
      const threshold = await thresholdFor(deps.match, job.companyId, undefined);
      await runAutoMatch(deps.match, { requestId: `${job.id}-${job.attempt}`, correlationId: job.correlationId, companyId: job.companyId, userId: 'system:auto-match', role: 'admin', now: new Date() }, threshold, {});
      coveredUpTo.set(job.companyId, Math.max(coveredUpTo.get(job.companyId) ?? 0, head));
    },
    async onFailed(job, error) {
      deps.log?.(`auto-match for company ${job.companyId} failed: ${error instanceof Error ? error.message : String(error)}`);
    },
  };
}
