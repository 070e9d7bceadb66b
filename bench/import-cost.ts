/**
 * What one 100,000-row import costs, stage by stage, beside the raw insert of the same rows into
 * SQLite (bench/import-baseline.ts) measured in the same run (goal: "import of 100,000 rows
 * end to end <= 2x a raw insert"; docs/decisions/0027-import-cost.md). Smaller and faster than
 * bench/scale.ts, to iterate on:
 *
 * 1. A data folder of IMPORT_COST_TX existing transactions (lab/scale/scale-data.ts), its read
 *    models projected by a first start of the server (SQLite read store), then stopped.
 * 2. In process, on a copy of that folder, the import's stages one after another with the
 *    checkout's own functions: parse, assignment to members, de-duplication (the keys looked up
 *    in transaction_keys, as the route does), decide, append (canonical JSON, hash chain, one
 *    SQLite transaction), projection of the events by every projection that handles them
 *    (apply and commit timed apart, per projection).
 * 3. The real server on the folder: POST /transactions/import over HTTP, and from outside:
 *    answered, events in the log, rows listed, every read model at the head, and settled (the
 *    server's CPU idle again: auto-match of the import's block and what else it set off), with
 *    the server's CPU seconds in each stage (/proc, every thread).
 * Figures are printed, never asserted.
 *
 *   nice node --import tsx bench/import-cost.ts     (IMPORT_COST_TX=100000 IMPORT_COST_ROWS=100000 by default)
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { allProjections, GenerationalReadStore, getUsers, membersOfCompany, TRANSACTION_KEYS, transactionKeyId, UnitOfWork, type TransactionKeyDoc } from '@paperlink/projections';
import { assignRowsToMembers, decideImport, dedupKeyOf, importAssignees, importStream, ledgerStream, parseBankStatement, statementFileStream, type CandidateRow, type DomainEvent, type ExpectedRevision, type JobQueue, type NewEvent, type RecordedEvent } from '@paperlink/domain';
import { newId, TokenService } from '@paperlink/command-api';
import { dataDir } from '../infra/src/data-dir';
import { Reactor } from '../infra/src/jobs/reactor';
import { ocrJobsFrom } from '../infra/src/receipts/ocr-job';
import { autoMatchJobsFrom } from '../infra/src/matches/matching-job';
import { expectExit, startServer, stopServer, type ChildServer } from './child-server';
import { fmt, row } from './lib';
import { generateScaleData, sizesFromEnv, type Person } from '../lab/scale/scale-data';
import { indexedInsert, rawInsert, statement } from './import-baseline';
import { projectorStores } from './projector-stores';

const SECRET = 'import-cost-bench-signing-secret-0123456789';
const ROWS = Number(process.env.IMPORT_COST_ROWS ?? 100_000);
const TX = Number(process.env.IMPORT_COST_TX ?? 100_000);
const RAW_RUNS = 3;
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const s = (ms: number) => (ms / 1000).toFixed(2);

/** CPU milliseconds of this process so far (user + system, every thread). */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Resident memory of a process now and its peak (VmRSS, VmHWM from /proc), in MB. */
function memory(pid: number): { rssMb: number; hwmMb: number } {
  const st = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rssMb: Number(/VmRSS:\s+(\d+)/.exec(st)?.[1] ?? 0) / 1024, hwmMb: Number(/VmHWM:\s+(\d+)/.exec(st)?.[1] ?? 0) / 1024 };
}

/**
 * Starts the peak (VmHWM) of a process afresh at its current resident size (Linux: `5` to
 * /proc/<pid>/clear_refs), so the peak read later is the import's, not the start's. False when
 * not permitted: the peak then includes the start, and the sampled peak is the figure.
 */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** CPU seconds of a process, every thread (utime + stime from /proc). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

// ---------------------------------------------------------------- the server as a child process
type Child = ChildServer;
const startChild = (dir: string): Promise<Child> => startServer(dir, SECRET, { READ_STORE: 'sqlite' });
const stopChild = stopServer;

async function adminHeaders(admin: Person, companyId: string): Promise<Record<string, string>> {
  const { accessToken } = await new TokenService(SECRET).mint({ userId: admin.userId, email: admin.email, firstName: admin.firstName, lastName: admin.lastName, role: 'admin', companyId, sessionId: admin.sessionId, generation: 0, issuedAt: Math.floor(Date.now() / 1000) });
  return { authorization: `Bearer ${accessToken}`, 'x-company-id': companyId };
}

