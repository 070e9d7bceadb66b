/**
 * Faults on the distributed profile lose nothing. Two command processes, a query process, an
 * active and a standby projector and two job workers, on FerretDB and a Kafka broker of this
 * test's own; ten clients (two per company, so each statement is imported twice at once) import
 * statements, upload receipts and confirm matches while the active projector, one worker and the
 * broker are killed with SIGKILL (the broker started again). Then: every acknowledged write is in
 * the log, every receipt ended completed or failed, no statement row was imported twice, the read
 * models equal a rebuild from the log, and the standby took over within 15 s.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestStream } from '@paperlink/domain';
import { allProjections, GenerationalReadStore, rebuildInBulk } from '@paperlink/projections';
import { SqliteEventStore } from '../../infra/src/eventstore/sqlite';
import { EmbeddedReadStore } from '../../infra/src/readstore/embedded';
import { MongoReadStore } from '../../infra/src/readstore/mongo';
import { BANK_CSV, imageOf } from '../support/labelled-reader';
import { csvForm, FaultClient, pendingOf, receiptForm } from './fault-clients';
import { installServers, startKafka, type ServerHandle } from '../../scripts/distributed/servers';
import { skipReason, startTopology, type Topology } from './topology';

const skip = skipReason();
const STATEMENTS = ['chase.csv', 'capitalone.csv', 'spec.csv'];
const RECEIPTS = ['X00016469619', 'X00016469623', 'X51005306399', 'X51005433541', 'X51005442361'];
const COMPANIES = 5;
const TAKEOVER_LIMIT_MS = 15_000;

let kafka: ServerHandle;
let topology: Topology;
let kafkaDir: string;
const clients: FaultClient[] = [];
const companies: string[] = [];
const expectedRows = new Map<string, number>();
/** Uploaded receipts with the client that uploaded them. */
const receipts: Array<{ id: string; client: FaultClient }> = [];
let takeoverMs = Number.POSITIVE_INFINITY;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const statementOf = (company: number) => STATEMENTS[company % STATEMENTS.length]!;

async function register(client: FaultClient, name: string): Promise<{ email: string; companyId: string }> {
  const email = `fault-${name}-${Date.now()}@example.com`;
  const res = await client.write('POST', '/auth/register', { firstName: 'Fay', lastName: name, email, password: 'Passw0rdOK', companyName: `Fault ${name}` });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  client.headers = { authorization: `Bearer ${res.body.accessToken}`, 'x-company-id': res.body.company.id };
  return { email, companyId: res.body.company.id };
}

/**
 * Rows each statement file brings, learnt by importing it once into a company of its own (the
 * files are one account's lines in three banks' formats: in one company the later ones are duplicates).
 */
async function learnRows(): Promise<void> {
  for (const file of STATEMENTS) {
    const probe = new FaultClient(topology.url);
    await register(probe, `probe-${file.split('.')[0]}`);
    const res = await probe.write('POST', '/transactions/import', csvForm(readFileSync(join(BANK_CSV, file)), file));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expectedRows.set(file, Number(res.body.imported));
  }
}

/** One client's work: its company's statement (its partner imports the same file at once), two receipts, a confirmation. */
async function work(client: FaultClient, index: number): Promise<void> {
  const company = Math.floor(index / 2);
  const file = statementOf(company);
  log(`client ${index} starts`);
  const imported = await client.write('POST', '/transactions/import', csvForm(readFileSync(join(BANK_CSV, file)), file));
  expect(imported.status, JSON.stringify(imported.body)).toBe(200);
  for (const id of [RECEIPTS[index % RECEIPTS.length]!, RECEIPTS[(index + 2) % RECEIPTS.length]!]) {
    const up = await client.write('POST', '/receipts/upload', receiptForm(imageOf(id), `${index}-${id}.jpg`));
    // The same image twice in a company is refused as a duplicate (409): not an upload.
    if (up.status === 201) receipts.push({ id: up.body.receipt.id, client });
    else expect(up.status, JSON.stringify(up.body)).toBe(409);
  }
  const end = Date.now() + 120_000;
  while (Date.now() < end) {
    const pending = pendingOf((await client.read('/matches/pending')).body);
    if (pending.length > 0) {
      const confirmed = await client.write('PUT', `/matches/${pending[0]!.id}/confirm`);
      // The partner may have decided that match first.
      if ([200, 404, 409].includes(confirmed.status)) return log(`client ${index} confirmed (${confirmed.status})`);
    }
    await sleep(1000);
  }
}

const started = Date.now();
const log = (m: string) => console.log(`[faults +${((Date.now() - started) / 1000).toFixed(1)} s] ${m}`);

/** Each receipt's processing status once every one is completed or failed, or the deadline passed. */
async function finished(list: Array<{ id: string; client: FaultClient }>, ms: number): Promise<string[]> {
  const end = Date.now() + ms;
  for (;;) {
    const statuses = await Promise.all(list.map(async ({ id, client }) => String((await client.read(`/receipts/${id}`)).body.receipt?.processing_status)));
    if (statuses.every((s) => s === 'completed' || s === 'failed') || Date.now() > end) return statuses;
    await sleep(1000);
  }
}

