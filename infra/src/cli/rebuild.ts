import cliProgress from 'cli-progress';
import { allProjections, GenerationalReadStore, rebuildInBulk, type BulkRebuildResult, type RebuildProgress } from '@paperlink/projections';
import { createAdapters } from '../adapters';
import { loadConfig } from '../config';
import { dataDir, lockDataDir } from '../data-dir';
import { SqliteEventStore } from '../eventstore/sqlite';
import { SqliteReadStore } from '../readstore/sqlite';
import { rebuildFlushDocs, rebuildGroups, rebuildInThreads, rebuildThreads } from './rebuild-threads';

/**
 * `make rebuild`: drops every read model and replays the whole log from position zero, offline
 * (it holds the data folder's lock). Each projection is rebuilt in its live generation (see
 * docs/decisions/0015-blue-green-rebuilds.md); the server rebuilds a new version beside the live
 * one without stopping, with the same figures on its System page (GET /api/system/rebuilds).
 * With the embedded SQLite stores the projections are rebuilt in groups on as many threads as
 * there are cores, up to the groups there are (REBUILD_THREADS=1: one thread; rebuild-threads.ts).
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const dir = dataDir(config.DATA_DIR);
  const unlock = lockDataDir(dir, 'rebuild');
  try {
    const adapters = await createAdapters(config, dir);
    const events = adapters.events;
    const readStore = await GenerationalReadStore.open(adapters.readStore, allProjections());
    const head = await events.headPosition();
    console.log(`Rebuilding ${allProjections().length} projections from ${head} events in ${events.kind} into ${readStore.kind}`);
    const bar = new cliProgress.SingleBar(
      { format: ' {bar} {percentage}% | {value}/{total} positions | {eps} events/s | {left} left', hideCursor: true, noTTYOutput: !process.stdout.isTTY, notTTYSchedule: 2000 },
      cliProgress.Presets.shades_classic,
    );
    bar.start(Math.max(head, 1), 0, { eps: 0, left: '?' });
    const started = performance.now();
    const cpuAtStart = process.cpuUsage();
    const onProgress = (p: RebuildProgress) => {
      const seconds = (performance.now() - started) / 1000;
      const eps = p.processed / Math.max(seconds, 0.001);
      bar.update(p.position, { eps: Math.round(eps), left: `${Math.ceil(Math.max(0, p.total - p.position) / Math.max(eps, 1))} s` });
    };
    const part = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const parts = (r: BulkRebuildResult) =>
      `reading the log ${part(r.parts.read)}, projections ${part(r.parts.project)}, writes ${part(r.parts.write)} (${r.flushes} flushes), indexes and statistics ${part(r.parts.finish)}`;
    const threads = rebuildThreads();
    const flushDocs = rebuildFlushDocs();
    const groups = rebuildGroups(threads);
    const lines: string[] = [];
    let rebuilt: { events: number; ms: number };
    const inner = adapters.readStore;
    const threaded = groups.length > 1 && events instanceof SqliteEventStore && inner instanceof SqliteReadStore;
    if (threaded) {
      // Each group opens its own connections (rebuild-threads.ts); these are closed first.
      const files = { eventsFile: events.file, readModelsFile: inner.file };
      await readStore.close();
      await events.close();
      const result = await rebuildInThreads(files, groups, { onProgress, flushDocs });
      rebuilt = result;
      for (const g of result.groups) lines.push(`  ${g.projections.length === 1 ? g.projections[0] : `${g.projections.length} projections`}: ${parts(g.result)}`);
    } else {
      // In bulk (ADR 0028): documents held in memory between large flushes, indexes built at the end.
      const result = await rebuildInBulk(events, readStore, allProjections(), { onProgress, flushDocs });
      rebuilt = result;
      lines.push(`  ${parts(result)}`);
      await readStore.close();
      await events.close();
    }
    bar.update(Math.max(head, 1));
    bar.stop();
    const eps = Math.round(rebuilt.events / Math.max(rebuilt.ms / 1000, 0.001));
    const cpu = process.cpuUsage(cpuAtStart);
    console.log(`Rebuilt ${rebuilt.events} events in ${(rebuilt.ms / 1000).toFixed(2)} s on ${threaded ? `${groups.length} threads` : 'one thread'}: ${eps} events/s; CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s`);
    for (const line of lines) console.log(line);
  } finally {
    unlock();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
