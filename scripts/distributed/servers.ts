/**
 * The real servers of the distributed profile, on loopback ports of their own: an Apache Kafka
 * broker (KRaft, one node) and FerretDB (MongoDB's wire protocol over SQLite). Installed by
 * install.sh (beside this file) into a cache folder; started here for a test or bench run, each in
 * a folder of its own, and stopped (or killed and started again by the fault test).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(import.meta.dirname, '../..');

export const KAFKA_VERSION = '4.4.0';
export const FERRETDB_VERSION = 'v1.24.2';

export interface ServerHandle {
  readonly name: string;
  /** What the product is given: broker list or connection string. */
  readonly address: string;
  readonly pid: () => number | undefined;
  /** Kills the process (SIGKILL by default) and waits for it to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port and folder (after kill). */
  restart(): Promise<void>;
  /** The server's own log, for a failure message. */
  log(): string;
}

/** Installs (once, cached) both servers and returns the cache folder. Throws with the installer's output. */
export function installServers(): string {
  const r = spawnSync('bash', [join(REPO_ROOT, 'scripts/distributed/install.sh')], { encoding: 'utf8', timeout: 15 * 60_000 });
  if (r.status !== 0) throw new Error(`installing Kafka and FerretDB failed (${r.status ?? r.signal}):\n${r.stderr}`);
  return r.stdout.trim().split('\n').pop()!;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => res(port));
    });
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitFor(what: string, ready: () => Promise<boolean>, child: () => ChildProcess | undefined, log: () => string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!(await ready())) {
    const c = child();
    if (c && c.exitCode !== null) throw new Error(`${what} exited (${c.exitCode}) before it was ready:\n${log().slice(-4000)}`);
    if (Date.now() > until) throw new Error(`${what} was not ready in ${ms} ms:\n${log().slice(-4000)}`);
    await sleep(200);
  }
}

/** A server process that can be killed and started again with the same command. */
function managed(name: string, address: string, start: () => ChildProcess, ready: () => Promise<boolean>): ServerHandle & { start(): Promise<void> } {
  let child: ChildProcess | undefined;
  let output = '';
  const log = () => output;
  const run = async () => {
    output = '';
    child = start();
    child.stdout?.on('data', (d) => (output = (output + d).slice(-20_000)));
    child.stderr?.on('data', (d) => (output = (output + d).slice(-20_000)));
    await waitFor(name, ready, () => child, log, 120_000);
  };
  return {
    name,
    address,
    pid: () => child?.pid,
    start: run,
    restart: run,
    log,
    kill(signal: NodeJS.Signals = 'SIGKILL') {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
      return new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill(signal);
      });
    },
  };
}

/** A one-node KRaft broker in `dir` (formatted on first start). */
export async function startKafka(cache: string, dir: string): Promise<ServerHandle> {
  const [port, controller] = [await freePort(), await freePort()];
  const libs = join(cache, `kafka-${KAFKA_VERSION}`, 'libs', '*');
  mkdirSync(dir, { recursive: true });
  const props = join(dir, 'server.properties');
  writeFileSync(props, [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controller}`,
    `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controller}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
    'controller.listener.names=CONTROLLER',
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'inter.broker.listener.name=PLAINTEXT',
    `log.dirs=${join(dir, 'data')}`,
    'num.partitions=2',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=4',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'group.initial.rebalance.delay.ms=0',
    'auto.create.topics.enable=true',
  ].join('\n'));
  const java = (main: string, args: string[]) => ['-Xms128m', '-Xmx512m', `-Dkafka.logs.dir=${dir}`, `-Dlog4j2.configurationFile=${join(REPO_ROOT, 'scripts/distributed/log4j2.properties')}`, '-cp', libs, main, ...args];
  // A cluster id is 16 random bytes in URL-safe base64 without padding (what `kafka-storage random-uuid` prints).
  const format = spawnSync('java', java('kafka.tools.StorageTool', ['format', '-t', randomBytes(16).toString('base64url'), '-c', props, '--ignore-formatted']), { encoding: 'utf8', timeout: 60_000 });
  if (format.status !== 0) throw new Error(`formatting the Kafka storage failed:\n${format.stdout}${format.stderr}`);
  const server = managed(`Kafka ${KAFKA_VERSION}`, `127.0.0.1:${port}`, () => spawn('java', java('kafka.Kafka', [props]), { stdio: ['ignore', 'pipe', 'pipe'] }), () => kafkaAnswers(`127.0.0.1:${port}`));
  await server.start();
  return server;
}

/**
 * Whether the broker serves: it answers metadata, has elected a leader for a topic, and its
 * group coordinator answers (the offsets topic is made on the first ask). Its port opens earlier.
 */
async function kafkaAnswers(broker: string): Promise<boolean> {
  if (!(await portOpen(Number(broker.split(':')[1])))) return false;
  const { Kafka, logLevel } = await import('kafkajs');
  const admin = new Kafka({ clientId: 'paperlink-test-probe', brokers: [broker], logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
  try {
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'paperlink.probe' }], waitForLeaders: true });
    await admin.describeGroups(['paperlink-probe']);
    return true;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

/** FerretDB over SQLite files in `dir`. */
export async function startFerretDb(cache: string, dir: string): Promise<ServerHandle> {
  const port = await freePort();
  mkdirSync(join(dir, 'data'), { recursive: true });
  const bin = join(cache, `ferretdb-${FERRETDB_VERSION}`, 'ferretdb');
  const args = ['--handler=sqlite', `--sqlite-url=file:${join(dir, 'data')}/`, `--listen-addr=127.0.0.1:${port}`, `--state-dir=${dir}`, '--telemetry=disable', '--debug-addr=-', '--log-level=error'];
  const server = managed(`FerretDB ${FERRETDB_VERSION}`, `mongodb://127.0.0.1:${port}/`, () => spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] }), () => portOpen(port));
  await server.start();
  return server;
}
