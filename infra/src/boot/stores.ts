/**
 * The storage half of the composition root: the data folder, the adapters, the event store as
 * decisions see it, the read models and the projections that write them (here, in the projector
 * thread, or in another process), the projector lease, and the start-up upkeep of the folder.
 */
import { join } from 'node:path';
import type { EventStore, ReadStore } from '@paperlink/domain';
import { allProjections, GenerationalReadStore, ProjectionRunner } from '@paperlink/projections';
import type { Config } from '../config';
import { createAdapters, type Adapters } from '../adapters';
import { LocalBlobStore, type SweepReport } from '../blobs/local';
import { sweepOrphanFiles } from '../blobs/sweep';
import { dataDir, lockDataDir, type DataDir } from '../data-dir';
import { upgradeRequestRecords } from '../eventstore/upgrade-request-records';
import { CompanyPositions } from '../eventstore/company-positions';
import { carryLegacyMatches, legacyMatchingCompanies } from '../eventstore/carry-legacy-matches';
import { hasKnownCounts, keepCountHints } from '../readstore/count-hints';
import { ProjectorThread } from '../projector/host';
import { projectorLease, type ProjectorLease } from '../projector/lease';
import type { PaperlinkOptions } from './options';

export interface Stores {
  dir: DataDir;
  adapters: Adapters;
  /** The event store as commands see it (each company's newest position kept). */
  events: EventStore;
  /** The read models, each projection's live generation (blue-green rebuilds). */
  readStore: ReadStore;
  runner: ProjectionRunner;
  lease?: ProjectorLease;
  /** The projector thread (PROJECTOR=thread, ADR 0008), when the projections run there. */
  projector?: ProjectorThread;
  /** This process writes the read models (roles all and projector). */
  writesReadModels: boolean;
  /** Reactors run here (where the projections run), and job handlers. */
  runsReactors: boolean;
  runsHandlers: boolean;
  /** The position each company's decisions wait to see projected (ADR 0023). */
  decisionPosition(companyId: string): Promise<number>;
  orphanSweep: Promise<SweepReport | null>;
  close(): Promise<void>;
}