async function getJson(url: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const r = await fetch(url, { headers });
  return (await r.json()) as Record<string, unknown>;
}

async function lag(base: string, headers: Record<string, string>): Promise<number> {
  const body = await getJson(`${base}/health/details`, headers).catch(() => ({}) as Record<string, unknown>);
  return (body.projections as { lag?: number } | undefined)?.lag ?? Number.POSITIVE_INFINITY;
}

async function total(base: string, headers: Record<string, string>): Promise<number> {
  return ((await getJson(`${base}/transactions?limit=1`, headers)).pagination as { total: number }).total;
}

/** Brings the job reactors to the log's head without running their jobs (as bench/scale.ts: the history's jobs have run). */
async function settleReactors(dir: string): Promise<void> {
  const adapters = projectorStores(dataDir(dir));
  const store = await GenerationalReadStore.open(adapters.readStore, allProjections());
  const settled: JobQueue = { kind: 'settled', register() {}, submit: async () => 'done', pending: () => 0, close: async () => {} };
  const head = await adapters.events.headPosition();
  const reactors = [new Reactor('receipts-ocr', adapters.events, store, settled, ocrJobsFrom), new Reactor('auto-match', adapters.events, store, settled, autoMatchJobsFrom)];
  for (const r of reactors) await r.start();
  while (reactors.some((r) => r.position < head)) await sleep(50);
  for (const r of reactors) await r.stop();
  await store.close();
  await adapters.events.close();
}

