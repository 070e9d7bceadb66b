import type { Router } from 'express';
import { NotFoundError } from '@paperlink/domain';
import { isId } from '../core/ids';

/** Route params that name a record, user, company or match. */
export const ID_PARAMS = ['id', 'userId'] as const;

/**
 * Checks every id-like route param of a router at the edge: anything that is not one of our ids
 * (`__proto__`, `constructor`, a path fragment, 10 kB of text) names no record, and is answered
 * 404 before any handler, decider or store sees it. Call it on every router with `:id` routes.
 */
export function validIdParams(router: Router): Router {
  for (const name of ID_PARAMS) {
    router.param(name, (_req, _res, next, value: unknown) => {
      next(isId(value) ? undefined : new NotFoundError(`Not found: the ${name === 'userId' ? 'user id' : 'id'} in the address is not a valid id.`, 'invalid_id'));
    });
  }
  return router;
}
