/**
 * Paperlink as separate processes on the distributed profile's servers: the SQLite event store in
 * one shared folder, read models and receipt files on the MongoDB wire-protocol server, jobs on
 * Kafka. A small router in front sends reads (GET, HEAD) to the query processes and everything
 * else to the command processes in turn, as a reverse proxy in front of a deployment would.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, type ServerProcess } from '../support/process';

export type Role = 'projector' | 'command' | 'query' | 'worker';

export interface Topology {
  /** The router's base URL (`${url}/api/...`). */
  url: string;
  processes: Array<{ role: Role; server: ServerProcess }>;
  env: Record<string, string>;
  of(role: Role): ServerProcess[];
  /** Starts one more process of a role on the same servers and folder. */
  add(role: Role): Promise<ServerProcess>;
  /** Every process's output, for a failure message. */
  output(): string;
  /** Stops the router and every process, keeping the folder (to read its log afterwards). */
  stopProcesses(): Promise<void>;
  stop(): Promise<void>;
}

export function distributedServers(): { kafka: string; mongo: string } | undefined {
  const kafka = process.env.KAFKA_BROKERS;
  const mongo = process.env.MONGO_URL;
  return kafka && mongo ? { kafka, mongo } : undefined;
}

/** Why the distributed suites cannot run here, or undefined when they can. Under CI=true they must. */
export function skipReason(): string | undefined {
  if (distributedServers()) return undefined;
  const why = 'KAFKA_BROKERS and MONGO_URL are not set (make test-distributed starts Kafka and FerretDB)';
  if (process.env.CI === 'true') throw new Error(`${why}: under CI=true the distributed suites must run`);
  return why;
}

export async function startTopology(roles: Role[], extraEnv: Record<string, string> = {}): Promise<Topology> {
  const servers = distributedServers();
  if (!servers) throw new Error('no distributed servers');
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-topology-'));
  const run = randomUUID().replaceAll('-', '').slice(0, 12);
  const env: Record<string, string> = {
    DATA_DIR: dir,
    MONGO_URL: servers.mongo,
    MONGO_DB: `paperlink_${run}`,
    KAFKA_BROKERS: servers.kafka,
    // Topologies of one test run share the broker: each keeps to topics of its own.
    KAFKA_TOPIC_PREFIX: `paperlink-${run}`,
    JWT_SECRET: `topology-${randomUUID()}-${randomUUID()}`,
    READ_SIDE_WAIT_MS: '3000',
    OCR_WORKERS: '1',
    ...extraEnv,
  };
  const processes: Topology['processes'] = [];
  let stopping = false;
  const start = async (role: Role) => {
    const server = await startServerProcess({ ...env, PAPERLINK_ROLE: role }, 90_000);
    processes.push({ role, server });
    // The lease's hand-overs with the time they happened (the fault test times a takeover); with
    // TOPOLOGY_LOGS=<folder>, each process's whole output, stamped, in a file of its own there.
    const file = process.env.TOPOLOGY_LOGS ? join(process.env.TOPOLOGY_LOGS, `${role}-${server.child.pid}.log`) : undefined;
    const stamp = (d: Buffer) => {
      const at = new Date().toISOString().slice(11, 23);
      const lines = String(d).split('\n').filter((l) => l.length > 0);
      for (const line of lines) if (line.includes('projector lease')) console.log(`[topology ${at}] ${role} ${server.child.pid}: ${line}`);
      if (file) appendFileSync(file, lines.map((l) => `${at} ${l}\n`).join(''));
    };
    server.child.stdout!.on('data', stamp);
    server.child.stderr!.on('data', stamp);
    // A process that ends on its own says why (a killed one too: the fault test kills some).
    server.child.once('exit', (code, signal) => {
      if (!stopping) console.log(`[topology] ${role} (pid ${server.child.pid}) ended: ${code ?? signal}\n${server.output().slice(-4000)}`);
    });
    return server;
  };
  // The first projector alone: it takes the lease, creates the read models' indexes and owns the
  // folder's event log; the others (a second projector stands by) then start side by side.
  const first = roles.indexOf('projector');
  if (first >= 0) await start('projector');
  await Promise.all(roles.filter((_, i) => i !== first).map(start));
  const of = (role: Role) => processes.filter((p) => p.role === role && p.server.child.exitCode === null && p.server.child.signalCode === null).map((p) => p.server);
  const router = await startRouter(of);
  const stopProcesses = async () => {
    stopping = true;
    router.server.closeAllConnections();
    await new Promise((r) => router.server.close(r));
    await Promise.all(processes.map((p) => p.server.stop()));
  };
  return {
    url: router.url,
    processes,
    env,
    of,
    add: start,
    output: () => processes.map((p) => `--- ${p.role} (pid ${p.server.child.pid})\n${p.server.output().slice(-6000)}`).join('\n'),
    stopProcesses,
    async stop() {
      await stopProcesses();
      // With TOPOLOGY_LOGS the data folder stays too (its event log tells what happened when).
      if (process.env.TOPOLOGY_LOGS) console.log(`[topology] data folder kept: ${dir}`);
      else rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Reads to query processes, the rest to command processes, each in turn; 502 when none is up. */
async function startRouter(of: (role: Role) => ServerProcess[]): Promise<{ url: string; server: Server }> {
  let turn = 0;
  const server = createServer((req, res) => {
    const targets = of(req.method === 'GET' || req.method === 'HEAD' ? 'query' : 'command');
    const target = targets[turn++ % Math.max(1, targets.length)];
    if (!target) {
      res.writeHead(502).end();
      return;
    }
    const { hostname, port } = new URL(target.url);
    const upstream = request({ hostname, port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, server };
}

/**
 * A client of the topology as the web app is one: it remembers the newest position a write
 * answered (X-Position) and asks each read to wait for it (X-Min-Position, Prefer: wait), so a
 * read on the query process sees the client's own writes.
 */
/** An answer's JSON, read loosely: the tests assert on its shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = Record<string, any>;

export class Client {
  private position = 0;
  headers: Record<string, string> = {};

  constructor(public base = '') {}

  async call(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<{ status: number; body: Body; headers: Headers }> {
    const isForm = body instanceof FormData;
    const read = method === 'GET' || method === 'HEAD';
    const res = await fetch(`${this.base}/api${path}`, {
      method,
      headers: {
        ...this.headers,
        ...(read && this.position > 0 ? { 'x-min-position': String(this.position), prefer: 'wait=5' } : {}),
        ...(body !== undefined && !isForm ? { 'content-type': 'application/json' } : {}),
        ...extra,
      },
      ...(body !== undefined ? { body: isForm ? body : JSON.stringify(body) } : {}),
    });
    const written = Number(res.headers.get('x-position'));
    if (!read && Number.isFinite(written) && written > this.position) this.position = written;
    const text = await res.text();
    let parsed: Body = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = { text };
    }
    return { status: res.status, body: parsed, headers: res.headers };
  }

  /** Polls a read until `check` holds (work done in the background: OCR, auto-match). */
  async until(path: string, check: (body: Body) => boolean, ms = 60_000): Promise<Body> {
    const end = Date.now() + ms;
    for (;;) {
      const r = await this.call('GET', path);
      if (r.status === 200 && check(r.body)) return r.body;
      if (Date.now() > end) throw new Error(`GET ${path} never held (last: ${r.status} ${JSON.stringify(r.body).slice(0, 500)})`);
      await new Promise((res) => setTimeout(res, 250));
    }
  }
}