// ---------------------------------------------------------------- 2. the stages in process
async function stagesInProcess(dir: string, csv: Buffer, companyId: string, admin: Person): Promise<Array<[string, number, string, number]>> {
  const out: Array<[string, number, string, number]> = [];
  const adapters = projectorStores(dataDir(dir));
  const projections = allProjections();
  const store = await GenerationalReadStore.open(adapters.readStore, projections);
  try {
    let t = performance.now();
    let c = cpuMs();
    const parsed = parseBankStatement(csv, { maxRows: ROWS + 1 });
    out.push(['parse (on a pool thread in the server)', performance.now() - t, `${fmt(parsed.rows.length)} rows`, cpuMs() - c]);

    t = performance.now();
    c = cpuMs();
    const memberships = await membersOfCompany(store, companyId);
    const users = await getUsers(store, memberships.map((m) => m.userId));
    const people = memberships.flatMap((m) => { const u = users.get(m.userId); return u ? [{ userId: m.userId, firstName: u.firstName, lastName: u.lastName, role: m.role }] : []; });
    const { members, fallbackId } = importAssignees(people, { userId: admin.userId, role: 'admin' });
    const assignment = assignRowsToMembers(parsed.rows, members, fallbackId);
    const rows: CandidateRow[] = parsed.rows.map((r, i) => {
      const a = assignment.details[i]!;
      return {
        row: r.row, date: r.date, description: r.description, amountCents: r.amountCents,
        ...(r.category ? { category: r.category } : {}), ...(r.jobNumber ? { jobNumber: r.jobNumber } : {}), ...(r.costCode ? { costCode: r.costCode } : {}),
        assignedTo: a.assignedTo, ...(a.providedName ? { providedName: a.providedName } : {}), assignment: a.status,
        dedupKey: dedupKeyOf(r.date, r.description, r.amountCents),
      };
    });
    out.push(['assign rows to members, build candidate rows', performance.now() - t, `${fmt(members.length)} members`, cpuMs() - c]);

    t = performance.now();
    c = cpuMs();
    const held = new Map<string, number>();
    const keys = rows.map((r) => r.dedupKey);
    for (let i = 0; i < keys.length; i += 2000) {
      const part = keys.slice(i, i + 2000);
      const found = (await store.getMany(TRANSACTION_KEYS, part.map((k) => transactionKeyId(companyId, k)))) as Map<string, TransactionKeyDoc>;
      for (const k of part) {
        const n = found.get(transactionKeyId(companyId, k))?.count ?? 0;
        if (n > 0) held.set(k, n);
      }
    }
    out.push(['de-duplication: keys looked up in transaction_keys', performance.now() - t, `${fmt(held.size)} held`, cpuMs() - c]);

    t = performance.now();
    c = cpuMs();
    const importId = newId();
    const newIds = rows.map(() => newId());
    const fileHash = `bench-${importId}`;
    const { events } = decideImport({ importId, companyId, importedBy: admin.userId, fileName: 'bench.csv', fileHash, layout: parsed.layout, rows, rowErrors: [], existingKeys: held, newIds }, { fileHashes: {} });
    out.push(['decide (ids, events in chunks)', performance.now() - t, `${events.length} events`, cpuMs() - c]);

    t = performance.now();
    c = cpuMs();
    const metadata = { companyId, userId: admin.userId, requestId: importId, correlationId: importId, occurredAt: new Date().toISOString() };
    const planned: Array<{ streamId: string; expectedRevision: ExpectedRevision; events: DomainEvent[] }> = [
      { streamId: importStream(importId), expectedRevision: 'no_stream', events: events.filter((e) => e.type === 'TransactionsImported') },
      { streamId: ledgerStream(companyId), expectedRevision: 'any', events: events.filter((e) => e.type === 'StatementImported') },
      { streamId: statementFileStream(companyId, fileHash), expectedRevision: 'no_stream', events: [{ type: 'StatementFileClaimed', data: { companyId, fileHash, importId } }] },
    ];
    const head = await adapters.events.headPosition();
    await adapters.events.appendMany(planned.map((a) => ({ ...a, events: a.events.map((e): NewEvent => ({ id: newId(), type: e.type, data: e.data, metadata })) })));
    out.push(['append: canonical JSON, hash chain, one SQLite transaction', performance.now() - t, 'synchronous=FULL', cpuMs() - c]);

    const appended: RecordedEvent[] = [];
    for (let after = head; ;) {
      const batch = await adapters.events.readAll({ after, maxCount: 1000 });
      if (batch.length === 0) break;
      appended.push(...batch);
      after = batch[batch.length - 1]!.position;
    }
    let projTotal = 0;
    let projCpu = 0;
    for (const p of projections) {
      const mine = appended.filter((e) => p.handles.has(e.type));
      if (mine.length === 0) continue;
      let apply = 0;
      let commit = 0;
      const pc = cpuMs();
      let uow = new UnitOfWork(store);
      for (const [i, event] of mine.entries()) {
        let a = performance.now();
        await p.apply(event, uow.viewFor(event));
        apply += performance.now() - a;
        if (i === mine.length - 1 || uow.size >= 2000) {
          a = performance.now();
          await store.commit(uow.writes, []);
          commit += performance.now() - a;
          uow = new UnitOfWork(store);
        }
      }
      const f = performance.now();
      await store.flush();
      commit += performance.now() - f;
      projTotal += apply + commit;
      projCpu += cpuMs() - pc;
      out.push([`projection ${p.name}: apply + commit`, apply + commit, `apply ${s(apply)} s, commit ${s(commit)} s`, cpuMs() - pc]);
    }
    out.push(['projection: every projection', projTotal, '', projCpu]);
  } finally {
    await store.close();
    await adapters.events.close();
  }
  return out;
}

