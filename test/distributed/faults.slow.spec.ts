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
import Database from 'better-sqlite3';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestStream } from '@paperlink/domain';
import { SqliteEventStore } from '../../infra/src/eventstore/sqlite';
import { BANK_CSV, imageOf } from '../support/labelled-reader';
import { csvForm, FaultClient, pendingOf, receiptForm } from './fault-clients';
import { installServers, startKafka, type ServerHandle } from '../../scripts/distributed/servers';
import { compareWithRebuild } from './rebuild-compare';
import { skipReason, startTopology, type Topology } from './topology';

const skip = skipReason();
const STATEMENTS = ['chase.csv', 'capitalone.csv', 'spec.csv'];
/** Each matches a line of every statement above (the files are one account's lines in three banks' formats). */
const RECEIPTS = ['X00016469619', 'X00016469623', 'X51005306399', 'X51005433541', 'X51005442361'];
const COMPANIES = 5;
const TAKEOVER_LIMIT_MS = 15_000;
/** How long a company's clients wait for a match to confirm (the receipts are read by real OCR, one worker left). */
const CONFIRM_WITHIN_MS = 240_000;

let kafka: ServerHandle;
let topology: Topology;
let kafkaDir: string;
const clients: FaultClient[] = [];
const expectedRows = new Map<string, number>();
/** Uploaded receipts with the client that uploaded them. */
const receipts: Array<{ id: string; client: FaultClient }> = [];
/** Companies (by number) where a client confirmed a match, or found its partner had. */
const confirmed = new Set<number>();
let monitor: FaultClient;
let takeoverMs = Number.POSITIVE_INFINITY;
/** Receipts completed or failed so far (traceReceipts). */
let receiptsRead = 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const statementOf = (company: number) => STATEMENTS[company % STATEMENTS.length]!;
const started = Date.now();
const log = (m: string) => console.log(`[faults +${((Date.now() - started) / 1000).toFixed(1)} s ${new Date().toISOString().slice(11, 23)}] ${m}`);
const slowCall = (m: string) => log(`slow: ${m}`);

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
async function learnRows(file: string): Promise<void> {
  const probe = new FaultClient(topology.url, slowCall);
  await register(probe, `probe-${file.split('.')[0]}`);
  const res = await probe.write('POST', '/transactions/import', csvForm(readFileSync(join(BANK_CSV, file)), file));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expectedRows.set(file, Number(res.body.imported));
}

/** Two clients of one company: the second is invited into the first's company as an admin. */
async function companyPair(c: number): Promise<[FaultClient, FaultClient]> {
  const [a, b] = [new FaultClient(topology.url, slowCall), new FaultClient(topology.url, slowCall)];
  const { companyId } = await register(a, `a${c}`);
  const { email } = await register(b, `b${c}`);
  expect((await a.write('POST', '/companies/current/invite', { email, role: 'admin' })).status).toBe(201);
  b.headers = { ...b.headers, 'x-company-id': companyId };
  return [a, b];
}

/**
 * One client's work: its company's statement (its partner imports the same file at once), a
 * receipt (its partner another), then the first match it is offered confirmed, unless its
 * partner decided one first.
 */
async function work(client: FaultClient, index: number): Promise<void> {
  const company = Math.floor(index / 2);
  const file = statementOf(company);
  const imported = await client.write('POST', '/transactions/import', csvForm(readFileSync(join(BANK_CSV, file)), file));
  expect(imported.status, JSON.stringify(imported.body)).toBe(200);
  const id = RECEIPTS[index % RECEIPTS.length]!;
  const up = await client.write('POST', '/receipts/upload', receiptForm(imageOf(id), `${index}-${id}.jpg`));
  expect(up.status, JSON.stringify(up.body)).toBe(201);
  receipts.push({ id: up.body.receipt.id, client });
  const end = Date.now() + CONFIRM_WITHIN_MS;
  while (Date.now() < end && !confirmed.has(company)) {
    const pending = pendingOf((await client.read('/matches/pending')).body);
    if (pending.length > 0) {
      const answer = await client.write('PUT', `/matches/${pending[0]!.id}/confirm`);
      // 404/409: the partner decided that match first.
      if ([200, 404, 409].includes(answer.status)) {
        confirmed.add(company);
        return log(`client ${index} confirmed a match (${answer.status})`);
      }
    }
    await sleep(1000);
  }
}

/** Each receipt's processing status once every one is completed or failed, or the deadline passed. */
async function finished(list: Array<{ id: string; client: FaultClient }>, ms: number): Promise<string[]> {
  const end = Date.now() + ms;
  for (;;) {
    const statuses = await Promise.all(list.map(async ({ id, client }) => String((await client.read(`/receipts/${id}`)).body.receipt?.processing_status)));
    if (statuses.every((s) => s === 'completed' || s === 'failed') || Date.now() > end) return statuses;
    await sleep(1000);
  }
}

