/**
 * OCR throughput on the distributed profile: receipts uploaded through a command process are read
 * by job-worker processes (PAPERLINK_ROLE=worker) that share Kafka's consumer group, with one
 * worker process and with two, in one run on the same Kafka broker and FerretDB. Prints receipts
 * per minute from the first upload to the last receipt finished, and the ratio of two to one.
 * Servers: KAFKA_BROKERS and MONGO_URL when set, else started here (scripts/distributed).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installServers, startFerretDb, startKafka, type ServerHandle } from '../scripts/distributed/servers';
import { Client, startTopology, type Role } from '../test/distributed/topology';
import { RECEIPTS_DEV, imageOf } from '../test/support/labelled-reader';
import { fmt, row } from './lib';

const RECEIPTS = Number(process.env.BENCH_OCR_RECEIPTS ?? 16);

async function servers(): Promise<{ stop: () => Promise<void> }> {
  if (process.env.KAFKA_BROKERS && process.env.MONGO_URL) return { stop: async () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-bench-servers-'));
  const cache = installServers();
  const started: ServerHandle[] = [await startKafka(cache, join(dir, 'kafka')), await startFerretDb(cache, join(dir, 'ferretdb'))];
  process.env.KAFKA_BROKERS = started[0]!.address;
  process.env.MONGO_URL = started[1]!.address;
  return {
    async stop() {
      for (const s of started) await s.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Seconds from the first upload until every receipt is completed or failed. */
async function throughput(workers: number, ids: string[]): Promise<{ seconds: number; completed: number }> {
  const roles: Role[] = ['projector', 'command', 'query', ...Array<Role>(workers).fill('worker')];
  const topology = await startTopology(roles, { OCR_WORKERS: '1' });
  try {
    const client = new Client(topology.url);
    const reg = await client.call('POST', '/auth/register', { firstName: 'Bea', lastName: 'Nch', email: `bench-${Date.now()}@example.com`, password: 'Passw0rdOK', companyName: 'Bench' });
    client.headers = { authorization: `Bearer ${reg.body.accessToken}`, 'x-company-id': reg.body.company.id };
    const started = performance.now();
    const uploaded: string[] = [];
    for (const id of ids) {
      const form = new FormData();
      form.append('receipt', new Blob([imageOf(id)], { type: 'image/jpeg' }), `${id}.jpg`);
      const up = await client.call('POST', '/receipts/upload', form);
      if (up.status !== 201) throw new Error(`upload ${id}: ${up.status} ${JSON.stringify(up.body)}`);
      uploaded.push(up.body.receipt.id);
    }
    for (;;) {
      const list = await Promise.all(uploaded.map(async (id) => (await client.call('GET', `/receipts/${id}`)).body.receipt?.processing_status as string));
      if (list.every((s) => s === 'completed' || s === 'failed')) {
        return { seconds: (performance.now() - started) / 1000, completed: list.filter((s) => s === 'completed').length };
      }
      if (performance.now() - started > 900_000) throw new Error(`not finished after 900 s: ${list.join(' ')}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await topology.stop();
  }
}

async function main(): Promise<void> {
  const ids = readdirSync(RECEIPTS_DEV).filter((f) => f.endsWith('.jpg')).map((f) => f.replace(/\.jpg$/, '')).sort().slice(0, RECEIPTS);
  const running = await servers();
  try {
    console.log(`  ${ids.length} receipts of receipts-dev uploaded through one command process; workers with OCR_WORKERS=1 each, on Kafka ${process.env.KAFKA_BROKERS} and FerretDB`);
    const one = await throughput(1, ids);
    row('one worker process: receipts per minute', fmt((one.completed * 60) / one.seconds, 1), `${fmt(one.seconds, 1)} s, ${one.completed}/${ids.length} completed`);
    const two = await throughput(2, ids);
    row('two worker processes: receipts per minute', fmt((two.completed * 60) / two.seconds, 1), `${fmt(two.seconds, 1)} s, ${two.completed}/${ids.length} completed`);
    row('two against one', `${fmt(one.seconds / two.seconds, 2)}x`, 'on this machine\'s cores, shared with the other processes');
  } finally {
    await running.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