/** Opens the folder's stores and starts the projections as this process's role says. */
export async function openStores(config: Config, options: PaperlinkOptions): Promise<Stores> {
  const dir = dataDir(config.DATA_DIR);
  // PAPERLINK_ROLE (ADR 0025): the process that writes the read models (all, projector) owns the
  // data folder; command and query processes share it (SQLite WAL) or only keep the signing key there.
  const role = config.PAPERLINK_ROLE;
  const writesReadModels = role === 'all' || role === 'projector';
  // With MONGO_URL the projector lease keeps one writer (ADR 0032), across machines, and a standby starts beside it.
  const unlock = options.noLock || !writesReadModels || config.MONGO_URL ? () => {} : lockDataDir(dir, role === 'all' ? 'server' : 'projector');
  try {
    // Request records of older versions held unkeyed digests of bodies (passwords): rewrite them first.
    if (!config.EVENTSTORE_URL && writesReadModels) upgradeRequestRecords(dir.eventsFile);
    // Companies whose matches still live in one old stream (before ADR 0021), carried below.
    const legacyMatching = config.EVENTSTORE_URL || !writesReadModels ? [] : legacyMatchingCompanies(dir.eventsFile);
    const adapters = await createAdapters(config, dir);
    // Known here only when this process appends every event (the embedded store, role all); else the head.
    const positions = await CompanyPositions.open(adapters.events, !config.EVENTSTORE_URL && role === 'all');
    const events = positions.wrap(options.wrapEvents ? options.wrapEvents(adapters.events) : adapters.events);
    // Matches move into the streams of their sides, once (ADR 0021), in the background: a
    // company's match decisions wait for its mark (command-api/src/matches/book.ts), the rest answers at once.
    if (config.EVENTSTORE_URL) console.warn('matching: old matching-<company> streams on EventStoreDB are not carried into side streams (ADR 0021)');
    const carryStop = { stopped: false };
    const matchingCarry = carryLegacyMatches(events, legacyMatching, carryStop).catch((error: unknown) => {
      console.error('matching: carrying old matches into side streams failed (the next start goes on):', error);
    });
    const projections = options.projections ?? allProjections();
    const readStore = await GenerationalReadStore.open(adapters.readStore, projections);
    const runner = new ProjectionRunner(events, readStore, projections);
    const { lease, projector } = await startProjections(config, options, { adapters, runner, writesReadModels });
    const runsReactors = !options.noJobs && writesReadModels;
    // Job handlers run where the projections run, except when Kafka carries the jobs to worker processes.
    const runsHandlers = !options.noJobs && (role === 'all' || role === 'worker' || (role === 'projector' && adapters.jobs.kind !== 'kafka'));
    let stopping = false;
    // Receipt files a crash left without a receipt are removed, once the read models hold every receipt.
    const caughtUp = async () => {
      const head = await events.headPosition();
      for (let i = 0; i < 120 && !stopping; i++) if (await runner.waitFor(head, 500)) return !stopping;
      return false;
    };
    const orphanSweep = adapters.blobs instanceof LocalBlobStore && runsReactors
      ? sweepOrphanFiles(adapters.blobs, readStore, caughtUp).catch((error: unknown) => {
        console.error('orphan file sweep failed:', error);
        return null;
      })
      : Promise.resolve(null);
    // Counts known before the last stop answer a big list's first total while it is recounted (ADR 0029, decision 24).
    const countHints = hasKnownCounts(adapters.readStore) ? keepCountHints(adapters.readStore, join(dir.root, 'count-hints.json'), { log: (m) => console.warn(m) }) : undefined;
    return {
      dir, adapters, events, readStore, runner, lease, projector, writesReadModels, runsReactors, runsHandlers, orphanSweep,
      decisionPosition: (companyId) => positions.of(companyId),
      async close() {
        stopping = true;
        carryStop.stopped = true;
        await matchingCarry;
        await orphanSweep;
        await adapters.blobs.close();
        await runner.stop();
        await lease?.close();
        await projector?.stop();
        countHints?.stop();
        await readStore.close();
        await events.close();
        unlock();
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}

interface ProjectionParts {
  adapters: Adapters;
  runner: ProjectionRunner;
  writesReadModels: boolean;
}

/** Starts the projections where this process's role and the lease say they run. */
async function startProjections(config: Config, options: PaperlinkOptions, { adapters, runner, writesReadModels }: ProjectionParts) {
  // MongoDB: one active projector (a lease every write checks, ADR 0032); other processes watch it for their health.
  const lease = await projectorLease(adapters.readStore, { compete: writesReadModels, failure: () => runner.failed });
  lease?.onLost(() => {
    // Its writes are refused from now on: it stops, and says so (health 503) until it is restarted as a standby.
    runner.reportFromElsewhere({ failure: new Error('another projector took the lease over: restart this process to stand by') });
    void runner.stop();
  });
  // PROJECTOR=thread (ADR 0008): the projectors run in a thread of their own (SQLite read store,
  // role all; not with a test's own projections or event-store wrapper), followed by this one.
  const ownProjections = !options.projections && !options.wrapEvents;
  const projector = config.PAPERLINK_ROLE === 'all' && ownProjections ? await ProjectorThread.startIfChosen(config.PROJECTOR, adapters, runner) : undefined;
  if (projector) {
    // The runner follows the projector thread's commits (started above).
  } else if (writesReadModels && lease && !lease.holding) {
    // A standby: the projections start once it takes the lease over.
    lease.onActive(() => runner.start().catch((error: unknown) => runner.reportFromElsewhere({ failure: error })));
  } else if (writesReadModels) {
    await runner.start();
  } else {
    // Command and query processes read what the projector process commits (ADR 0025).
    if (adapters.readStore.kind === 'embedded') throw new Error(`PAPERLINK_ROLE=${config.PAPERLINK_ROLE} shares the read models with a projector process: set MONGO_URL, or keep the read models in SQLite (not READ_STORE=memory)`);
    (adapters.readStore as { followOtherWriters?: () => void }).followOtherWriters?.();
    await runner.follow();
  }
  return { lease, projector };
}