/** Until `done`: each time more receipts have been read, how many (OCR is the test's longest part). */
async function traceReceipts(done: () => boolean): Promise<void> {
  while (!done()) {
    const statuses = await finished(receipts, 0);
    const read = statuses.filter((s) => s === 'completed' || s === 'failed').length;
    if (read !== receiptsRead) log(`receipts read: ${read} of ${receipts.length}`);
    receiptsRead = read;
    await sleep(2000);
  }
}

/**
 * From the active projector's death until a write acknowledged after it is read back as current
 * (the standby took the lease over, started its projections and caught up with the log up to that
 * write): how long the read side was gone. Each read waits up to 5 s for the write and answers as
 * soon as the read models hold it.
 */
async function measureTakeover(monitor: FaultClient, killedAt: number): Promise<number> {
  const since = () => `${((Date.now() - killedAt) / 1000).toFixed(1)} s`;
  const within = () => Date.now() - killedAt < 90_000;
  for (let n = 0; within(); n++) {
    const made = await monitor.write('POST', '/masterdata/categories', { name: `Takeover ${n}` }, 10_000);
    log(`takeover probe ${n}: write answered ${made.status} at ${since()} after the kill`);
    if (made.status !== 201) {
      await sleep(250);
      continue;
    }
    while (within()) {
      const read = await monitor.call('GET', '/masterdata/categories');
      if (read.headers.get('x-read-side') === 'current') return Date.now() - killedAt;
      log(`takeover probe ${n}: read side ${read.headers.get('x-read-side')} (${read.status}) at ${since()}`);
    }
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * Where the read side is, read from the servers (not through the product): the log's head, the
 * lowest projection checkpoint, the reactors' checkpoints.
 */
async function watchReadSide(): Promise<{ read(): Promise<{ head: number; projections: number; line: string }>; close(): Promise<void> }> {
  const log0 = new Database(join(topology.env.DATA_DIR!, 'events.sqlite'), { readonly: true, fileMustExist: true });
  const client = await MongoClient.connect(topology.env.MONGO_URL!);
  return {
    async read() {
      const head = (log0.prepare('SELECT MAX(position) AS p FROM events').get() as { p: number }).p;
      const cps = await client.db(topology.env.MONGO_DB!).collection<{ _id: string; position: number }>('_checkpoints').find({}).toArray();
      const projections = Math.min(...cps.filter((c) => !c._id.includes(':')).map((c) => c.position));
      return { head, projections, line: `head ${head}, projections at ${projections}, reactors at ${cps.filter((c) => c._id.startsWith('reactor:')).map((c) => c.position).join('/')}` };
    },
    async close() {
      await client.close();
      log0.close();
    },
  };
}

/** Until `done`: once a second, how far the projections are behind the log, so a slow takeover says where its time went. */
async function traceReadSide(done: () => boolean): Promise<void> {
  const side = await watchReadSide();
  try {
    let last = '';
    while (!done()) {
      const { line } = await side.read();
      if (line !== last) log(`read side: ${line}`);
      last = line;
      await sleep(1000);
    }
  } finally {
    await side.close();
  }
}

/**
 * Stops every process but the projector, then the projector once it has projected the whole log:
 * the read models it leaves are then the log's, to the last event (a job a worker ran at the end
 * appended events after the clients were done).
 */
async function stopWhenProjected(): Promise<void> {
  await Promise.all(topology.processes.filter((p) => p.role !== 'projector').map((p) => p.server.stop()));
  const side = await watchReadSide();
  try {
    let at = await side.read();
    for (const end = Date.now() + 60_000; at.projections < at.head && Date.now() < end; at = await side.read()) await sleep(500);
    log(`read side at the end: ${at.line}`);
    expect(at.projections, 'the projector reached the head of the log').toBe(at.head);
  } finally {
    await side.close();
  }
  await topology.stopProcesses();
}

/**
 * The faults, one at a time while the clients work: the active projector two seconds into the
 * imports (in the middle of a batch), timed until the standby's read models are current again;
 * then, once the workers are reading receipts, one worker (jobs in hand) and the broker, started
 * again three seconds later (Kafka jobs in flight and queued).
 */
async function faults(monitor: FaultClient): Promise<void> {
  await sleep(2000);
  const active = topology.processes.find((p) => p.role === 'projector')!.server;
  await active.stop('SIGKILL');
  log('active projector killed');
  let measured = false;
  const traced = traceReadSide(() => measured);
  takeoverMs = await measureTakeover(monitor, Date.now());
  measured = true;
  await traced;
  log(`the standby took over in ${takeoverMs} ms`);
  for (const end = Date.now() + 120_000; receiptsRead === 0 && Date.now() < end;) await sleep(500);
  await topology.of('worker')[0]!.stop('SIGKILL');
  log(`a worker killed (${receiptsRead} receipts read)`);
  await sleep(3000);
  await kafka.kill('SIGKILL');
  log('Kafka killed');
  await sleep(3000);
  await kafka.restart();
  log('Kafka started again');
}

describe.skipIf(skip !== undefined)(`faults on the distributed profile lose nothing${skip ? ` (skipped: ${skip})` : ''}`, () => {
  beforeAll(async () => {
    kafkaDir = mkdtempSync(join(tmpdir(), 'paperlink-fault-kafka-'));
    kafka = await startKafka(process.env.PAPERLINK_SERVERS_CACHE ?? installServers(), kafkaDir);
    log('Kafka started');
    // Two OCR threads a worker: once one worker is killed, the other still keeps both cores busy.
    topology = await startTopology(['projector', 'projector', 'command', 'command', 'query', 'worker', 'worker'], { KAFKA_BROKERS: kafka.address, OCR_WORKERS: '2' });
    log('processes started');
    const [, pairs] = await Promise.all([Promise.all(STATEMENTS.map(learnRows)), Promise.all(Array.from({ length: COMPANIES }, (_, c) => companyPair(c)))]);
    clients.push(...pairs.flat());
    // The takeover is timed by a client of its own: its position moves only with its probes.
    monitor = new FaultClient(topology.url, slowCall);
    await register(monitor, 'monitor');
    log('companies registered');
  }, 300_000);
  afterAll(async () => {
    await topology?.stop();
    await kafka?.kill('SIGTERM');
    if (kafkaDir) rmSync(kafkaDir, { recursive: true, force: true });
  });

  it('loses no acknowledged write, imports no row twice, finishes every receipt and rebuilds to the same read models', async () => {
    let working = true;
    const traced = traceReceipts(() => !working);
    await Promise.all([faults(monitor), ...clients.map((c, i) => work(c, i))]).finally(() => (working = false));
    await traced;
    log(`clients done (${clients.reduce((n, c) => n + c.retries, 0)} retries)`);
    expect(takeoverMs, topology.output()).toBeLessThanOrEqual(TAKEOVER_LIMIT_MS);
    const statuses = await finished(receipts, 120_000);
    log(`receipts: ${statuses.join(' ')}`);
    expect(statuses.filter((s) => !['completed', 'failed'].includes(s)), statuses.join(' ')).toEqual([]);
    expect([...confirmed].sort(), 'companies where a match was confirmed').toEqual(Array.from({ length: COMPANIES }, (_, c) => c));
    for (let c = 0; c < COMPANIES; c++) {
      const list = await clients[c * 2]!.read('/transactions?limit=1');
      expect(list.body.pagination.total, `company ${c} (${statementOf(c)})`).toBe(expectedRows.get(statementOf(c)));
    }

    log('rows counted; stopping the processes');
    await stopWhenProjected();
    const events = new SqliteEventStore(join(topology.env.DATA_DIR!, 'events.sqlite'));
    try {
      const acknowledged = [...clients, monitor].flatMap((c) => c.acknowledged);
      expect(acknowledged.length).toBeGreaterThan(COMPANIES * 4);
      const missing: string[] = [];
      for (const id of acknowledged) {
        const record = await events.readStream(requestStream(id));
        if (!record.some((e) => e.type === 'RequestCompleted')) missing.push(id);
      }
      expect(missing).toEqual([]);
      log(`all ${acknowledged.length} acknowledged writes are in the log; rebuilding`);
    } finally {
      await events.close();
    }

    const comparison = await compareWithRebuild(topology.env);
    try {
      // The probe companies' rows and every company's, once each.
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      const rows = sum([...expectedRows.values()]) + sum(Array.from({ length: COMPANIES }, (_, c) => expectedRows.get(statementOf(c))!));
      expect(comparison.sizes.get('transactions'), 'transactions rebuilt').toBe(rows);
      expect(comparison.sizes.get('receipts'), 'receipts rebuilt').toBe(receipts.length);
      expect(await comparison.differences()).toEqual([]);
      log(`the read models equal a rebuild (${[...comparison.sizes.values()].reduce((a, b) => a + b, 0)} documents in ${comparison.sizes.size} read models)`);
      // The comparison sees a single field changed behind the projectors' back.
      const id = await comparison.tamper('transactions');
      expect((await comparison.differences()).join('\n')).toContain(id);
    } finally {
      await comparison.close();
    }
  }, 900_000);
});