/** Until a new write is projected and read back as current: how long the read side was gone. */
async function measureTakeover(monitor: FaultClient, killedAt: number): Promise<number> {
  for (let n = 0; Date.now() - killedAt < 90_000; n++) {
    const made = await monitor.write('POST', '/masterdata/categories', { name: `Takeover ${n}` }, 10_000);
    if (made.status === 201) {
      const read = await monitor.call('GET', '/masterdata/categories');
      if (read.headers.get('x-read-side') === 'current') return Date.now() - killedAt;
    }
    await sleep(250);
  }
  return Number.POSITIVE_INFINITY;
}

async function faults(monitor: FaultClient): Promise<void> {
  await sleep(2000);
  const active = topology.processes.find((p) => p.role === 'projector')!.server;
  await active.stop('SIGKILL');
  log('active projector killed');
  const killedAt = Date.now();
  const takeover = measureTakeover(monitor, killedAt);
  await sleep(4000);
  await topology.of('worker')[0]!.stop('SIGKILL');
  log('a worker killed');
  await sleep(4000);
  await kafka.kill('SIGKILL');
  log('Kafka killed');
  await sleep(3000);
  await kafka.restart();
  log('Kafka started again');
  takeoverMs = await takeover;
}

describe.skipIf(skip !== undefined)(`faults on the distributed profile lose nothing${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(async () => {
    kafkaDir = mkdtempSync(join(tmpdir(), 'paperlink-fault-kafka-'));
    kafka = await startKafka(process.env.PAPERLINK_SERVERS_CACHE ?? installServers(), kafkaDir);
    topology = await startTopology(['projector', 'projector', 'command', 'command', 'query', 'worker', 'worker'], { KAFKA_BROKERS: kafka.address });
    await learnRows();
    for (let c = 0; c < COMPANIES; c++) {
      const [a, b] = [new FaultClient(topology.url), new FaultClient(topology.url)];
      const { companyId } = await register(a, `a${c}`);
      const { email } = await register(b, `b${c}`);
      expect((await a.write('POST', '/companies/current/invite', { email, role: 'admin' })).status).toBe(201);
      b.headers = { ...b.headers, 'x-company-id': companyId };
      clients.push(a, b);
      companies.push(companyId);
    }
  }, 300_000);
  afterAll(async () => {
    await topology?.stop();
    await kafka?.kill('SIGTERM');
    if (kafkaDir) rmSync(kafkaDir, { recursive: true, force: true });
  });

  it('loses no acknowledged write, imports no row twice, finishes every receipt and rebuilds to the same read models', async () => {
    const monitor = clients[0]!;
    await Promise.all([faults(monitor), ...clients.map((c, i) => work(c, i))]);
    log(`clients done (${clients.reduce((n, c) => n + c.retries, 0)} retries); the standby took over in ${takeoverMs} ms`);
    expect(takeoverMs, topology.output()).toBeLessThanOrEqual(TAKEOVER_LIMIT_MS);
    const statuses = await finished(receipts, 300_000);
    expect(statuses.filter((s) => !['completed', 'failed'].includes(s)), statuses.join(' ')).toEqual([]);
    log(`receipts: ${statuses.join(' ')}`);
    for (let c = 0; c < COMPANIES; c++) {
      const list = await clients[c * 2]!.read('/transactions?limit=1');
      expect(list.body.pagination.total, `company ${c} (${statementOf(c)})`).toBe(expectedRows.get(statementOf(c)));
    }

    log('rows counted; stopping the processes');
    await topology.stopProcesses();
    const events = new SqliteEventStore(join(topology.env.DATA_DIR!, 'events.sqlite'));
    try {
      const missing: string[] = [];
      for (const id of clients.flatMap((c) => c.acknowledged)) {
        const record = await events.readStream(requestStream(id));
        if (!record.some((e) => e.type === 'RequestCompleted')) missing.push(id);
      }
      expect(missing).toEqual([]);
    } finally {
      await events.close();
    }
    log('every acknowledged write is in the log; rebuilding');
    await expectRebuildEqual(topology.env);
  }, 900_000);
});

/**
 * Rebuilds every read model from the log (into the in-memory store, which the contract suites hold
 * to the same answers) and compares it with what the projectors left on the server, collection by
 * collection, document by document.
 */
async function expectRebuildEqual(env: Record<string, string>): Promise<void> {
  const projections = allProjections();
  const events = new SqliteEventStore(join(env.DATA_DIR!, 'events.sqlite'));
  const rebuilt = await GenerationalReadStore.open(new EmbeddedReadStore(), projections);
  const live = await GenerationalReadStore.open(await MongoReadStore.connect(env.MONGO_URL!, env.MONGO_DB!), projections);
  try {
    await rebuildInBulk(events, rebuilt, projections);
    const names = projections.flatMap((p) => Object.keys(p.collections));
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) {
      const [a, b] = await Promise.all([live, rebuilt].map((store) => store.collection(name).find({}, { sort: { _id: 1 } })));
      expect(a, `read model ${name}`).toEqual(b);
    }
  } finally {
    await live.close();
    await rebuilt.close();
    await events.close();
  }
}
