import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');

export async function freePort(): Promise<number> {
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

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the product as `make start` runs it: one node process, embedded profile. */
export async function startServerProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  let log = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/src/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${log}`);
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not answer /api/health in ${timeoutMs} ms:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    url,
    output: () => log,
    stop(signal: NodeJS.Signals = 'SIGTERM') {
      return new Promise((res) => {
        // Ended already (on its own, or killed by a signal: exitCode stays null then).
        if (child.exitCode !== null || child.signalCode !== null) return res(child.exitCode);
        child.once('exit', (code) => res(code));
        child.kill(signal);
      });
    },
  };
}
