import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { registerAccount, startApi } from '../support/harness';
import { REPO_ROOT } from '../../infra/src/app';

/** `make replay TO=<date> OUT=<dir>` studies the past in a folder of its own. */

const run = promisify(execFile);
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const csv = (prefix: string, n: number) => Buffer.from(`Transaction Date,Description,Amount\n${Array.from({ length: n }, (_, i) => `2024-05-${String(1 + i).padStart(2, '0')},${prefix} ${i},-${i + 1}.00`).join('\n')}\n`);

describe('make replay', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('copies the log up to a moment into a new folder, builds its read models there, and leaves the live folder alone', async () => {
    const live = mkdtempSync(join(tmpdir(), 'paperlink-replay-live-'));
    const out = join(mkdtempSync(join(tmpdir(), 'paperlink-replay-out-')), 'past');
    dirs.push(live, out, join(out, '..'));
    const api = await startApi({}, live);
    const admin = await registerAccount(api);
    expect((await api.http.post('/api/transactions/import').set(admin.headers()).attach('csvFile', csv('Before', 4), 'a.csv')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const to = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect((await api.http.post('/api/transactions/import').set(admin.headers()).attach('csvFile', csv('After', 3), 'b.csv')).status).toBe(200);
    await api.paperlink.close();
    const before = sha(join(live, 'events.sqlite'));

    const env = { ...process.env, DATA_DIR: live, TO: to, OUT: out };
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'infra/src/cli/replay.ts'], { cwd: REPO_ROOT, env });
    expect(stdout).toMatch(/later ones left out/);
    expect(stdout).toMatch(/events\/s/);
    expect(sha(join(live, 'events.sqlite'))).toBe(before);

    // A second replay into the now non-empty folder is refused.
    await expect(run(process.execPath, ['--import', 'tsx', 'infra/src/cli/replay.ts'], { cwd: REPO_ROOT, env })).rejects.toMatchObject({ stderr: expect.stringMatching(/not empty/) });

    // The past folder opens as a data folder: the first statement's rows, not the second's.
    writeFileSync(join(out, 'secret.key'), readFileSync(join(live, 'secret.key')));
    const past = await startApi({}, out);
    try {
      const list = await past.http.get('/api/transactions?limit=50&page=1').set(admin.headers());
      expect(list.status).toBe(200);
      expect(list.body.pagination.total).toBe(4);
      expect(list.body.transactions.every((t: { description: string }) => t.description.startsWith('Before'))).toBe(true);
    } finally {
      await past.paperlink.close();
    }
    // And the live one still holds both.
    const now = await startApi({}, live);
    try {
      expect((await now.http.get('/api/transactions?limit=50&page=1').set(admin.headers())).body.pagination.total).toBe(7);
    } finally {
      await now.paperlink.close();
    }
  }, 60_000);
});
