import type { RequestHandler } from 'express';
import type { Operation } from './operation';

/**
 * One feature's share of an API (command or query side): the operations it documents and the
 * routers that serve them, built from what the composition root wires for it (`Deps`). A
 * package lists its modules once (its modules.ts); the OpenAPI document, the auditor's
 * read-only gate and the process roles read the operations from there.
 */
export interface ApiModule<Deps> {
  /** The feature, named as in every package (receipts, matches, ai...). */
  feature: string;
  operations: Operation[];
  /** Its routers (and middleware), in order; absent where infra serves the routes with adapters this package does not know (audit, system). */
  routers?(deps: Deps): RequestHandler[];
}

/** Every operation of a package's modules, in their order. */
export const operationsOf = (modules: ReadonlyArray<{ operations: Operation[] }>): Operation[] => modules.flatMap((m) => m.operations);
