/**
 * The cost of the projector thread for a write (ADR 0008, PROJECTOR): a one-event command
 * (a new master data item) is answered only once its projection is committed (the command
 * bus's read-your-writes wait). Inline, that is on the request thread; in the thread, the
 * append is sent to the projector thread and its commit sent back. Same server code, the
 * SQLite read store, in this process over HTTP; each mode twice, alternately, on fresh data
 * folders. Prints p50 / p95 per run (the budget of a match decision is p95 <= 30 ms, ADR 0029).
 *   node --import tsx bench/projector-wake.ts [--writes 200]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPaperlink } from '../infra/src/app';
import { loadConfig } from '../infra/src/config';
import { percentile, row } from './lib';

const args = process.argv.slice(2);
const WRITES = Number(args[args.indexOf('--writes') + 1] || 200) || 200;
const WARMUP = 20;

async function measure(mode: 'inline' | 'thread'): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'paperlink-bench-wake-'));
  const paperlink = await createPaperlink(loadConfig({ DATA_DIR: dir, WEB_DIST: join(dir, 'none'), READ_STORE: 'sqlite', PROJECTOR: mode }), { noJobs: true });
  const server = paperlink.app.listen(0, '127.0.0.1');
  try {
    await new Promise((resolve) => server.once('listening', resolve));
    if (paperlink.projectorThread !== (mode === 'thread')) throw new Error(`PROJECTOR=${mode} did not take effect`);
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const reg = (await (await fetch(`${base}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ firstName: 'Ada', lastName: 'Admin', email: 'ada@example.com', password: 'Passw0rdOK', companyName: 'Bench Co' }),
    })).json()) as { accessToken: string; company: { id: string } };
    const headers = { authorization: `Bearer ${reg.accessToken}`, 'x-company-id': reg.company.id, 'content-type': 'application/json' };
    const took: number[] = [];
    for (let i = 0; i < WARMUP + WRITES; i++) {
      const started = performance.now();
      const res = await fetch(`${base}/api/masterdata/categories`, { method: 'POST', headers, body: JSON.stringify({ name: `Category ${i}` }) });
      await res.arrayBuffer();
      if (res.status !== 201) throw new Error(`write answered ${res.status}`);
      if (i >= WARMUP) took.push(performance.now() - started);
    }
    return took;
  } finally {
    server.close();
    await paperlink.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`A one-event write answered after its projection commits (${WRITES} writes a run, after ${WARMUP} to warm up), ms`);
for (const mode of ['inline', 'thread', 'inline', 'thread'] as const) {
  const took = await measure(mode);
  row(`PROJECTOR=${mode}: p50 / p95`, `${percentile(took, 50).toFixed(1)} / ${percentile(took, 95).toFixed(1)}`, `max ${Math.max(...took).toFixed(1)}`);
}
