import type { RequestHandler } from 'express';
import type { ApiModule } from '@paperlink/domain/http/module';

/** A feature's command side: its documented operations, its routers and the event types its commands append. */
export interface CommandModule<Deps> extends ApiModule<Deps> {
  /** Every event type its commands append (test/projections/rebuild.int.spec.ts: the log holds these and nothing else). */
  events: ReadonlyArray<string>;
  routers(deps: Deps): RequestHandler[];
  /** Routers served before authentication (the sign-in routes, a presigned upload's target). */
  publicRouters?(deps: Deps): RequestHandler[];
}

export const ok = (description: string) => ({ status: 200 as const, description });
export const created = (description: string) => ({ status: 201 as const, description });
