import type { RequestHandler } from 'express';
import type { JobHandler, JobOptions } from '@paperlink/domain';
import type { CommandModule } from '@paperlink/command-api';
import type { ProjectionModule } from '@paperlink/projections';
import type { QueryModule } from '@paperlink/query-api';
import type { JobsFromEvent } from '../jobs/reactor';
import type { Config } from '../config';
import type { PaperlinkOptions } from './options';
import type { Services } from './services';
import type { Stores } from './stores';

/** What a feature is wired from: the stores, the shared services, the settings. */
export interface Kernel extends Stores, Services {
  config: Config;
  options: PaperlinkOptions;
}

/** Events that call for jobs, read by a checkpointed reactor where the projections run. */
export interface Reaction {
  name: string;
  jobsFrom: JobsFromEvent;
}

export interface JobRegistration {
  type: string;
  handler: JobHandler<never>;
  options?: Partial<JobOptions>;
}

/** A feature's wiring in this process: its routers, and the jobs it handles. */
export interface Wiring {
  /** Served before authentication (sign-in, a presigned upload's target). */
  public?: RequestHandler[];
  routes: RequestHandler[];
  /** Handlers of its job types (registered where jobs run here). */
  jobs?: JobRegistration[];
}

/**
 * One feature of the server: its share of each package (command and query modules, projections,
 * reactions) and `wire`, the glue that builds their dependencies from the kernel. The composition
 * root (app.ts) loops over infra/src/features.ts.
 */
export interface Feature {
  feature: string;
  // The modules' dependency types differ per feature; `wire` gives each the deps it declares.
  commands?: CommandModule<never>;
  queries?: QueryModule<never>;
  projections?: ProjectionModule;
  reactions?: Reaction[];
  wire(kernel: Kernel): Wiring;
}