// ---------------------------------------------------------------- main
console.log(`Import cost: ${fmt(ROWS)} rows into a company of ${fmt(TX)} transactions (SQLite read store). Load average ${load()}`);
const work = mkdtempSync(join(tmpdir(), 'paperlink-import-cost-'));
/** IMPORT_COST_DATA=<dir>: the projected folder is kept there and reused by the next run (to iterate). */
const KEEP = process.env.IMPORT_COST_DATA;
/** IMPORT_COST_SERVER=0: the in-process stages only. */
const SERVER = process.env.IMPORT_COST_SERVER !== '0';
/** IMPORT_COST_STAGES=0: the server end to end only (no in-process stages). */
const STAGES = process.env.IMPORT_COST_STAGES !== '0';
let child: Child | undefined;
try {
  const dir = join(work, 'live');
  interface Kept { companyId: string; admin: Person; members: Person[] }
  let kept: Kept;
  if (KEEP && existsSync(join(KEEP, 'import-cost.json'))) {
    kept = JSON.parse(readFileSync(join(KEEP, 'import-cost.json'), 'utf8')) as Kept;
    cpSync(join(KEEP, 'folder'), dir, { recursive: true });
    console.log(`  the projected folder of ${KEEP} (generated before)`);
  } else {
    const sizes = { ...sizesFromEnv({ SCALE_TX: String(TX), SCALE_SIGNINS: '10', SCALE_MONTHS: '24', ...process.env }) };
    const pristine = join(work, 'pristine');
    const data = await generateScaleData(pristine, sizes, { secret: SECRET });
    kept = { companyId: data.big.companyId, admin: data.big.admin, members: data.big.members };
    cpSync(pristine, dir, { recursive: true });
    await settleReactors(dir);
    // 1. A first start projects everything; stopped, the folder is the state before the import.
    child = await startChild(dir);
    const firstHeaders = await adminHeaders(kept.admin, kept.companyId);
    while ((await lag(child.base, firstHeaders)) > 0) await sleep(200);
    await stopChild(child);
    child = undefined;
    if (KEEP) {
      cpSync(dir, join(KEEP, 'folder'), { recursive: true });
      writeFileSync(join(KEEP, 'import-cost.json'), JSON.stringify(kept));
    }
  }
  const companyId = kept.companyId;
  const headers = await adminHeaders(kept.admin, companyId);
  const copy = join(work, 'copy');
  cpSync(dir, copy, { recursive: true });
  const csv = statement(ROWS, kept.members);

  const raws: number[] = [];
  const rawCpus: number[] = [];
  for (let i = 0; i < RAW_RUNS; i++) {
    const c0 = cpuMs();
    raws.push(rawInsert(csv));
    rawCpus.push(cpuMs() - c0);
  }
  const raw = [...raws].sort((a, b) => a - b)[RAW_RUNS >> 1]!;
  const rawCpu = [...rawCpus].sort((a, b) => a - b)[RAW_RUNS >> 1]!;
  row('raw insert of the same rows (s, median of 3)', s(raw), `CPU ${s(rawCpu)} s; JSON documents, id TEXT PRIMARY KEY, one transaction, WAL, synchronous=FULL; load ${load()}`);
  // The floor of any projection of these rows into the lists' table (ADR 0027, 2026-12-02).
  const floorCpu0 = cpuMs();
  const floor = await indexedInsert(csv, join(dir, 'readmodels.sqlite'), companyId);
  const floorCpu = cpuMs() - floorCpu0;
  row('  floor: the rows as transactions documents into the lists\' table (s)', s(floor.ms), `${(floor.ms / raw).toFixed(2)} x the raw insert; raw SQL, one transaction, into ${fmt(floor.before)} documents with the table's ${floor.indexes} indexes; CPU ${s(floorCpu)} s with the copy; load ${load()}`);

  // 2. In process.
  if (STAGES) console.log('\n  stages in process (a copy of the folder, the checkout\'s functions one after another):');
  const stages = STAGES ? await stagesInProcess(copy, csv, companyId, kept.admin) : [];
  let sum = 0;
  let sumCpu = 0;
  for (const [label, ms, note, cpu] of stages) {
    if (!label.startsWith('projection ')) {
      sum += ms;
      sumCpu += cpu;
    }
    row(`  ${label} (s)`, s(ms), `CPU ${s(cpu)} s${note ? `; ${note}` : ''}`);
  }
  if (STAGES) row('  sum of the stages (s)', s(sum), `${(sum / raw).toFixed(2)} x the raw insert; CPU ${s(sumCpu)} s, ${(sumCpu / rawCpu).toFixed(2)} x the raw insert's CPU; load ${load()}`);
  rmSync(copy, { recursive: true, force: true });

  if (SERVER) {
    // 3. The real server, end to end.
    console.log('\n  end to end, the server over HTTP (times from the request; server CPU seconds of each stage):');
    child = await startChild(dir);
    while ((await lag(child.base, headers)) > 0) await sleep(200);
    const pid = child.proc.pid!;
    const before = await total(child.base, headers);
    const watcher = new Database(dataDir(dir).eventsFile, { readonly: true, fileMustExist: true });
    const claimed = watcher.prepare<[number], { p: number | null }>("SELECT MAX(position) AS p FROM events WHERE position > ? AND type = 'StatementImported'");
    const headPos = (watcher.prepare('SELECT MAX(position) AS p FROM events').get() as { p: number }).p;
    // Memory (goal: <= 1.5 GB resident; the import's peak is what makes a small machine swap).
    await sleep(1000);
    const memBefore = memory(pid);
    const peakReset = resetPeak(pid);
    let sampledPeak = memBefore.rssMb;
    const sampler = setInterval(() => {
      try {
        sampledPeak = Math.max(sampledPeak, memory(pid).rssMb);
      } catch {
        // gone
      }
    }, 50);
    const cpu0 = cpuSeconds(pid);
    const t0 = performance.now();
    const marks: Array<[string, number, number]> = [];
    const form = new FormData();
    form.append('csvFile', new Blob([csv], { type: 'text/csv' }), 'import-cost.csv');
    let answered = 0;
    let status = 0;
    let imported = 0;
    const request = fetch(`${child.base}/transactions/import`, { method: 'POST', headers, body: form }).then(async (res) => {
      status = res.status;
      const body = (await res.json()) as { imported?: number };
      imported = body.imported ?? 0;
      answered = performance.now() - t0;
    });
    let appendedAt = 0;
    while (!appendedAt && !answered) {
      if ((claimed.get(headPos)?.p ?? null) !== null) appendedAt = performance.now() - t0;
      else await sleep(5);
    }
    if (!appendedAt) appendedAt = answered;
    marks.push(['upload, parse, de-duplicate, decide, append (events in the log)', appendedAt, cpuSeconds(pid)]);
    await request;
    if (status !== 200) throw new Error(`import answered ${status}`);
    marks.push(['answered', answered, cpuSeconds(pid)]);
    // Every 100 ms: each list total may start a recount on the server (its CPU counts here).
    while ((await total(child.base, headers)) < before + imported) await sleep(100);
    marks.push(['rows listed (transactions read model)', performance.now() - t0, cpuSeconds(pid)]);
    while ((await lag(child.base, headers)) > 0) await sleep(100);
    marks.push(['every read model at the head', performance.now() - t0, cpuSeconds(pid)]);
    // Settled: under 5 % of a core over 500 ms (auto-match of the block, anything else set off).
    for (let last = cpuSeconds(pid); ;) {
      await sleep(500);
      const now = cpuSeconds(pid);
      if (now - last < 0.025) break;
      last = now;
    }
    marks.push(['settled (server CPU idle: auto-match of the block done)', performance.now() - t0 - 500, cpuSeconds(pid)]);
    clearInterval(sampler);
    const memAfter = memory(pid);
    watcher.close();
    let prevCpu = cpu0;
    let prevT = 0;
    for (const [label, at, cpu] of marks) {
      row(`  ${label} (s)`, s(at), `+${s(at - prevT)} s, ${(cpu - prevCpu).toFixed(2)} CPU s`);
      prevCpu = cpu;
      prevT = at;
    }
    const listed = marks.find(([l]) => l.startsWith('rows listed'))![1];
    const settled = marks[marks.length - 1]![1];
    row(`import of ${fmt(imported)} rows, end to end: listed / raw insert`, (listed / raw).toFixed(2), `target <= 2 x; answered / raw ${(answered / raw).toFixed(2)}; settled / raw ${(settled / raw).toFixed(2)}`);
    row('  listed / the floor (the rows into the lists\' table alone)', (listed / floor.ms).toFixed(2), `the floor ${(floor.ms / raw).toFixed(2)} x the raw insert: the part of the ratio the lists' indexes take before any event or projector`);
    // On a loaded machine wall times mostly measure the wait for a core: the CPU spent is steadier.
    const listedCpu = marks.find(([l]) => l.startsWith('rows listed'))![2] - cpu0;
    row('  server resident memory before the import: VmRSS / VmHWM since start (MB)', `${fmt(memBefore.rssMb)} / ${fmt(memBefore.hwmMb)}`, 'after the start and catch-up');
    row('  server peak during the import: VmHWM (MB)', fmt(peakReset ? memAfter.hwmMb : sampledPeak), `${peakReset ? 'peak reset before the request (clear_refs)' : 'not resettable: sampled every 50 ms'}; sampled ${fmt(sampledPeak)}; target <= 1,536 resident`);
    row('  server resident memory when settled: VmRSS (MB)', fmt(memAfter.rssMb));
    row('  server CPU until listed / the raw insert\'s CPU', (listedCpu / (rawCpu / 1000)).toFixed(2), `${listedCpu.toFixed(2)} CPU s against ${s(rawCpu)} s`);
  }
  console.log(`  load average after: ${load()}`);
} finally {
  if (child) {
    expectExit(child);
    child.proc.kill('SIGKILL');
    await new Promise((r) => child!.proc.once('exit', r));
  }
  rmSync(work, { recursive: true, force: true });
}
