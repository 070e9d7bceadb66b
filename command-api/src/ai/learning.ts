/**
 * The learning AI calls (spec section 7, AI): categorisation with its
 * feedback and stats, duplicate checks, groups and batches, recurring patterns, and the AI
 * dashboard's figures. A plain member sees and acts on their own records only; an admin on
 * the company's. Predictions, feedback and duplicate groups are events.
 */
import { Router } from 'express';
import { validIdParams } from '../http/params';
import { categorizeRoutes } from './categorize-routes';
import { duplicateRoutes } from './duplicate-routes';
import type { AiLearningDeps } from './learning-core';
import { recurringRoutes } from './recurring-routes';

export * from './learning-core';

export function aiLearningRouter(deps: AiLearningDeps): Router {
  const router = validIdParams(Router());
  categorizeRoutes(router, deps);
  duplicateRoutes(router, deps);
  recurringRoutes(router, deps);
  return router;
}
