import cliProgress from 'cli-progress';
import { allProjections, GenerationalReadStore, rebuildInBulk } from '@paperlink/projections';
import { createAdapters } from '../adapters';
import { loadConfig } from '../config';
import { dataDir, lockDataDir } from '../data-dir';

/**
 * `make rebuild`: drops every read model and replays the whole log from position zero, offline
 * (it holds the data folder's lock). Each projection is rebuilt in its live generation (see
 * docs/decisions/0015-blue-green-rebuilds.md); the server rebuilds a new version beside the live
 * one without stopping, with the same figures on its System page (GET /api/system/rebuilds).
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
    // In bulk (ADR 0028): documents held in memory between large flushes, indexes built at the end.
    const result = await rebuildInBulk(events, readStore, allProjections(), {
      onProgress: (p) => {
        const seconds = (performance.now() - started) / 1000;
        const eps = p.processed / Math.max(seconds, 0.001);
        bar.update(p.position, { eps: Math.round(eps), left: `${Math.ceil(Math.max(0, p.total - p.position) / Math.max(eps, 1))} s` });
      },
    });
    bar.update(Math.max(head, 1));
    bar.stop();
    const eps = Math.round(result.events / Math.max(result.ms / 1000, 0.001));
    const part = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const cpu = process.cpuUsage(cpuAtStart);
    console.log(`Rebuilt ${result.events} events in ${(result.ms / 1000).toFixed(2)} s: ${eps} events/s; CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s`);
    console.log(`  reading the log ${part(result.parts.read)}, projections ${part(result.parts.project)}, writes ${part(result.parts.write)} (${result.flushes} flushes), indexes and statistics ${part(result.parts.finish)}`);
    await readStore.close();
    await events.close();
  } finally {
    unlock();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
