/**
 * Jobs where this process runs them: the features' handlers where handlers run, their reactions
 * where the projections run (in the projector thread when it runs them), only while this process
 * holds the projector lease, and the failed-jobs read model on Kafka.
 */
import type { DeadLetterProjector } from '../jobs/dead-letters';
import type { KafkaJobQueue } from '../jobs/kafka';
import { Reactor } from '../jobs/reactor';
import type { Feature, Kernel, Wiring } from './feature';
import { ownedJob } from '../workers/owner';

export interface JobRuntime {
  /** Stops the reactors (before the job queue closes). */
  stop(): Promise<void>;
}

export async function startJobs(k: Kernel, features: readonly Feature[], wirings: readonly Wiring[]): Promise<JobRuntime> {
  const { jobs } = k.adapters;
  if (k.runsHandlers) for (const w of wirings) for (const j of w.jobs ?? []) jobs.register(j.type, ownedJob(j.handler), j.options);
  const reactors: Reactor[] = [];
  let deadLetters: DeadLetterProjector | undefined;
  if (k.runsReactors) {
    // With the projector thread the reactors run there (it lists the same reactions: infra/src/reactions.ts); their jobs run here.
    if (k.projector) k.projector.startReactors(jobs);
    else reactors.push(...features.flatMap((f) => f.reactions ?? []).map((r) => new Reactor(r.name, k.events, k.readStore, jobs, r.jobsFrom)));
    const start = async () => {
      for (const r of reactors) await r.start();
      // Jobs given up on Kafka, for admins (System page): read from the dead-letter topic into the read store.
      if (jobs.kind === 'kafka') {
        deadLetters = (jobs as KafkaJobQueue).deadLetterProjector(k.readStore);
        deadLetters.start().catch((error: unknown) => console.error('failed-jobs read model did not start:', error instanceof Error ? error.message : error));
      }
    };
    if (k.lease && !k.lease.holding) k.lease.onActive(start);
    else await start();
  }
  // A projector that lost the lease stops its reactors with its projections.
  k.lease?.onLost(() => {
    for (const r of reactors) void r.stop();
    void deadLetters?.stop();
  });
  return {
    async stop() {
      for (const r of reactors) await r.stop();
      await k.projector?.stopReactors();
      await deadLetters?.stop();
    },
  };
}
