import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import cliProgress from 'cli-progress';
import { allProjections, ProjectionRunner } from '@paperlink/projections';
import { createAdapters } from '../adapters';
import { loadConfig } from '../config';
import { dataDir, lockDataDir } from '../data-dir';

/**
 * `make replay TO=<date> OUT=<dir>`: the events recorded up to a moment,
 * copied from DATA_DIR's log into a new data folder, and every read model built there, for an
 * analyst to study the past (e.g. `make start DATA_DIR=<dir>`). The live folder is only read
 * (SQLite's VACUUM INTO from a read-only connection, safe while the server runs); OUT must be a
 * new or empty folder. TO is an ISO date (the end of that day, UTC) or date-time. The copy is a
 * prefix of the log: it ends before the first event decided after TO, so the hash chain of the
 * copy stays intact. Receipt files and the signing secret are not copied.
 */
function cutoffOf(to: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(to)) return `${to}T23:59:59.999Z`;
  const at = new Date(to);
  if (Number.isNaN(at.getTime())) throw new Error(`TO=${to} is not a date (YYYY-MM-DD) or an ISO date-time`);
  return at.toISOString();
}

async function main(): Promise<void> {
  const config = loadConfig();
  const to = process.env.TO ?? '';
  const outArg = process.env.OUT ?? '';
  if (!to || !outArg) throw new Error('usage: make replay TO=<YYYY-MM-DD or ISO date-time> OUT=<new folder>');
  if (config.EVENTSTORE_URL || config.MONGO_URL) throw new Error('make replay copies the embedded event log; unset EVENTSTORE_URL and MONGO_URL');
  const cutoff = cutoffOf(to);
  const live = dataDir(config.DATA_DIR);
  const outRoot = resolve(outArg);
  if (outRoot === live.root) throw new Error('OUT must not be the live data folder');
  if (existsSync(outRoot) && readdirSync(outRoot).length > 0) throw new Error(`OUT=${outArg} is not empty: replay writes into a new folder only`);
  if (!existsSync(live.eventsFile)) throw new Error(`no event log in ${live.root}`);
  mkdirSync(outRoot, { recursive: true });
  const out = dataDir(outRoot);
  const unlock = lockDataDir(out, 'replay');
  try {
    const source = new Database(live.eventsFile, { readonly: true, fileMustExist: true });
    try {
      source.prepare('VACUUM INTO ?').run(out.eventsFile);
    } finally {
      source.close();
    }
    // The first event decided after the cutoff: a commit's metadata is on its first event.
    const copy = new Database(out.eventsFile);
    try {
      const rows = copy.prepare<[], { position: number; metadata: string | null; commit_position: number | null }>('SELECT position, metadata, commit_position FROM events ORDER BY position').iterate();
      let last = 0;
      for (const row of rows) {
        if (row.metadata !== null) {
          const occurredAt = (JSON.parse(row.metadata) as { occurredAt?: string }).occurredAt;
          if (occurredAt !== undefined && new Date(occurredAt).toISOString() > cutoff) break;
        }
        last = row.position;
      }
      const dropped = copy.transaction(() => {
        const n = copy.prepare('DELETE FROM events WHERE position > ?').run(last).changes;
        copy.exec('DELETE FROM streams WHERE stream_key NOT IN (SELECT DISTINCT stream_key FROM events)');
        copy.exec('UPDATE streams SET revision = (SELECT MAX(revision) FROM events WHERE events.stream_key = streams.stream_key)');
        return n;
      })();
      copy.exec('VACUUM');
      console.log(`Copied the log up to ${cutoff}: ${last} events (${dropped} later ones left out) into ${out.root}`);
    } finally {
      copy.close();
    }

    const { events, readStore } = await createAdapters({ ...config, DATA_DIR: out.root }, out);
    const head = await events.headPosition();
    const bar = new cliProgress.SingleBar(
      { format: ' {bar} {percentage}% | {value}/{total} positions | {eps} events/s | {left} left', hideCursor: true, noTTYOutput: !process.stdout.isTTY, notTTYSchedule: 2000 },
      cliProgress.Presets.shades_classic,
    );
    bar.start(Math.max(head, 1), 0, { eps: 0, left: '?' });
    const started = performance.now();
    const result = await new ProjectionRunner(events, readStore, allProjections()).rebuild((p) => {
      const eps = p.processed / Math.max((performance.now() - started) / 1000, 0.001);
      bar.update(p.position, { eps: Math.round(eps), left: `${Math.ceil(Math.max(0, p.total - p.position) / Math.max(eps, 1))} s` });
    });
    bar.update(Math.max(head, 1));
    bar.stop();
    console.log(`Built the read models of ${result.events} events in ${(result.ms / 1000).toFixed(2)} s (${Math.round(result.events / Math.max(result.ms / 1000, 0.001))} events/s); study them with: make start DATA_DIR=${out.root}`);
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
