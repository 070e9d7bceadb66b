import type { Router } from 'express';
import { z } from 'zod';
import { MASTER_KINDS, NotFoundError, type MasterKind } from '@paperlink/domain';

/**
 * The shape of every id we hand out (records, users, companies, matches): a UUID, 8-4-4-4-12
 * hex digits. Any UUID version is accepted, so ids made by other tools (version 4) still work.
 */
export const ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Route params that name a record, user, company or match. */
export const ID_PARAMS = ['id', 'userId'] as const;

/** One of our ids in a path (a UUID); what `validIdParams` checks every `:id` and `:userId` with. */
export const IdParam = z.string().regex(ID_PATTERN).meta({ description: 'An id (UUID)' });
export const IdParams = z.object({ id: IdParam });
export const UserIdParams = z.object({ userId: IdParam });
export const CompanyUserParams = z.object({ id: IdParam, userId: IdParam });

/**
 * Checks every id-like route param of a router at the edge: anything that is not one of our ids
 * (`__proto__`, `constructor`, a path fragment, 10 kB of text) names no record, and is answered
 * 404 before any handler, decider or store sees it. Call it on every router with `:id` routes.
 */
export function validIdParams(router: Router): Router {
  for (const name of ID_PARAMS) {
    router.param(name, (_req, _res, next, value: unknown) => {
      next(IdParam.safeParse(value).success ? undefined : new NotFoundError(`Not found: the ${name === 'userId' ? 'user id' : 'id'} in the address is not a valid id.`, 'invalid_id'));
    });
  }
  return router;
}

/** Which list: `categories`, `job_numbers` or `cost_codes` (another word is a 404 no_such_list). */
export const MasterKindParam = z.enum(MASTER_KINDS as [MasterKind, ...MasterKind[]]);
export const MasterKindParams = z.object({ kind: MasterKindParam });
export const MasterItemParams = z.object({ kind: MasterKindParam, id: IdParam });
