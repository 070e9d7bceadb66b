import { Router } from 'express';
import { requireCompany } from '@paperlink/command-api';
import { systemQueries } from '@paperlink/query-api';
import type { Feature, Kernel } from '../boot/feature';
import { jobFailuresOf } from '../jobs/dead-letters';
import { VERSION } from '../version';
import { systemRouter } from './routes';

/** The details behind /api/health, for admins: profile, stores, projection lag. */
function healthDetails(k: Kernel): Router {
  return Router().get('/health/details', requireCompany('admin'), async (_req, res) => {
    const head = await k.events.headPosition();
    const failed = k.runner.failed !== undefined;
    res.json({
      status: failed ? 'degraded' : 'ok',
      version: VERSION,
      profile: k.adapters.profile,
      eventStore: k.events.kind,
      readStore: k.readStore.kind,
      projections: { position: k.runner.position, head, lag: Math.max(0, head - k.runner.position), ...(failed ? { error: String(k.runner.failed) } : {}) },
    });
  });
}

/** Projections, rebuilds and failed jobs, for admins (ADR 0015). */
export const system: Feature = {
  feature: 'system',
  queries: systemQueries,
  wire: (k) => ({
    routes: [healthDetails(k), systemRouter({ runner: k.runner, events: k.events, jobFailures: (companyId) => jobFailuresOf(k.readStore, companyId), jobQueue: k.adapters.jobs.kind })],
  }),
};
