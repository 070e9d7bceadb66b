/**
 * The distributed profile's benches in one run on one Kafka broker and one FerretDB, started here
 * (scripts/distributed) unless KAFKA_BROKERS and MONGO_URL name servers: the MongoDB read store at
 * scale (bench/mongo-lists.ts: projector catch-up beside a raw insertMany, list p95) and OCR
 * throughput with one job-worker process and with two (bench/distributed-ocr.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installServers, startFerretDb, startKafka, type ServerHandle } from '../scripts/distributed/servers';

async function main(): Promise<number> {
  const started: ServerHandle[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-bench-servers-'));
  try {
    if (!process.env.KAFKA_BROKERS || !process.env.MONGO_URL) {
      const cache = installServers();
      const kafka = await startKafka(cache, join(dir, 'kafka'));
      const ferret = await startFerretDb(cache, join(dir, 'ferretdb'));
      started.push(kafka, ferret);
      process.env.KAFKA_BROKERS = kafka.address;
      process.env.MONGO_URL = ferret.address;
    }
    console.log(`  Kafka at ${process.env.KAFKA_BROKERS}, FerretDB at ${process.env.MONGO_URL}`);
    let failed = 0;
    for (const file of ['mongo-lists.ts', 'distributed-ocr.ts']) {
      console.log(`\n  -- ${file}`);
      const r = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, file)], { stdio: 'inherit', env: process.env });
      if (r.status !== 0) failed++;
    }
    return failed;
  } finally {
    for (const s of started) await s.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then((failed) => process.exit(failed > 0 ? 1 : 0), (error: unknown) => {
  console.error(error);
  process.exit(1);
});
