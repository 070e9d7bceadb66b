/**
 * Starts Kafka and FerretDB for the `distributed` test project (`make test-distributed`) unless
 * KAFKA_BROKERS and MONGO_URL already name servers. Under CI=true a server that cannot be
 * installed or started fails the run; elsewhere the suites that need it skip, by name.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installServers, startFerretDb, startKafka, type ServerHandle } from '../../scripts/distributed/servers';

export default async function setup(): Promise<() => Promise<void>> {
  const started: ServerHandle[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-servers-'));
  const teardown = async () => {
    for (const s of started) await s.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  if (process.env.KAFKA_BROKERS && process.env.MONGO_URL) return teardown;
  try {
    const cache = installServers();
    process.env.PAPERLINK_SERVERS_CACHE = cache;
    if (!process.env.KAFKA_BROKERS) {
      const kafka = await startKafka(cache, join(dir, 'kafka'));
      started.push(kafka);
      process.env.KAFKA_BROKERS = kafka.address;
    }
    if (!process.env.MONGO_URL) {
      const ferret = await startFerretDb(cache, join(dir, 'ferretdb'));
      started.push(ferret);
      process.env.MONGO_URL = ferret.address;
    }
    console.log(`distributed servers: Kafka at ${process.env.KAFKA_BROKERS}, FerretDB at ${process.env.MONGO_URL}`);
  } catch (error) {
    await teardown();
    if (process.env.CI === 'true') throw error;
    console.warn(`distributed servers could not start, so the suites that need them are skipped: ${error instanceof Error ? error.message : String(error)}`);
  }
  return teardown;
}
