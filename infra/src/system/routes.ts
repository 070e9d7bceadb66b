/**
 * GET /system/rebuilds (ADR 0015): admins see the projections (version, live generation,
 * position) and the blue-green rebuilds under way or done since start, with their rate and the
 * time left. Figures about the server only: names, counts and positions, no company's records.
 *
 * GET /system/job-failures: admins see their own company's jobs whose last attempt failed (OCR,
 * auto-match), newest first, from the failed-jobs read model (jobs/dead-letters.ts).
 */
import { Router } from 'express';
import { ctxOf, requireCompany } from '@paperlink/command-api';
import type { ProjectionRunner } from '@paperlink/projections';
import type { EventStore } from '@paperlink/domain';
import type { JobFailureView } from '../jobs/dead-letters';

export interface SystemDeps {
  runner: ProjectionRunner;
  events: EventStore;
  /** The failed jobs of a company, newest first. */
  jobFailures: (companyId: string) => Promise<JobFailureView[]>;
  /** Where jobs run: `kafka` keeps dead letters; the in-process queue records failures on what failed only. */
  jobQueue: string;
}

export function systemRouter(deps: SystemDeps): Router {
  const router = Router();
  router.get('/system/rebuilds', requireCompany('admin'), async (_req, res) => {
    const head = await deps.events.headPosition();
    res.setHeader('Cache-Control', 'no-store');
    res.json({ head, position: deps.runner.position, projections: deps.runner.projectionStates(), rebuilds: deps.runner.rebuilds() });
  });
  router.get('/system/job-failures', requireCompany('admin'), async (_req, res) => {
    const failures = await deps.jobFailures(ctxOf(res).companyId!);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ queue: deps.jobQueue, failures });
  });
  return router;
}
