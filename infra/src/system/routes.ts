/**
 * GET /system/rebuilds (issue 17, item 5): admins see the projections (version, live generation,
 * position) and the blue-green rebuilds under way or done since start, with their rate and the
 * time left. Figures about the server only: names, counts and positions, no company's records.
 */
import { Router } from 'express';
import { requireCompany } from '@paperlink/command-api';
import type { ProjectionRunner } from '@paperlink/projections';
import type { EventStore } from '@paperlink/domain';

export function systemRouter(deps: { runner: ProjectionRunner; events: EventStore }): Router {
  const router = Router();
  router.get('/system/rebuilds', requireCompany('admin'), async (_req, res) => {
    const head = await deps.events.headPosition();
    res.setHeader('Cache-Control', 'no-store');
    res.json({ head, position: deps.runner.position, projections: deps.runner.projectionStates(), rebuilds: deps.runner.rebuilds() });
  });
  return router;
}
